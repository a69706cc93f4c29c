// The images tools/images/build-images.sh built from the repository's Dockerfiles (and the pause and
// workload images it packs), read from its images.json: the archives the node imports and the names the
// chart's values give. Only archives the script judges up to date with the checkout are handed out: a
// scenario must not run images built from older sources.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheRoot } from '@sriov-dra/k8s/testing';
import { z } from 'zod';

type AppName = 'dra-driver' | 'multus-live-read-proxy' | 'node-policy-operator';

const entrySchema = z.object({ archive: z.string(), image: z.string(), size: z.number() });
const manifestSchema = z.record(z.string(), entrySchema);

export interface ImageArchive {
  readonly archive: string;
  /** `<repository>:<tag>` as containerd names it after the import. */
  readonly image: string;
  readonly repository: string;
  readonly tag: string;
}

export interface ChartImages {
  readonly pause: ImageArchive;
  readonly busybox: ImageArchive;
  readonly apps: Readonly<Record<AppName, ImageArchive>>;
}

const BUILD_IMAGES = fileURLToPath(new URL('../../../tools/images/build-images.sh', import.meta.url));
const VERDICT = /^(\S+)\.tar: (up to date|out of date|missing)$/;

/**
 * Refuses, in one line naming each archive and the command rebuilding them, unless `build-images.sh --check`
 * (the stamps a build compares, computed without building) finds every archive in `dir` up to date.
 */
export function assertImagesCurrent(dir: string): void {
  const check = spawnSync(BUILD_IMAGES, ['--check', dir], { encoding: 'utf8', timeout: 120_000 });
  if (check.status === 0) return;
  const verdicts = check.stdout
    .split('\n')
    .map((line) => VERDICT.exec(line))
    .filter((match) => match !== null);
  const stale = verdicts.filter(([, , state]) => state !== 'up to date').map(([, name, state]) => `${name ?? ''} (${state ?? ''})`);
  if (check.status === 1 && stale.length > 0) {
    throw new Error(`images in ${dir} not up to date with the checkout: ${stale.join(', ')}; rebuild with: ${BUILD_IMAGES} ${dir}`);
  }
  const reason = check.error?.message ?? (check.stderr.trim().split('\n').pop() || `exit status ${String(check.status)}`);
  throw new Error(`cannot check the images in ${dir} (${BUILD_IMAGES} --check): ${reason}`);
}

export function imagesDir(): string {
  return process.env['SRIOV_DRA_IMAGES'] ?? path.join(cacheRoot(), 'images');
}

export function chartImages(dir = imagesDir()): ChartImages {
  assertImagesCurrent(dir);
  const file = path.join(dir, 'images.json');
  if (!fs.existsSync(file)) throw new Error(`no images in ${dir}; build them with: tools/images/build-images.sh`);
  const manifest = manifestSchema.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
  const entry = (name: string): ImageArchive => {
    const found = manifest[name];
    if (found === undefined) throw new Error(`${file} lists no ${name} image; rebuild with: tools/images/build-images.sh`);
    if (!fs.existsSync(found.archive)) throw new Error(`${found.archive} (${name}) is missing; rebuild with: tools/images/build-images.sh`);
    const separator = found.image.lastIndexOf(':');
    return { archive: found.archive, image: found.image, repository: found.image.slice(0, separator), tag: found.image.slice(separator + 1) };
  };
  return {
    pause: entry('pause'),
    busybox: entry('busybox'),
    apps: {
      'dra-driver': entry('dra-driver'),
      'multus-live-read-proxy': entry('multus-live-read-proxy'),
      'node-policy-operator': entry('node-policy-operator'),
    },
  };
}
