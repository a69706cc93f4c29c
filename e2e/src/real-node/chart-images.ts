// The images tools/images/build-images.sh built from the repository's Dockerfiles (and the pause and
// workload images it packs), read from its images.json: the archives the node imports and the names the
// chart's values give.
import fs from 'node:fs';
import path from 'node:path';
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

export function imagesDir(): string {
  return process.env['SRIOV_DRA_IMAGES'] ?? path.join(cacheRoot(), 'images');
}

export function chartImages(dir = imagesDir()): ChartImages {
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
