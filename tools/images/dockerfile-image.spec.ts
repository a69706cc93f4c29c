// The assembly reads build arguments as a build does: those declared before the first FROM name the stages'
// images, a stage's ARG reaches its RUN steps, a build argument overrides a default, and a RUN's cache mount is
// dropped while any other RUN flag is refused.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { assembleImage, parseDockerfile } from './dockerfile-image.ts';

let work: string;

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'dockerfile-image-'));
});

afterAll(() => {
  fs.rmSync(work, { recursive: true, force: true });
});

/** Assembles the Dockerfile text with an empty context and returns the final stage's root. */
function assemble(name: string, text: string, buildArgs: Record<string, string> = {}): string {
  const dir = path.join(work, name);
  fs.mkdirSync(path.join(dir, 'context'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'Dockerfile'), text);
  return assembleImage(path.join(dir, 'Dockerfile'), path.join(dir, 'context'), path.join(dir, 'stages'), {}, buildArgs).root;
}

describe('parseDockerfile', () => {
  const text = 'ARG BASE=debian:bookworm-slim\nARG TOOLS=golang:1.26 UNSET\nFROM ${TOOLS} AS tools\nFROM $BASE\nRUN true\n';

  it('names each stage’s image from the arguments before the first FROM: their defaults, or the build’s', () => {
    expect(parseDockerfile(text).map((stage) => stage.from)).toEqual(['golang:1.26', 'debian:bookworm-slim']);
    expect(parseDockerfile(text, { BASE: 'localhost/base:1' }).map((stage) => stage.from)).toEqual(['golang:1.26', 'localhost/base:1']);
  });

  it('refuses a FROM naming an argument without a value, or one not declared before the first FROM', () => {
    expect(() => parseDockerfile(`${text}FROM \${UNSET}\n`)).toThrow('UNSET has no value');
    expect(() => parseDockerfile('FROM scratch\nARG LATE=x\nFROM ${LATE}\n')).toThrow('LATE has no value');
    expect(parseDockerfile(`${text}FROM \${UNSET}\n`, { UNSET: 'scratch' }).at(-1)?.from).toBe('scratch');
  });
});

describe('assembleImage', () => {
  const text = [
    'ARG INHERITED=global',
    'FROM scratch',
    'ARG INHERITED',
    'ARG DEFAULTED=default NONE',
    'ARG SHADOWED=arg',
    'ENV SHADOWED=env',
    'WORKDIR /out',
    'RUN --mount=type=cache,target=/cache printf "%s|%s|%s|%s" "$INHERITED" "$DEFAULTED" "${NONE-unset}" "$SHADOWED" > args',
  ].join('\n');

  it('runs RUN with the stage’s arguments in its environment, below ENV', () => {
    expect(fs.readFileSync(path.join(assemble('defaults', text), 'out', 'args'), 'utf8')).toBe('global|default|unset|env');
    const passed = assemble('passed', text, { INHERITED: 'passed', DEFAULTED: 'passed', NONE: 'passed' });
    expect(fs.readFileSync(path.join(passed, 'out', 'args'), 'utf8')).toBe('passed|passed|passed|env');
  });

  it('refuses RUN flags other than cache mounts', () => {
    expect(() => assemble('bind', 'FROM scratch\nRUN --mount=type=bind,target=/src true\n')).toThrow('only cache mounts');
    expect(() => assemble('network', 'FROM scratch\nRUN --network=none true\n')).toThrow('only cache mounts');
  });
});
