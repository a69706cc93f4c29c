// `npm run krew:release -- [--out DIR] [--uri URL]`: builds the release archive and writes the krew manifest
// beside it, with the archive's sha256. --uri is where the archive will be published; without it the
// manifest points at the archive on this machine (file:), for `kubectl krew install --manifest`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { KREW_PLUGIN_NAME, krewManifest } from './krew-manifest.ts';
import { buildReleaseArchive } from './release-archive.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const USAGE = 'Usage: krew-release.ts [--out DIR] [--uri URL]   (default --out dist/krew; --uri: the archive as a file: URL)\n';

let options: { out: string; uri: string | undefined };
try {
  const { values } = parseArgs({ options: { out: { type: 'string', default: path.join(repo, 'dist', 'krew') }, uri: { type: 'string' } }, strict: true });
  options = { out: values.out, uri: values.uri };
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  process.exit(2);
}

const archive = buildReleaseArchive(repo, options.out);
const manifest = path.join(path.resolve(options.out), `${KREW_PLUGIN_NAME}.yaml`);
fs.writeFileSync(manifest, stringify(krewManifest({ version: archive.version, uri: options.uri ?? pathToFileURL(archive.file).href, sha256: archive.sha256 })));
process.stdout.write(`${archive.file}\n${manifest}\n`);
