import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isHostOperationError } from './host-operation-error.ts';
import { readVfioDevice } from './vfio-device.ts';

let sysfs: string;
const VF = '0000:3b:02.0';

beforeEach(async () => {
  sysfs = await mkdtemp(join(tmpdir(), 'sysfs-'));
  await mkdir(join(sysfs, 'bus/pci/devices', VF), { recursive: true });
  await mkdir(join(sysfs, 'kernel/iommu_groups/42'), { recursive: true });
});

afterEach(async () => {
  await rm(sysfs, { recursive: true, force: true });
});

describe('readVfioDevice', () => {
  it('finds the group device of a VF behind an IOMMU', async () => {
    await symlink('../../../../kernel/iommu_groups/42', join(sysfs, 'bus/pci/devices', VF, 'iommu_group'));
    await expect(readVfioDevice(VF, sysfs)).resolves.toEqual({ containerPath: '/dev/vfio/42', hostPath: '/dev/vfio/42' });
  });

  it('uses the no-IOMMU device file on the node while the container sees the plain group path', async () => {
    await symlink('../../../../kernel/iommu_groups/42', join(sysfs, 'bus/pci/devices', VF, 'iommu_group'));
    await writeFile(join(sysfs, 'kernel/iommu_groups/42/name'), 'vfio-noiommu\n');
    await expect(readVfioDevice(VF, sysfs)).resolves.toEqual({ containerPath: '/dev/vfio/42', hostPath: '/dev/vfio/noiommu-42' });
  });

  it('fails naming the device and the missing link when there is no IOMMU group', async () => {
    const error = await readVfioDevice(VF, sysfs).catch((caught: unknown) => caught);
    expect(isHostOperationError(error) ? [error.code, error.subject, error.path] : error).toEqual([
      'VfioGroupUnavailable',
      VF,
      join(sysfs, 'bus/pci/devices', VF, 'iommu_group'),
    ]);
  });
});
