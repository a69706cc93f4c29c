import { describe, expect, it } from '@jest/globals';
import { type AllocatedDeviceStatus, desiredDeviceStatus, deviceStatusEntries } from './claim-device-status.ts';

const OURS = 'sriovnetwork.k8snetworkplumbingwg.io';
const GPU = 'gpu.example.com';

const entry = (driver: string, device: string, extra: Record<string, unknown> = {}): AllocatedDeviceStatus => ({ driver, pool: 'worker-a', device, ...extra });

describe('deviceStatusEntries', () => {
  it('names the driver, pool and device of every prepared device, and the share ID when there is one', () => {
    expect(
      deviceStatusEntries(OURS, [
        { requestNames: ['vfs'], poolName: 'worker-a', deviceName: '0000-3b-00-2', cdiDeviceIds: [] },
        { requestNames: ['vfs'], poolName: 'worker-a', deviceName: '0000-3b-00-3', cdiDeviceIds: [], shareId: 'share-1' },
      ]),
    ).toEqual([
      { driver: OURS, pool: 'worker-a', device: '0000-3b-00-2' },
      { driver: OURS, pool: 'worker-a', device: '0000-3b-00-3', shareID: 'share-1' },
    ]);
  });
});

describe('desiredDeviceStatus', () => {
  it('adds our entries after those of other drivers', () => {
    const gpu = entry(GPU, 'gpu-0', { data: { uuid: 'GPU-1' } });
    expect(desiredDeviceStatus([gpu], OURS, [entry(OURS, 'vf-0'), entry(OURS, 'vf-1')])).toEqual([gpu, entry(OURS, 'vf-0'), entry(OURS, 'vf-1')]);
  });

  it('writes nothing when our entries are already there, whatever the server added to them', () => {
    const current = [entry(OURS, 'vf-0', { conditions: null }), entry(GPU, 'gpu-0'), entry(OURS, 'vf-1', { conditions: null })];
    expect(desiredDeviceStatus(current, OURS, [entry(OURS, 'vf-0'), entry(OURS, 'vf-1')])).toBeUndefined();
  });

  it('drops our stale entries and keeps the other drivers\u2019 in place', () => {
    const current = [entry(OURS, 'vf-9'), entry(GPU, 'gpu-0'), entry(OURS, 'vf-0', { conditions: null })];
    expect(desiredDeviceStatus(current, OURS, [entry(OURS, 'vf-0')])).toEqual([entry(GPU, 'gpu-0'), entry(OURS, 'vf-0', { conditions: null })]);
  });

  it('tells shared allocations of one device apart by share ID', () => {
    const current = [entry(OURS, 'vf-0', { shareID: 'a' })];
    expect(desiredDeviceStatus(current, OURS, [entry(OURS, 'vf-0', { shareID: 'b' })])).toEqual([entry(OURS, 'vf-0', { shareID: 'b' })]);
  });
});
