// The assembly reads build arguments as a build does: those declared before the first FROM name the stages'
// images, a stage's ARG reaches its RUN steps, ENV and LABEL, a build argument overrides a default, and a RUN's
// cache mount is dropped while any other RUN flag is refused. It copies from the context what .dockerignore
// leaves in it, and takes a stage of the same text from its cache instead of running it again.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type AssemblyOptions, type ImageConfig, assembleImage, parseDockerfile } from './dockerfile-image.ts';

let work: string;

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'dockerfile-image-'));
});

afterAll(() => {
  fs.rmSync(work, { recursive: true, force: true });
});

/** Assembles the Dockerfile text with a context of the given files and returns the final stage. */
function assembleImageOf(name: string, text: string, options: AssemblyOptions = {}, files: Record<string, string> = {}): ImageConfig {
  const dir = path.join(work, name);
  fs.mkdirSync(path.join(dir, 'context'), { recursive: true });
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, 'context', file)), { recursive: true });
    fs.writeFileSync(path.join(dir, 'context', file), content);
  }
  fs.writeFileSync(path.join(dir, 'Dockerfile'), text);
  return assembleImage(path.join(dir, 'Dockerfile'), path.join(dir, 'context'), path.join(dir, 'stages'), options);
}

/** Assembles the Dockerfile text with an empty context and returns the final stage's root. */
function assemble(name: string, text: string, buildArgs: Record<string, string> = {}): string {
  return assembleImageOf(name, text, { buildArgs }).root;
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

  it('substitutes the stage’s arguments and environment in ENV and LABEL, quoted values keeping their spaces', () => {
    const labelled = [
      'FROM scratch',
      'ARG COMMIT=',
      'ARG UNSET',
      'ENV NAME=app',
      'LABEL title="the $NAME image" revision="${COMMIT}" unset="${UNSET}"',
      'ENV COMMIT=${COMMIT}',
    ].join('\n');
    expect(assembleImageOf('labels-default', labelled)).toMatchObject({
      labels: { title: 'the app image', revision: '', unset: '' },
      env: { NAME: 'app', COMMIT: '' },
    });
    expect(assembleImageOf('labels-passed', labelled, { buildArgs: { COMMIT: 'abc123' } })).toMatchObject({
      labels: { revision: 'abc123' },
      env: { COMMIT: 'abc123' },
    });
    expect(() => assembleImageOf('labels-undeclared', 'FROM scratch\nLABEL revision="${NOWHERE}"\n')).toThrow('NOWHERE has no value');
  });

  it('copies from the context what .dockerignore leaves in it, and refuses a source it excludes', () => {
    const files = { '.dockerignore': '**/dist\n*.log\n!keep.log\n', 'app/src/main.ts': 'source', 'app/dist/main.js': 'built', 'a.log': 'x', 'keep.log': 'y' };
    const image = assembleImageOf('ignored', 'FROM scratch\nWORKDIR /out\nCOPY app app\nCOPY keep.log ./\n', {}, files);
    expect(fs.readdirSync(path.join(image.root, 'out', 'app'))).toEqual(['src']);
    expect(fs.readFileSync(path.join(image.root, 'out', 'keep.log'), 'utf8')).toBe('y');
    expect(() => assembleImageOf('ignored-source', 'FROM scratch\nCOPY app/dist/main.js /\n', {}, files)).toThrow('.dockerignore excludes it');
    expect(() => assembleImageOf('ignored-file', 'FROM scratch\nCOPY a.log /\n', {}, files)).toThrow('.dockerignore excludes it');
  });

  it('takes a stage of the same text from its cache, and runs one that differs', () => {
    const stageCache = new Map<string, string>();
    const context = path.join(work, 'cache-context');
    fs.mkdirSync(context, { recursive: true });
    const counter = path.join(work, 'cache.count');
    const build = (name: string, shared: string, step: string): void => {
      fs.writeFileSync(
        path.join(work, `${name}.Dockerfile`),
        `FROM scratch AS shared\nRUN ${shared} >> ${counter}\nFROM scratch\nCOPY --from=shared / /\nRUN ${step}\n`,
      );
      assembleImage(path.join(work, `${name}.Dockerfile`), context, path.join(work, name), { stageCache });
    };
    build('cache-a', 'echo run', 'true');
    build('cache-b', 'echo run', 'echo other');
    expect(fs.readFileSync(counter, 'utf8')).toBe('run\n');
    build('cache-c', 'echo changed', 'true');
    expect(fs.readFileSync(counter, 'utf8')).toBe('run\nchanged\n');
  });
});
