import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { generateFakeSysfs, uniformLayout } from '../../../../tools/fake-sysfs/generate.ts';
import type { DeviceHealth } from '../kubelet/health-service.ts';
import { ScannerHealthSource } from './device-health-source.ts';
import { discoverInventory } from './discover.ts';
import { DiscoveryScanner } from './scanner.ts';
import { createSysfs } from './sysfs.ts';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

const T0 = Date.UTC(2026, 0, 1);

function setup() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'health-source-'));
  roots.push(root);
  generateFakeSysfs(root, uniformLayout({ pfs: 1, vfsPerPf: 2 }));
  let now = T0;
  const scanner = new DiscoveryScanner({ scan: () => discoverInventory(createSysfs(root)) });
  const health = new ScannerHealthSource({ scanner, poolName: 'worker-a', heartbeatMs: 10_000, now: () => now });
  const lists: (readonly DeviceHealth[])[] = [];
  health.subscribe((devices) => lists.push(devices));
  return {
    root,
    scanner,
    health,
    lists,
    advance: (ms: number): void => {
      now += ms;
    },
  };
}

describe('ScannerHealthSource', () => {
  it('reports every device the scanner knows, and the complete list again when a PF link goes down', async () => {
    const { root, scanner, health, lists, advance } = setup();
    health.start();
    await scanner.rescan();
    expect(health.current()).toEqual([
      { poolName: 'worker-a', deviceName: '0000-3b-00-2', status: 'Healthy', lastUpdatedTime: T0 / 1000, healthCheckTimeoutSeconds: 30 },
      { poolName: 'worker-a', deviceName: '0000-3b-00-3', status: 'Healthy', lastUpdatedTime: T0 / 1000, healthCheckTimeoutSeconds: 30 },
    ]);

    fs.writeFileSync(path.join(root, 'class/net/enp59s0f0/operstate'), 'down\n');
    advance(5_000);
    health.scanned(true);
    await scanner.rescan();
    const message = 'PhysicalFunctionLinkDown: PF 0000:3b:00.0 link enp59s0f0 is down';
    expect(lists.at(-1)).toEqual([
      { poolName: 'worker-a', deviceName: '0000-3b-00-2', status: 'Unhealthy', lastUpdatedTime: T0 / 1000 + 5, healthCheckTimeoutSeconds: 30, message },
      { poolName: 'worker-a', deviceName: '0000-3b-00-3', status: 'Unhealthy', lastUpdatedTime: T0 / 1000 + 5, healthCheckTimeoutSeconds: 30, message },
    ]);
    health.stop();
  });

  it('repeats the list every heartbeat while scans succeed, and falls silent while they fail', async () => {
    const { scanner, health, lists } = setup();
    await scanner.rescan();
    jest.useFakeTimers();
    try {
      health.start();
      jest.advanceTimersByTime(20_000);
      expect(lists).toHaveLength(2);
      health.scanned(false);
      jest.advanceTimersByTime(20_000);
      expect(lists).toHaveLength(2);
      health.scanned(true);
      jest.advanceTimersByTime(10_000);
      expect(lists).toHaveLength(3);
      health.stop();
      jest.advanceTimersByTime(10_000);
      expect(lists).toHaveLength(3);
    } finally {
      jest.useRealTimers();
    }
  });
});
