// Writes the editor JSON Schemas (schemas/<group>/<kind>_<version>.json) from the CRDs and removes ones no CRD
// gives any more: `npm run schemas` after changing a CRD. editor-schemas.spec.ts fails while they differ.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { REPO_ROOT, committedSchemaFiles, generatedSchemaFiles } from './schema-files.ts';

const files = await generatedSchemaFiles();
for (const stale of committedSchemaFiles().filter((path) => !files.has(path))) {
  rmSync(join(REPO_ROOT, stale));
  console.log(`removed ${stale}`);
}
for (const [path, text] of files) {
  mkdirSync(dirname(join(REPO_ROOT, path)), { recursive: true });
  writeFileSync(join(REPO_ROOT, path), text);
  console.log(`wrote   ${path}`);
}
