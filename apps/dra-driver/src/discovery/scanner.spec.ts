import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { generateFakeSysfs, uniformLayout } from '../../../../tools/fake-sysfs/generate.ts';
import { startKernelEmulator } from '../../../../tools/fake-sysfs/kernel-emulator.ts';
import { type Inventory, discoverInventory } from './discover.ts';
import { type ScanEvent, type ScannerTimers, DiscoveryScanner } from './scanner.ts';
import { type SysfsResult, found, sysfsFailure } from './sysfs-error.ts';
import { createSysfs } from './sysfs.ts';

const roots: string[] = [];

afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

const EMPTY: Inventory = { physicalFunctions: [], virtualFunctions: [], skipped: [] };

/** Timers that fire only when the test says so. */
function manualTimers(): ScannerTimers & { fire(): void; pending(): number } {
  const timeouts = new Map<number, () => void>();
  let next = 0;
  return {
    setTimeout(callback) {
      timeouts.set(++next, callback);
      return next;
    },
    clearTimeout(handle) {
      timeouts.delete(handle as number);
    },
    setInterval() {
      return 0;
    },
    clearInterval() {
      // Intervals never fire in these tests.
    },
    fire() {
      const callbacks = [...timeouts.values()];
      timeouts.clear();
      for (const callback of callbacks) callback();
    },
    pending: () => timeouts.size,
  };
}

describe('DiscoveryScanner', () => {
  it('tells subscribers about inventory and health changes, and stays quiet when nothing changed', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-'));
    roots.push(root);
    generateFakeSysfs(root, uniformLayout({ pfs: 1, vfsPerPf: 2 }));
    const scanner = new DiscoveryScanner({ scan: () => discoverInventory(createSysfs(root)) });
    const events: ScanEvent[] = [];
    scanner.subscribe((event) => events.push(event));

    await scanner.rescan();
    await scanner.rescan();
    expect(events).toHaveLength(1);

    fs.writeFileSync(path.join(root, 'class/net/enp59s0f0/operstate'), 'down\n');
    await scanner.rescan();
    expect(events).toHaveLength(2);
    const last = events.at(-1);
    expect(last?.kind === 'changed' ? last.diff.healthChanges.map(({ device, current }) => [device, current.status]) : last).toEqual([
      ['0000-3b-00-2', 'Unhealthy'],
      ['0000-3b-00-3', 'Unhealthy'],
    ]);
  });

  it('sees a VF rebound through the kernel emulator as changed', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-'));
    roots.push(root);
    generateFakeSysfs(root, uniformLayout({ pfs: 1, vfsPerPf: 1 }));
    const emulator = startKernelEmulator({ root });
    try {
      const scanner = new DiscoveryScanner({ scan: () => discoverInventory(createSysfs(root)) });
      await scanner.rescan();
      fs.writeFileSync(path.join(root, 'bus/pci/devices/0000:3b:00.2/driver_override'), 'vfio-pci');
      await fs.promises.writeFile(path.join(root, 'bus/pci/drivers/mlx5_core/unbind'), '0000:3b:00.2');
      await fs.promises.writeFile(path.join(root, 'bus/pci/drivers/vfio-pci/bind'), '0000:3b:00.2');
      const event = await scanner.rescan();
      const changed = event.kind === 'changed' ? event.diff.inventoryChanges.changed : [];
      expect(changed.map(({ pciAddress, driver, netdev, rdmaCapable }) => ({ pciAddress, driver, netdev, rdmaCapable }))).toEqual([
        { pciAddress: '0000:3b:00.2', driver: 'vfio-pci', netdev: undefined, rdmaCapable: false },
      ]);
    } finally {
      await emulator.stop();
    }
  });

  it('reports a failed scan and keeps the last good state', async () => {
    let result: SysfsResult<Inventory> = found(EMPTY);
    const scanner = new DiscoveryScanner({ scan: () => Promise.resolve(result) });
    await scanner.rescan();
    const before = scanner.state;
    result = sysfsFailure('SysfsUnreadable', '/sys/bus/pci/devices', 'cannot be read (EACCES)');
    const events: ScanEvent[] = [];
    scanner.subscribe((event) => events.push(event));
    await scanner.rescan();
    expect(events.map((event) => (event.kind === 'failed' ? event.error.code : event.kind))).toEqual(['SysfsUnreadable']);
    expect(scanner.state).toBe(before);
  });

  it('never overlaps scans: requests during a scan share one more scan after it', async () => {
    const releases: (() => void)[] = [];
    let scans = 0;
    const scanner = new DiscoveryScanner({
      scan: () => {
        scans++;
        return new Promise((resolve) =>
          releases.push(() => {
            resolve(found(EMPTY));
          }),
        );
      },
    });
    const first = scanner.rescan();
    const second = scanner.rescan();
    const third = scanner.rescan();
    expect(second).toBe(third);
    expect(scans).toBe(1);
    releases.shift()?.();
    await first;
    await Promise.resolve();
    expect(scans).toBe(2);
    releases.shift()?.();
    await Promise.all([second, third]);
    expect(scans).toBe(2);
  });

  it('debounces change notifications into one rescan', async () => {
    const timers = manualTimers();
    let scans = 0;
    const scanner = new DiscoveryScanner({
      scan: () => {
        scans++;
        return Promise.resolve(found(EMPTY));
      },
      timers,
    });
    scanner.notifyChange();
    scanner.notifyChange();
    scanner.notifyChange();
    expect(timers.pending()).toBe(1);
    expect(scans).toBe(0);
    timers.fire();
    await scanner.rescan();
    expect(scans).toBe(2);
  });

  it('starts watching on start and stops on stop', () => {
    const timers = manualTimers();
    let notify: (() => void) | undefined;
    let stopped = false;
    const scanner = new DiscoveryScanner({
      scan: () => Promise.resolve(found(EMPTY)),
      timers,
      watch: (onChange) => {
        notify = onChange;
        return () => {
          stopped = true;
        };
      },
    });
    scanner.start();
    notify?.();
    expect(timers.pending()).toBe(1);
    scanner.stop();
    expect(timers.pending()).toBe(0);
    expect(stopped).toBe(true);
  });
});
