import { join } from 'node:path';
import { removeAbandonedTemporaries, removeFileDurably, writeFileAtomic } from '@sriov-dra/durable-files';
import { type CdiVf, cdiDeviceID, cdiSpecFileName, claimCdiSpec, isCdiSpecFileName, podCdiSpec } from './cdi-spec.ts';
import { HostOperationError, describeCause } from './host-operation-error.ts';

/**
 * The driver's spec files in the CDI directory the container runtime reads. Files are replaced
 * atomically, so the runtime never parses a half-written spec, and removal of an absent file succeeds, so
 * unprepare can be retried.
 */
export class CdiSpecDirectory {
  readonly root: string;

  constructor(root = '/var/run/cdi') {
    this.root = root;
  }

  /** Writes the claim's spec and returns the CDI device IDs for the kubelet, one per VF in order. */
  async writeClaimSpec(claimUID: string, vfs: readonly CdiVf[]): Promise<string[]> {
    const spec = claimCdiSpec(claimUID, vfs);
    // A CDI spec must list at least one device; a claim without VFs of this driver has no spec.
    if (spec.devices.length === 0) {
      await this.removeSpec(claimUID);
      return [];
    }
    await this.writeSpec(claimUID, JSON.stringify(spec, null, 2));
    return spec.devices.map((device) => cdiDeviceID(device.name));
  }

  removeClaimSpec(claimUID: string): Promise<void> {
    return this.removeSpec(claimUID);
  }

  /**
   * Makes the Pod-wide spec list exactly these addresses: written while any claim of the Pod is still
   * prepared, removed with the last one. Returns its CDI device ID, or null once it is removed.
   */
  async syncPodSpec(podUID: string, pciAddresses: readonly string[]): Promise<string | null> {
    if (pciAddresses.length === 0) {
      await this.removeSpec(podUID);
      return null;
    }
    const spec = podCdiSpec(podUID, pciAddresses);
    await this.writeSpec(podUID, JSON.stringify(spec, null, 2));
    return cdiDeviceID(podUID);
  }

  /**
   * Removes the temporary files of spec writes a killed process left behind, and returns their names.
   * Runs at startup, before this process writes a spec; other drivers' files are left alone.
   */
  removeAbandonedWrites(): Promise<string[]> {
    return removeAbandonedTemporaries(this.root, isCdiSpecFileName);
  }

  specPath(uid: string): string {
    return join(this.root, cdiSpecFileName(uid));
  }

  private async writeSpec(uid: string, text: string): Promise<void> {
    const path = this.specPath(uid);
    try {
      await writeFileAtomic(path, `${text}\n`);
    } catch (error) {
      throw new HostOperationError('CdiSpecFailed', uid, path, `cannot write the CDI spec: ${describeCause(error)}`, error);
    }
  }

  private async removeSpec(uid: string): Promise<void> {
    const path = this.specPath(uid);
    try {
      await removeFileDurably(path);
    } catch (error) {
      throw new HostOperationError('CdiSpecFailed', uid, path, `cannot remove the CDI spec: ${describeCause(error)}`, error);
    }
  }
}
