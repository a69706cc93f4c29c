// A Go peer under tools/<name> is built by `tools/control-plane/build-binaries.sh <name>` into the shared cache
// outside the repository, with a stamp naming the hash of its sources; a binary built from other sources is
// refused, so a test never talks to a peer older than the code beside it.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheRoot } from './binaries.ts';

/** What to run to build the peer of tools/<name>. */
export function rebuildHint(name: string): string {
  return `run \`tools/control-plane/build-binaries.sh ${name}\` (or \`npm run binaries\`)`;
}

/** The hash build-binaries.sh records: go.mod, go.sum, then the .go files in byte order. */
function sourceHash(sourceDir: string): string {
  const goFiles = readdirSync(sourceDir)
    .filter((file) => file.endsWith('.go'))
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum', ...goFiles]) hash.update(readFileSync(join(sourceDir, file)));
  return hash.digest('hex');
}

/** The path of the binary built from tools/<name>, checked against its sources; throws with the rebuild command. */
export function stampedGoPeer(name: string, binary: string): string {
  const sourceDir = fileURLToPath(new URL(`../../../../tools/${name}/`, import.meta.url));
  const dir = join(cacheRoot(), name);
  const path = join(dir, 'bin', binary);
  const stamp = join(dir, 'stamp');
  if (!existsSync(path) || !existsSync(stamp)) throw new Error(`${path} is not built: ${rebuildHint(name)}`);
  if (
    !readFileSync(stamp, 'utf8')
      .split('\n')
      .includes(`sources=${sourceHash(sourceDir)}`)
  ) {
    throw new Error(`${path} was built from other sources than tools/${name}: ${rebuildHint(name)}`);
  }
  return path;
}
