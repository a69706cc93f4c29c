import { readFile, readlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { isPciAddress } from '@sriov-dra/contract';
import { HostOperationError, describeCause } from './host-operation-error.ts';

/** The character device through which a container drives a VF bound to vfio-pci. */
export interface VfioDevice {
  /** `/dev/vfio/<group>`: where the workload looks for it. */
  readonly containerPath: string;
  /** The node's device file; `/dev/vfio/noiommu-<group>` when VFIO runs without an IOMMU (a VM). */
  readonly hostPath: string;
}

export const VFIO_CONTAINER_DEVICE = '/dev/vfio/vfio';

export async function readVfioDevice(pciAddress: string, sysfsRoot = '/sys'): Promise<VfioDevice> {
  if (!isPciAddress(pciAddress)) throw new HostOperationError('VfioGroupUnavailable', pciAddress, sysfsRoot, 'is not a canonical PCI address');
  const groupLink = join(sysfsRoot, 'bus/pci/devices', pciAddress, 'iommu_group');
  let group: string;
  try {
    group = basename(await readlink(groupLink));
  } catch (error) {
    throw new HostOperationError('VfioGroupUnavailable', pciAddress, groupLink, `has no IOMMU group: ${describeCause(error)}`, error);
  }
  // Only no-IOMMU groups have a name file on most kernels; its absence means a real IOMMU.
  const name = await readFile(join(groupLink, 'name'), 'utf8').then(
    (text) => text.trim(),
    () => '',
  );
  const containerPath = `/dev/vfio/${group}`;
  return { containerPath, hostPath: name === 'vfio-noiommu' ? `/dev/vfio/noiommu-${group}` : containerPath };
}
