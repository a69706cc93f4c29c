import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { type AllocatedDevice, assignInterfaceNames } from './interface-names.ts';

const dev = (claimAlias: string, request: string, device: string, extra: Partial<AllocatedDevice> = {}): AllocatedDevice => ({
  claimAlias,
  claimUID: `uid-${claimAlias}`,
  request,
  pool: 'worker-a',
  device,
  requestDeviceCount: 1,
  ...extra,
});

function names(devices: AllocatedDevice[]): string[] {
  const result = assignInterfaceNames(devices);
  if (!result.ok) throw result.error;
  return result.value.map((assigned) => `${assigned.device}=${assigned.interface}`);
}

const OBJECT = { kind: 'Pod', namespace: 'ai-workloads', name: 'gpu-pairs' };

function rejection(devices: AllocatedDevice[]): { code: string; detail: string } | 'ok' {
  const result = assignInterfaceNames(devices, { object: OBJECT });
  if (result.ok) return 'ok';
  // Every rejection names the Pod it is about.
  expect(result.error.object).toEqual(OBJECT);
  return { code: result.error.code, detail: result.error.detail };
}

describe('assignInterfaceNames', () => {
  it('orders by claim alias, request, pool and device', () => {
    expect(names([dev('pairs', 'nic-1', 'vf-b'), dev('pairs', 'nic-0', 'vf-c'), dev('extra', 'nic', 'vf-a')])).toEqual(['vf-a=dra0', 'vf-c=dra1', 'vf-b=dra2']);
  });

  it('does not depend on input order', () => {
    const devices = [dev('a', 'r0', 'd3'), dev('a', 'r1', 'd1'), dev('b', 'r0', 'd2'), dev('c', 'r', 'd0')];
    fc.assert(
      fc.property(fc.shuffledSubarray(devices, { minLength: devices.length }), (shuffled) => {
        expect(names(shuffled)).toEqual(names(devices));
      }),
      { numRuns: 200 },
    );
  });

  it('sorts every device of a claim referenced through several aliases under its lexically first alias, in any input order', () => {
    // Claim uid-u is referenced as "z-pairs" and "a-pairs"; not every device is listed under both.
    const u = { claimUID: 'uid-u' };
    const devices = [
      dev('z-pairs', 'nic', 'vf-1', u),
      dev('a-pairs', 'nic', 'vf-2', u),
      dev('m-extra', 'nic', 'vf-0'),
      dev('z-pairs', 'nic-0', 'vf-3', u),
      dev('a-pairs', 'nic-1', 'vf-3', u),
    ];
    fc.assert(
      fc.property(fc.shuffledSubarray(devices, { minLength: devices.length }), (shuffled) => {
        expect(names(shuffled)).toEqual(['vf-1=dra0', 'vf-2=dra1', 'vf-3=dra2', 'vf-0=dra3']);
      }),
      { numRuns: 200 },
    );
  });

  it('reports the same rejection whatever order the devices come in', () => {
    const devices = [
      dev('x', 'r', 'd0', { claimUID: 'uid-a', explicitName: 'net1', requestDeviceCount: 2 }),
      dev('a', 'r', 'd0', { explicitName: 'net1', requestDeviceCount: 2 }),
      dev('b', 'r', 'd1'),
      dev('c', 'r', 'd1'),
      dev('d', 'r', 'd2', { explicitName: 'eth0' }),
    ];
    fc.assert(
      fc.property(fc.shuffledSubarray(devices, { minLength: devices.length }), (shuffled) => {
        const result = assignInterfaceNames(shuffled);
        expect(result.ok ? 'ok' : result.error.detail).toBe('request r of claim a allocates 2 devices but names one interface "net1"');
      }),
      { numRuns: 200 },
    );
  });

  it('collapses one device seen through several requests or aliases, keeping the first', () => {
    expect(names([dev('b', 'r', 'd0'), dev('a', 'r', 'd0', { claimUID: 'uid-b' }), dev('a', 'q', 'd1', { claimUID: 'uid-a' })])).toEqual([
      'd1=dra0',
      'd0=dra1',
    ]);
  });

  it('uses valid explicit names', () => {
    expect(names([dev('a', 'r0', 'd0', { explicitName: 'rail0' }), dev('a', 'r1', 'd1')])).toEqual(['d0=rail0', 'd1=dra1']);
  });

  it('gives each device of a multi-device request its own default name', () => {
    expect(names([dev('a', 'r', 'd0', { requestDeviceCount: 2 }), dev('a', 'r', 'd1', { requestDeviceCount: 2 })])).toEqual(['d0=dra0', 'd1=dra1']);
  });

  it('keeps a primary interface other than eth0 free and allows eth0 then', () => {
    const devices = [dev('a', 'r0', 'd0', { explicitName: 'eth0' }), dev('a', 'r1', 'd1', { explicitName: 'net0' })];
    const result = assignInterfaceNames(devices, { primaryInterface: 'net0', object: OBJECT });
    expect(result.ok ? 'ok' : result.error.detail).toBe('net0 for device worker-a/d1 is the primary interface');
    expect(names([dev('a', 'r0', 'd0', { explicitName: 'eth1' })])).toEqual(['d0=eth1']);
  });

  it.each([
    [
      'an explicit name on a count-2 request',
      [dev('a', 'r', 'd0', { explicitName: 'net1', requestDeviceCount: 2 })],
      'AmbiguousInterfaceName',
      'request r of claim a allocates 2 devices but names one interface "net1"',
    ],
    [
      'a repeated explicit name',
      [dev('a', 'r0', 'd0', { explicitName: 'net1' }), dev('a', 'r1', 'd1', { explicitName: 'net1' })],
      'DuplicateInterfaceName',
      'devices worker-a/d0 and worker-a/d1 both get interface net1',
    ],
    [
      'an explicit name colliding with a default one',
      [dev('a', 'r0', 'd0', { explicitName: 'dra1' }), dev('a', 'r1', 'd1')],
      'DuplicateInterfaceName',
      'devices worker-a/d0 and worker-a/d1 both get interface dra1',
    ],
    ['the primary interface', [dev('a', 'r', 'd0', { explicitName: 'eth0' })], 'InvalidInterfaceName', 'eth0 for device worker-a/d0 is the primary interface'],
    [
      'a 16-byte name',
      [dev('a', 'r', 'd0', { explicitName: 'a'.repeat(16) })],
      'InvalidInterfaceName',
      `"${'a'.repeat(16)}" for device worker-a/d0 is not a Linux interface name`,
    ],
    [
      'a name with a slash',
      [dev('a', 'r', 'd0', { explicitName: 'a/b' })],
      'InvalidInterfaceName',
      '"a/b" for device worker-a/d0 is not a Linux interface name',
    ],
    [
      'one device in two claims',
      [dev('a', 'r', 'd0'), dev('b', 'r', 'd0')],
      'ConflictingDeviceRequirements',
      'device worker-a/d0 is allocated by two claims (a, b)',
    ],
    [
      'one device asked for two names',
      [dev('a', 'r0', 'd0', { explicitName: 'x' }), dev('a', 'r1', 'd0', { explicitName: 'y' })],
      'ConflictingDeviceRequirements',
      'requests r0 and r1 ask device worker-a/d0 for different interface names',
    ],
  ])('rejects %s', (_case, devices, code, detail) => {
    expect(rejection(devices)).toEqual({ code, detail });
  });
});
