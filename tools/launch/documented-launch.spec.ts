// Each app's documented launch is the shebang of its src/main.ts (`#!/usr/bin/env -S NAME=value node <flags>`):
// its image's entrypoint follows it (tools/images/images.spec.ts), and so must everything else that starts
// the app as deployed — its package.json `start` script and the benchmarks whose memory figures stand for the
// deployed process (their LAUNCH_FLAGS and LAUNCH_ENV, read from the source as written).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const APPS = ['dra-driver', 'multus-live-read-proxy', 'node-policy-operator'] as const;
type App = (typeof APPS)[number];

interface Launch {
  readonly env: Readonly<Record<string, string>>;
  readonly flags: readonly string[];
}

const read = (file: string): string => fs.readFileSync(path.join(ROOT, file), 'utf8');

/** `NAME=value … node --flag … <script> …`: the assignments before `node`, the flags between it and the script. */
function commandLaunch(words: readonly string[], where: string): Launch {
  const node = words.indexOf('node');
  if (node === -1) throw new Error(`${where}: no node in ${JSON.stringify(words.join(' '))}`);
  const assignments = words.slice(0, node).map((word) => /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(word));
  if (assignments.some((match) => match === null)) throw new Error(`${where}: not an assignment before node in ${JSON.stringify(words.join(' '))}`);
  const rest = words.slice(node + 1);
  const script = rest.findIndex((word) => !word.startsWith('-'));
  return {
    env: Object.fromEntries(assignments.map((match) => [match?.[1] ?? '', match?.[2] ?? ''])),
    flags: script === -1 ? rest : rest.slice(0, script),
  };
}

function shebangLaunch(app: App): Launch {
  const file = `apps/${app}/src/main.ts`;
  const shebang = read(file).split('\n')[0] ?? '';
  const prefix = '#!/usr/bin/env -S ';
  if (!shebang.startsWith(prefix)) throw new Error(`${file}: no \`${prefix}\` launch in ${JSON.stringify(shebang)}`);
  return commandLaunch(shebang.slice(prefix.length).trim().split(/\s+/), file);
}

/** The `start` script's launch, and the script it runs. */
function startLaunch(app: App): Launch & { readonly script: string | undefined } {
  const file = `apps/${app}/package.json`;
  const start = (JSON.parse(read(file)) as { scripts?: { start?: string } }).scripts?.start;
  if (start === undefined) throw new Error(`${file}: no start script`);
  const words = start.trim().split(/\s+/);
  const launch = commandLaunch(words, file);
  return { ...launch, script: words[words.indexOf('node') + 1 + launch.flags.length] };
}

/** A constant's value as the file writes it: string literals, arrays and objects of them, `...` of another constant of the file. */
function constants(file: string): (name: string) => unknown {
  const source = ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, true);
  const initializers = new Map<string, ts.Expression>();
  const collect = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer !== undefined) initializers.set(node.name.text, node.initializer);
    ts.forEachChild(node, collect);
  };
  collect(source);
  const value = (expression: ts.Expression): unknown => {
    if (ts.isAsExpression(expression) || ts.isSatisfiesExpression(expression) || ts.isParenthesizedExpression(expression)) return value(expression.expression);
    if (ts.isStringLiteral(expression) || ts.isNoSubstitutionTemplateLiteral(expression)) return expression.text;
    if (ts.isIdentifier(expression)) return named(expression.text);
    if (ts.isArrayLiteralExpression(expression)) {
      return expression.elements.flatMap((element) => (ts.isSpreadElement(element) ? (value(element.expression) as unknown[]) : [value(element)]));
    }
    if (ts.isObjectLiteralExpression(expression)) {
      return Object.fromEntries(
        expression.properties.map((property) => {
          if (!ts.isPropertyAssignment(property) || !(ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))) {
            throw new Error(`${file}: cannot read ${property.getText(source)}`);
          }
          return [property.name.text, value(property.initializer)];
        }),
      );
    }
    throw new Error(`${file}: cannot read ${expression.getText(source)}`);
  };
  const named = (name: string): unknown => {
    const initializer = initializers.get(name);
    if (initializer === undefined) throw new Error(`${file}: no constant ${name}`);
    return value(initializer);
  };
  return named;
}

function constantsLaunch(file: string): Launch {
  const named = constants(file);
  return { env: named('LAUNCH_ENV') as Launch['env'], flags: named('LAUNCH_FLAGS') as Launch['flags'] };
}

/** The files that define a launch constant, and the apps each launches. */
const BENCH_LAUNCHES: Readonly<Record<string, readonly App[]>> = {
  'apps/dra-driver/bench/idle-rss.bench.ts': ['dra-driver'],
  'apps/multus-live-read-proxy/bench/launch-daemon.ts': ['multus-live-read-proxy'],
  'apps/node-policy-operator/bench/idle-rss.bench.ts': ['node-policy-operator'],
  'e2e/src/object-growth/cache-memory.ts': ['node-policy-operator', 'multus-live-read-proxy'],
};

function filesDefiningLaunch(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.split(path.sep).includes('node_modules'))
    .map((file) => path.join(dir, file))
    .filter((file) => /\bconst LAUNCH_(FLAGS|ENV)\b/.test(read(file)));
}

describe('the documented launch (main.ts’s shebang)', () => {
  it.each(APPS)('%s: names node and its V8 flags', (app) => {
    const launch = shebangLaunch(app);
    expect(launch.flags.length).toBeGreaterThan(0);
    for (const flag of launch.flags) expect(flag).toMatch(/^--[a-z]/);
  });

  it.each(APPS)('%s: package.json `start` runs dist/main.js with the shebang’s flags and environment', (app) => {
    const { script, ...launch } = startLaunch(app);
    expect(launch).toEqual(shebangLaunch(app));
    expect(script).toBe('dist/main.js');
  });

  it.each(Object.entries(BENCH_LAUNCHES))('%s: LAUNCH_FLAGS and LAUNCH_ENV are the shebang’s of what it launches', (file, apps) => {
    for (const app of apps) expect({ app, ...constantsLaunch(file) }).toEqual({ app, ...shebangLaunch(app) });
  });

  it('leaves no benchmark or end-to-end launch constant out of the comparison', () => {
    const defining = [...APPS.map((app) => `apps/${app}/bench`), 'e2e/src'].flatMap(filesDefiningLaunch);
    expect(defining.sort()).toEqual(Object.keys(BENCH_LAUNCHES).sort());
  });
});
