// `npm run docs`: writes the generated documentation pages (docs/configuration.md, docs/error-codes.md).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedPages } from './generated-pages.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
for (const [page, content] of generatedPages(root)) {
  fs.writeFileSync(path.join(root, page), content);
  process.stdout.write(`wrote ${page}\n`);
}
