import { describe, expect, it } from '@jest/globals';
import { DRIVER_NAME } from '@sriov-dra/contract';
import { NODE, SNAPSHOT, VF_A, VF_B, type ClaimShape, claimOf, gpuResult, rejectionOf, vfResult } from '../../test/consumer-fixtures.ts';
import { ownedResults } from './owned-results.ts';

describe('ownedResults', () => {
  it("returns this driver's results in allocation order and leaves other drivers' results alone", () => {
    const claim = claimOf({
      requests: [
        { name: 'vfs', exactly: { deviceClassName: 'sriov-vf', count: 2 } },
        // Another driver's business: admin access, sharing and a pool this node does not publish.
        { name: 'gpu', exactly: { deviceClassName: 'gpu', adminAccess: true } },
      ],
      results: [
        vfResult(VF_B),
        { ...gpuResult(), pool: 'gpu-pool', adminAccess: true, shareID: '0b8f7a8e-3c1d-4a55-9f0e-7d2b6c1e9a02', consumedCapacity: { memory: '8Gi' } },
        vfResult(VF_A),
      ],
    });
    expect(ownedResults(claim, DRIVER_NAME, SNAPSHOT)).toEqual({
      ok: true,
      value: [
        { request: 'vfs', pool: NODE, device: VF_B },
        { request: 'vfs', pool: NODE, device: VF_A },
      ],
    });
  });

  it('returns nothing for a claim without results of this driver', () => {
    expect(ownedResults(claimOf({ results: [gpuResult()] }), DRIVER_NAME, SNAPSHOT)).toEqual({ ok: true, value: [] });
  });

  it('accepts a subrequest result and an empty consumedCapacity', () => {
    const claim = claimOf({
      requests: [{ name: 'vfs', firstAvailable: [{ name: 'fast', deviceClassName: 'sriov-vf' }] }],
      results: [vfResult(VF_A, 'vfs/fast', { consumedCapacity: {} })],
    });
    expect(ownedResults(claim, DRIVER_NAME, SNAPSHOT)).toEqual({ ok: true, value: [{ request: 'vfs/fast', pool: NODE, device: VF_A }] });
  });

  it.each<[string, ClaimShape, RegExp]>([
    [
      'a result with adminAccess',
      { results: [vfResult(VF_A), vfResult(VF_B, 'vfs', { adminAccess: true })] },
      /device worker-a\/0000-3b-00-3 is allocated with adminAccess/,
    ],
    [
      'a result of a request that asks for adminAccess',
      { requests: [{ name: 'vfs', exactly: { deviceClassName: 'sriov-vf', adminAccess: true } }] },
      /is allocated for request vfs, which asks for adminAccess/,
    ],
    [
      'a subrequest result whose parent request asks for adminAccess',
      {
        requests: [{ name: 'vfs', exactly: { deviceClassName: 'sriov-vf', adminAccess: true } }],
        results: [vfResult(VF_A, 'vfs/fast')],
      },
      /for request vfs, which asks for adminAccess/,
    ],
    [
      'a shared result',
      { results: [vfResult(VF_A, 'vfs', { shareID: '0b8f7a8e-3c1d-4a55-9f0e-7d2b6c1e9a03' })] },
      /as a share \(shareID 0b8f7a8e-3c1d-4a55-9f0e-7d2b6c1e9a03\)/,
    ],
    [
      'a result consuming capacity',
      { results: [vfResult(VF_A, 'vfs', { consumedCapacity: { bandwidth: '10G' } })] },
      /as a share consuming capacity bandwidth/,
    ],
  ])('refuses %s as UnsupportedManagedClaimKind', (_, shape, detail) => {
    const error = rejectionOf(ownedResults(claimOf(shape), DRIVER_NAME, SNAPSHOT));
    expect(error.code).toBe('UnsupportedManagedClaimKind');
    expect(error.detail).toMatch(detail);
    expect(error.object).toMatchObject({ kind: 'ResourceClaim', name: 'nics', field: expect.stringMatching(/^status\.allocation\.devices\.results\[vfs/) });
  });

  it.each<[string, ClaimShape, RegExp]>([
    [
      'a device of another pool',
      { results: [vfResult(VF_A, 'vfs', { pool: 'worker-b' })] },
      /device worker-b\/0000-3b-00-2 is in pool worker-b, this node publishes pool worker-a/,
    ],
    [
      'a device this node does not publish',
      { results: [vfResult('0000-3b-00-7')] },
      /device worker-a\/0000-3b-00-7 is not among the devices this node publishes/,
    ],
  ])('refuses %s as DeviceNotEligible', (_, shape, detail) => {
    const error = rejectionOf(ownedResults(claimOf(shape), DRIVER_NAME, SNAPSHOT));
    expect(error.code).toBe('DeviceNotEligible');
    expect(error.detail).toMatch(detail);
    expect(error.object).toMatchObject({ kind: 'ResourceClaim', name: 'nics', field: 'status.allocation.devices.results[vfs]' });
  });

  it('returns nothing for a claim that is not allocated', () => {
    expect(ownedResults(claimOf({ results: null }), DRIVER_NAME, SNAPSHOT)).toEqual({ ok: true, value: [] });
  });

  it('lists every capacity a shared result consumes', () => {
    const error = rejectionOf(
      ownedResults(claimOf({ results: [vfResult(VF_A, 'vfs', { consumedCapacity: { bandwidth: '10G', queues: '4' } })] }), DRIVER_NAME, SNAPSHOT),
    );
    expect(error.detail).toMatch(/as a share consuming capacity bandwidth, queues$/);
  });
});
