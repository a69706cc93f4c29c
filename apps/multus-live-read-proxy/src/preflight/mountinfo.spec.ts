import { describe, expect, it } from '@jest/globals';
import { mountOf, parseMountInfo } from './mountinfo.ts';

const MOUNTINFO = [
  '22 1 252:1 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard',
  '25 22 0:21 / /dev/shm rw,nosuid,nodev shared:3 - tmpfs tmpfs rw,size=65536k',
  '31 22 0:27 / /var/lib/cni rw,relatime - tmpfs tmpfs rw',
  '32 31 252:2 / /var/lib/cni/multus ro,relatime master:4 - xfs /dev/vdb rw',
  '33 22 252:3 /data /mnt/with\\040space rw - ext4 /dev/vdc rw',
  'garbage line',
].join('\n');

describe('parseMountInfo and mountOf', () => {
  const mounts = parseMountInfo(MOUNTINFO);

  it('reads mount point, type and options, with optional fields and octal escapes', () => {
    expect(mounts).toEqual([
      { mountPoint: '/', fsType: 'ext4', options: ['rw', 'relatime'] },
      { mountPoint: '/dev/shm', fsType: 'tmpfs', options: ['rw', 'nosuid', 'nodev'] },
      { mountPoint: '/var/lib/cni', fsType: 'tmpfs', options: ['rw', 'relatime'] },
      { mountPoint: '/var/lib/cni/multus', fsType: 'xfs', options: ['ro', 'relatime'] },
      { mountPoint: '/mnt/with space', fsType: 'ext4', options: ['rw'] },
    ]);
  });

  it.each([
    ['/var/lib/cni/multus/c1', '/var/lib/cni/multus', 'xfs'],
    ['/var/lib/cni/results', '/var/lib/cni', 'tmpfs'],
    ['/var/lib/cnix', '/', 'ext4'],
    ['/dev/shm', '/dev/shm', 'tmpfs'],
    ['/mnt/with space/x', '/mnt/with space', 'ext4'],
  ])('puts %s on the mount at %s (%s)', (path, mountPoint, fsType) => {
    expect(mountOf(mounts, path)).toMatchObject({ mountPoint, fsType });
  });
});
