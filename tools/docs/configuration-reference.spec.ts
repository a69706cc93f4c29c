// The generated pages (docs/configuration.md, docs/error-codes.md) are exactly what `npm run docs` writes
// from the charts, the binaries' --help and the error catalog: a changed flag, value or code without a
// regenerated page fails here.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, jest } from '@jest/globals';
import { mergeDefaults, valueRows } from './chart-values-reference.ts';
import { announcedSubcommands, helpFlags } from './command-help.ts';
import { generatedPages } from './generated-pages.ts';

jest.setTimeout(300_000);

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('generated documentation', () => {
  it('is what npm run docs writes (run it after changing a chart value, flag or error code)', () => {
    for (const [page, content] of generatedPages(ROOT)) {
      expect({ page, content: fs.readFileSync(path.join(ROOT, page), 'utf8') }).toEqual({ page, content });
    }
  });
});

describe('chart value rows', () => {
  it('open objects into their members, list entries as key[].member, with the defaults and the umbrella overrides', () => {
    const schema = {
      properties: {
        port: { type: 'integer', minimum: 1, maximum: 65535, description: 'the port' },
        mode: { enum: ['A', 'B'], description: 'the mode' },
        api: { type: 'object', description: 'client', properties: { qps: { type: 'number', exclusiveMinimum: 0, description: 'rate' } } },
        classes: { type: 'array', description: 'classes', items: { type: 'object', properties: { name: { type: 'string', description: 'name' } } } },
      },
    };
    const defaults = mergeDefaults({ port: 80, mode: 'A', api: { qps: 5 }, classes: [] }, { api: { qps: 7 } });
    expect(valueRows(schema, defaults, 'c.')).toEqual([
      { key: 'c.port', type: 'integer 1–65535', defaultValue: '80', description: 'the port' },
      { key: 'c.mode', type: 'one of `"A"`, `"B"`', defaultValue: '"A"', description: 'the mode' },
      { key: 'c.api.qps', type: 'number > 0', defaultValue: '7', description: 'rate' },
      { key: 'c.classes', type: 'array', defaultValue: '[]', description: 'classes' },
      { key: 'c.classes[].name', type: 'string', defaultValue: undefined, description: 'name' },
    ]);
  });
});

describe('usage texts', () => {
  it('announce subcommands as (<subcommand> --help), also after other words', () => {
    const help =
      'Usage: x <command>\n  run   runs (run --help)\n  crds apply  installs (crds apply --help)\n  x preflight (checks the node; preflight --help)\n';
    expect(announcedSubcommands(help)).toEqual([['run'], ['crds', 'apply'], ['preflight']]);
  });

  it('name their flags', () => {
    expect([...helpFlags('  -f, --filename FILE\n  --kube-api-qps (env KUBE_API_QPS) [default: $KUBECONFIG]')].sort()).toEqual([
      '--filename',
      '--help',
      '--kube-api-qps',
      '-f',
      '-h',
    ]);
  });
});
