import { readFile, readdir, readlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { isPciAddress } from '@sriov-dra/contract';
import { HostOperationError, describeCause } from './host-operation-error.ts';

/** VfConfig.driver: keep whatever is bound. */
export const KEEP_DRIVER = '';
/** VfConfig.driver: the driver the kernel picks by itself when the function is probed without an override. */
export const DEFAULT_DRIVER = 'default';

/** Drivers that hand the function to user space; the kernel never picks them without an override. */
const USERSPACE_IO_DRIVERS: ReadonlySet<string> = new Set(['vfio-pci', 'uio_pci_generic', 'igb_uio']);

export function isUserspaceIoDriver(driver: string): boolean {
  return USERSPACE_IO_DRIVERS.has(driver);
}

export interface DriverBindingOptions {
  /** Where sysfs is mounted. */
  readonly sysfsRoot?: string;
  /** How long to wait for the kernel to report the outcome of a bind, unbind or probe. */
  readonly settleTimeoutMs?: number;
}

/** The kernel binding of one function before and after prepare; null means no driver bound. */
export interface DriverChange {
  readonly originalDriver: string | null;
  readonly preparedDriver: string | null;
}

/**
 * Rebinds PCI functions through sysfs in the order the kernel documents for driver_override: set the
 * override, unbind from the current driver, bind (or probe), clear the override. The override is set
 * before the unbind so nothing else (udev, a hotplug probe) can claim the function while it is unbound.
 * Every step first reads the current state, so running it again after a crash converges instead of
 * failing on a half-done rebind.
 */
export class DriverBinder {
  private readonly root: string;
  private readonly settleTimeoutMs: number;

  constructor(options: DriverBindingOptions = {}) {
    this.root = options.sysfsRoot ?? '/sys';
    this.settleTimeoutMs = options.settleTimeoutMs ?? 5000;
  }

  async currentDriver(pciAddress: string): Promise<string | null> {
    const link = join(this.devicePath(pciAddress), 'driver');
    try {
      return basename(await readlink(link));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new HostOperationError('DriverBindingFailed', pciAddress, link, `cannot read the bound driver: ${describeCause(error)}`, error);
    }
  }

  /** The network interfaces the bound driver exposes for the function (its `net/` entries); none when unbound. */
  async netdevs(pciAddress: string): Promise<string[]> {
    const dir = join(this.devicePath(pciAddress), 'net');
    try {
      return (await readdir(dir)).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new HostOperationError('DriverBindingFailed', pciAddress, dir, `cannot list the network interfaces: ${describeCause(error)}`, error);
    }
  }

  /**
   * Brings the function to the driver a VfConfig asks for: "" keeps the current binding, "default" lets
   * the kernel choose, any other value is a driver name. `verify`, when given, checks the binding the
   * function ended up with. When a step or the verification fails, the original binding is put back
   * before the error is thrown.
   */
  async ensureDriver(pciAddress: string, wanted: string, verify?: (preparedDriver: string | null) => Promise<void>): Promise<DriverChange> {
    const originalDriver = await this.currentDriver(pciAddress);
    try {
      const preparedDriver =
        wanted === KEEP_DRIVER
          ? originalDriver
          : wanted === DEFAULT_DRIVER
            ? await this.bindDefault(pciAddress, originalDriver)
            : await this.bindNamed(pciAddress, originalDriver, wanted);
      await verify?.(preparedDriver);
      return { originalDriver, preparedDriver };
    } catch (error) {
      await this.restoreDriver(pciAddress, originalDriver).catch((restoreError: unknown) => {
        // The first failure is the one to fix; the restore failure is reported alongside it.
        const path = error instanceof HostOperationError ? error.path : this.devicePath(pciAddress);
        const detail = `${describeCause(error)}; restoring ${originalDriver ?? 'the unbound state'} failed too: ${describeCause(restoreError)}`;
        throw new HostOperationError('DriverBindingFailed', pciAddress, path, detail, error);
      });
      throw error;
    }
  }

  /** Puts back the binding recorded before prepare (null: leave the function unbound). Idempotent. */
  async restoreDriver(pciAddress: string, originalDriver: string | null): Promise<void> {
    const current = await this.currentDriver(pciAddress);
    if (originalDriver !== null) {
      await this.bindNamed(pciAddress, current, originalDriver);
      return;
    }
    await this.clearOverride(pciAddress);
    if (current !== null) await this.unbind(pciAddress, current);
  }

  private async bindNamed(pciAddress: string, current: string | null, wanted: string): Promise<string> {
    if (current !== wanted) {
      await this.write(pciAddress, join(this.devicePath(pciAddress), 'driver_override'), wanted);
      if (current !== null) await this.unbind(pciAddress, current);
      await this.write(pciAddress, join(this.root, 'bus/pci/drivers', wanted, 'bind'), pciAddress);
      await this.settle(pciAddress, (driver) => driver === wanted, `did not bind to ${wanted}`);
    }
    // Also after a crash between bind and this step: a stale override would steer a later probe.
    await this.clearOverride(pciAddress);
    return wanted;
  }

  private async bindDefault(pciAddress: string, current: string | null): Promise<string> {
    await this.clearOverride(pciAddress);
    if (current !== null && !USERSPACE_IO_DRIVERS.has(current)) return current;
    if (current !== null) await this.unbind(pciAddress, current);
    await this.write(pciAddress, join(this.root, 'bus/pci/drivers_probe'), pciAddress);
    const bound = await this.settle(pciAddress, (driver) => driver !== null, 'was probed but no kernel driver claimed it');
    if (bound === null || USERSPACE_IO_DRIVERS.has(bound)) {
      throw new HostOperationError(
        'DriverBindingFailed',
        pciAddress,
        join(this.root, 'bus/pci/drivers_probe'),
        `was probed and bound to ${String(bound)}, not a kernel driver`,
      );
    }
    return bound;
  }

  private async unbind(pciAddress: string, driver: string): Promise<void> {
    await this.write(pciAddress, join(this.root, 'bus/pci/drivers', driver, 'unbind'), pciAddress);
    await this.settle(pciAddress, (bound) => bound === null, `did not unbind from ${driver}`);
  }

  private async clearOverride(pciAddress: string): Promise<void> {
    const path = join(this.devicePath(pciAddress), 'driver_override');
    let value: string;
    try {
      value = (await readFile(path, 'utf8')).trim();
    } catch (error) {
      throw new HostOperationError('DriverBindingFailed', pciAddress, path, `cannot read driver_override: ${describeCause(error)}`, error);
    }
    // The kernel shows an unset override as "(null)"; a lone newline clears it.
    if (value !== '' && value !== '(null)') await this.write(pciAddress, path, '\n');
  }

  /**
   * Waits for the kernel to report the outcome. A sysfs write returns before an asynchronously probing
   * driver has finished, so the result is observed rather than assumed; a rejected write shows up here too.
   */
  private async settle(pciAddress: string, done: (driver: string | null) => boolean, failure: string): Promise<string | null> {
    const deadline = Date.now() + this.settleTimeoutMs;
    for (;;) {
      const driver = await this.currentDriver(pciAddress);
      if (done(driver)) return driver;
      if (Date.now() >= deadline) {
        throw new HostOperationError('DriverBindingFailed', pciAddress, join(this.devicePath(pciAddress), 'driver'), `${failure} (bound: ${driver ?? 'none'})`);
      }
      await delay(5);
    }
  }

  private async write(pciAddress: string, path: string, value: string): Promise<void> {
    try {
      await writeFile(path, value);
    } catch (error) {
      throw new HostOperationError('DriverBindingFailed', pciAddress, path, `cannot write ${JSON.stringify(value)}: ${describeCause(error)}`, error);
    }
  }

  private devicePath(pciAddress: string): string {
    // The address becomes part of a path under /sys; only the canonical form can be trusted there.
    if (!isPciAddress(pciAddress)) throw new HostOperationError('DriverBindingFailed', pciAddress, this.root, 'is not a canonical PCI address');
    return join(this.root, 'bus/pci/devices', pciAddress);
  }
}
