// The editor JSON Schemas as files: one per kind and version of every CRD this project ships, generated from
// the CRDs' YAML and formatted as `npm run format` would leave them.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { parseAllDocuments } from 'yaml';
import { type CrdSource, editorSchemas } from './crd-json-schema.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const SCHEMAS_DIR = join(REPO_ROOT, 'schemas');

/** The chart's CRDs and the copies of upstream-owned CRDs that `node-policy-operator crds apply` installs. */
const CRD_DIRS = ['charts/sriov-dra/crds', 'apps/node-policy-operator/crds'];

function readCrdSources(): CrdSource[] {
  return CRD_DIRS.flatMap((dir) =>
    readdirSync(join(REPO_ROOT, dir))
      .filter((file) => file.endsWith('.yaml'))
      .sort()
      .flatMap((file) => parseAllDocuments(readFileSync(join(REPO_ROOT, dir, file), 'utf8')).map((document) => document.toJS() as CrdSource)),
  );
}

/** Path relative to the repository root to file contents, sorted by path. */
export async function generatedSchemaFiles(): Promise<Map<string, string>> {
  const schemas = readCrdSources()
    .flatMap(editorSchemas)
    .sort((a, b) => a.path.localeCompare(b.path));
  const files = new Map<string, string>();
  for (const { path, schema } of schemas) {
    if (files.has(path)) throw new Error(`two CRDs give ${path}`);
    const options = (await resolveConfig(join(REPO_ROOT, path))) ?? {};
    files.set(path, await format(JSON.stringify(schema), { ...options, parser: 'json' }));
  }
  return files;
}

/** The .json files under schemas/, relative to the repository root. */
export function committedSchemaFiles(): string[] {
  let entries: string[];
  try {
    entries = readdirSync(SCHEMAS_DIR, { recursive: true, encoding: 'utf8' });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.endsWith('.json'))
    .map((entry) => relative(REPO_ROOT, join(SCHEMAS_DIR, entry)))
    .sort();
}
