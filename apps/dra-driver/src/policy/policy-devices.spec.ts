import { describe, expect, it } from '@jest/globals';
import { DRIVER_API_VERSION, DRIVER_NAME, type ResourceFilter, attributeKeys } from '@sriov-dra/contract';
import type { PhysicalFunction, VirtualFunction } from '../discovery/virtual-function.ts';
import { type InventoryDevice, type PolicyInput, resolvePolicyDevices } from './policy-devices.ts';
import { matchesResourceFilters } from './resource-filter.ts';

const NS = 'dra-driver-sriov';

const pfA: PhysicalFunction = {
  pciAddress: '0000:3b:00.0',
  netdev: 'ens1f0',
  vendor: '15b3',
  deviceID: '1017',
  totalVfs: 8,
  numVfs: 4,
  linkType: 'ethernet',
  linkUp: true,
};
const pfB: PhysicalFunction = { ...pfA, pciAddress: '0000:5e:00.0', netdev: 'ib0', linkType: 'infiniband' };

function vf(pf: PhysicalFunction, index: number, extra: Partial<VirtualFunction> = {}): VirtualFunction {
  const bus = pf.pciAddress.slice(5, 7);
  return { pciAddress: `0000:${bus}:01.${index}`, vfIndex: index, pf, vendor: '15b3', deviceID: '1018', driver: 'mlx5_core', rdmaCapable: false, ...extra };
}

function device(function_: VirtualFunction, attributes: InventoryDevice['attributes'] = {}): InventoryDevice {
  return {
    name: function_.pciAddress.replace(/[:.]/g, '-'),
    vf: function_,
    attributes: { pciAddress: { string: function_.pciAddress }, 'resource.kubernetes.io/pcieRoot': { string: 'pci0000:3a' }, ...attributes },
  };
}

const a0 = device(vf(pfA, 0));
const a1 = device(vf(pfA, 1));
const b0 = device(vf(pfB, 0, { deviceID: '101c', driver: 'vfio-pci' }));
const b1 = device(vf(pfB, 1, { deviceID: '101c', vendor: '8086' }));
const inventory = [a0, a1, b0, b1];

function policy(name: string, spec: Record<string, unknown>, namespace = NS): unknown {
  return { apiVersion: DRIVER_API_VERSION, kind: 'SriovResourcePolicy', metadata: { name, namespace }, spec };
}

function attributes(name: string, labels: Record<string, string>, attrs: Record<string, unknown>, namespace = NS): unknown {
  return { apiVersion: DRIVER_API_VERSION, kind: 'DeviceAttributes', metadata: { name, namespace, labels }, spec: { attributes: attrs } };
}

function resolve(input: Partial<PolicyInput>) {
  return resolvePolicyDevices({
    nodeName: 'worker-a',
    nodeLabels: { 'kubernetes.io/hostname': 'worker-a', pool: 'gpu' },
    namespace: NS,
    policies: [],
    deviceAttributes: [],
    devices: inventory,
    limits: { listAttributes: false },
    ...input,
  });
}

const names = (devices: readonly { name: string }[]) => devices.map((entry) => entry.name);

describe('matchesResourceFilters', () => {
  const target = vf(pfA, 2);
  it.each<[string, ResourceFilter[] | undefined, boolean]>([
    ['no filters match every VF', undefined, true],
    ['an empty filter list matches every VF', [], true],
    ['an empty filter matches every VF', [{}], true],
    ['an empty list in a filter places no constraint', [{ vendors: [], pfNames: [] }], true],
    ['vendors', [{ vendors: ['8086', '15b3'] }], true],
    ['vendors, other', [{ vendors: ['8086'] }], false],
    ['devices is the VF device ID', [{ devices: ['1018'] }], true],
    ['devices is not the PF device ID', [{ devices: ['1017'] }], false],
    ['pciAddresses', [{ pciAddresses: ['0000:3b:01.2'] }], true],
    ['pfNames', [{ pfNames: ['ens1f0'] }], true],
    ['pfNames, other', [{ pfNames: ['ens1f1'] }], false],
    ['pfPciAddresses', [{ pfPciAddresses: ['0000:3b:00.0'] }], true],
    ['drivers', [{ drivers: ['mlx5_core'] }], true],
    ['drivers, other', [{ drivers: ['vfio-pci'] }], false],
    ['linkType eth', [{ linkType: 'eth' }], true],
    ['linkType ethernet', [{ linkType: 'ethernet' }], true],
    ['linkType ib', [{ linkType: 'ib' }], false],
    ['fields are ANDed (all hold)', [{ vendors: ['15b3'], pfNames: ['ens1f0'], linkType: 'ethernet' }], true],
    ['fields are ANDed (one fails)', [{ vendors: ['15b3'], pfNames: ['ens1f1'] }], false],
    ['filters are ORed', [{ pfNames: ['ens1f1'] }, { devices: ['1018'] }], true],
    ['no filter holds', [{ pfNames: ['ens1f1'] }, { devices: ['101c'] }], false],
  ])('%s', (_case, filters, expected) => {
    expect(matchesResourceFilters(filters, target)).toBe(expected);
  });

  it('an infiniband PF matches ib and infiniband', () => {
    expect(matchesResourceFilters([{ linkType: 'ib' }], b0.vf)).toBe(true);
    expect(matchesResourceFilters([{ linkType: 'infiniband' }], b0.vf)).toBe(true);
  });

  it('a PF without a netdev never matches a pfNames list', () => {
    const bare: PhysicalFunction = { ...pfA, netdev: undefined };
    expect(matchesResourceFilters([{ pfNames: ['ens1f0'] }], vf(bare, 0))).toBe(false);
  });
});

describe('resolvePolicyDevices', () => {
  it('publishes nothing without policies', () => {
    expect(resolve({})).toEqual({ eligible: [], withheld: [], problems: [] });
  });

  it('publishes matched devices with their discovered attributes, qualified, and leaves the rest out', () => {
    const result = resolve({ policies: [policy('p', { configs: [{ resourceFilters: [{ pfNames: ['ens1f0'] }] }] })] });
    expect(names(result.eligible)).toEqual([a0.name, a1.name]);
    expect(result.eligible[0]).toEqual({
      name: a0.name,
      attributes: { [`${DRIVER_NAME}/pciAddress`]: { string: '0000:3b:01.0' }, 'resource.kubernetes.io/pcieRoot': { string: 'pci0000:3a' } },
      capacity: {},
      claimedBy: { policy: 'p', configIndex: 0 },
      nadReference: null,
      attributeSources: [],
    });
    expect(result.withheld).toEqual([]);
  });

  it('gives each device to the first matching config, policies in name order', () => {
    const result = resolve({
      policies: [
        policy('b-second', { configs: [{ resourceFilters: [] }] }),
        policy('a-first', { configs: [{ resourceFilters: [{ devices: ['101c'] }] }, { resourceFilters: [{ vendors: ['15b3'] }] }] }),
      ],
    });
    expect(result.eligible.map((entry) => [entry.name, entry.claimedBy])).toEqual([
      [a0.name, { policy: 'a-first', configIndex: 1 }],
      [a1.name, { policy: 'a-first', configIndex: 1 }],
      [b0.name, { policy: 'a-first', configIndex: 0 }],
      [b1.name, { policy: 'a-first', configIndex: 0 }],
    ]);
  });

  it('ignores policies and DeviceAttributes outside the driver namespace', () => {
    const result = resolve({
      policies: [policy('p', { configs: [{}] }, 'elsewhere')],
      deviceAttributes: [attributes('x', {}, { 'example.com/x': { int: 1 } }, 'elsewhere')],
    });
    expect(result).toEqual({ eligible: [], withheld: [], problems: [] });
  });

  it('applies a policy only on nodes its selector selects', () => {
    const selector = (values: string[]) => ({ nodeSelectorTerms: [{ matchExpressions: [{ key: 'pool', operator: 'In', values }] }] });
    expect(names(resolve({ policies: [policy('p', { nodeSelector: selector(['cpu']), configs: [{}] })] }).eligible)).toEqual([]);
    expect(names(resolve({ policies: [policy('p', { nodeSelector: selector(['gpu']), configs: [{}] })] }).eligible)).toHaveLength(4);
  });

  it('merges the selected DeviceAttributes in name order and reports the template reference', () => {
    const result = resolve({
      policies: [policy('p', { configs: [{ deviceAttributesSelector: { matchLabels: { rail: 'a' } }, resourceFilters: [{ pfNames: ['ens1f0'] }] }] })],
      deviceAttributes: [
        attributes('rail-a-2', { rail: 'a' }, { 'example.com/tier': { int: 2 } }),
        attributes('rail-a-1', { rail: 'a' }, { 'example.com/tier': { int: 1 }, netAttachDefName: { string: 'rail-a-net' } }),
        attributes('rail-b', { rail: 'b' }, { 'example.com/tier': { int: 9 } }),
      ],
    });
    expect(result.eligible[0]?.attributes).toMatchObject({ 'example.com/tier': { int: 2 }, [attributeKeys.netAttachDefName]: { string: 'rail-a-net' } });
    expect(result.eligible[0]?.nadReference).toEqual({ name: 'rail-a-net', namespace: null });
    expect(result.eligible[0]?.attributeSources).toEqual(['rail-a-1', 'rail-a-2']);
  });

  it('an empty selector selects objects without labels', () => {
    const unlabeled = {
      apiVersion: DRIVER_API_VERSION,
      kind: 'DeviceAttributes',
      metadata: { name: 'plain', namespace: NS },
      spec: { attributes: { 'example.com/x': { int: 1 } } },
    };
    const result = resolve({ policies: [policy('p', { configs: [{ deviceAttributesSelector: {} }] })], deviceAttributes: [unlabeled] });
    expect(result.eligible[0]?.attributes['example.com/x']).toEqual({ int: 1 });
  });

  it('accepts a selected object with an empty attribute map', () => {
    const result = resolve({
      policies: [policy('p', { configs: [{ deviceAttributesSelector: { matchLabels: { rail: 'a' } } }] })],
      deviceAttributes: [attributes('empty', { rail: 'a' }, {})],
    });
    expect(names(result.eligible)).toHaveLength(4);
  });

  describe('a claimed device whose config is unresolved is withheld, never passed to a later config', () => {
    const fallback = policy('z-fallback', { configs: [{}] });
    const railA = { resourceFilters: [{ pfNames: ['ens1f0'] }] };
    it.each<[string, Record<string, unknown>, unknown[], string]>([
      ['selector selects no object', { ...railA, deviceAttributesSelector: { matchLabels: { rail: 'a' } } }, [], 'InvalidSriovResourcePolicy'],
      [
        'malformed selector',
        { ...railA, deviceAttributesSelector: { matchExpressions: [{ key: 'rail', operator: 'In' }] } },
        [attributes('x', { rail: 'a' }, {})],
        'InvalidSriovResourcePolicy',
      ],
      [
        'conflicting references',
        { ...railA, deviceAttributesSelector: { matchLabels: { rail: 'a' } } },
        [attributes('x', { rail: 'a' }, { netAttachDefName: { string: 'one' } }), attributes('y', { rail: 'a' }, { netAttachDefName: { string: 'two' } })],
        'ConflictingNetAttachDefReference',
      ],
      [
        'namespace-only reference',
        { ...railA, deviceAttributesSelector: { matchLabels: { rail: 'a' } } },
        [attributes('x', { rail: 'a' }, { netAttachDefNamespace: { string: 'infra' } })],
        'InvalidNetAttachDefReference',
      ],
      [
        'selected object is invalid',
        { ...railA, deviceAttributesSelector: { matchLabels: { rail: 'a' } } },
        [attributes('x', { rail: 'a' }, { 'example.com/bad': { int: 1, string: 'two' } })],
        'InvalidDeviceAttributes',
      ],
      [
        'selected object sets a discovery attribute',
        { ...railA, deviceAttributesSelector: { matchLabels: { rail: 'a' } } },
        [attributes('x', { rail: 'a' }, { 'resource.kubernetes.io/pcieRoot': { string: 'forged' } })],
        'ReservedDRAAttribute',
      ],
    ])('%s', (_case, config, objects, code) => {
      const result = resolve({ policies: [policy('a-rail', { configs: [config] }), fallback], deviceAttributes: objects });
      expect(result.withheld.map((entry) => [entry.name, entry.reason, entry.claimedBy, entry.error.code])).toEqual([
        [a0.name, 'UnresolvedDeviceAttributes', { policy: 'a-rail', configIndex: 0 }, code],
        [a1.name, 'UnresolvedDeviceAttributes', { policy: 'a-rail', configIndex: 0 }, code],
      ]);
      expect(result.eligible.map((entry) => [entry.name, entry.claimedBy.policy])).toEqual([
        [b0.name, 'z-fallback'],
        [b1.name, 'z-fallback'],
      ]);
    });
  });

  it('an invalid policy withholds every device still unclaimed when it is reached', () => {
    const result = resolve({
      policies: [
        policy('a-rail', { configs: [{ resourceFilters: [{ pfNames: ['ens1f0'] }] }] }),
        policy('b-broken', { configs: [{ resourceFilters: [{ drivers: ['vfio-pci'] }] }] }),
        policy('c-fallback', { configs: [{}] }),
      ],
    });
    expect(names(result.eligible)).toEqual([a0.name, a1.name]);
    expect(result.withheld.map((entry) => [entry.name, entry.reason, entry.error.code])).toEqual([
      [b0.name, 'InvalidPolicy', 'UnsupportedManagedSelector'],
      [b1.name, 'InvalidPolicy', 'UnsupportedManagedSelector'],
    ]);
    expect(result.problems.map((error) => error.object?.name)).toEqual(['b-broken']);
  });

  it('an invalid policy whose node selector excludes the node is reported but withholds nothing', () => {
    const nodeSelector = { nodeSelectorTerms: [{ matchExpressions: [{ key: 'pool', operator: 'In', values: ['cpu'] }] }] };
    const result = resolve({
      policies: [policy('a-broken', { nodeSelector, configs: [{ resourceFilters: [{ drivers: ['x'] }] }] }), policy('b', { configs: [{}] })],
    });
    expect(names(result.eligible)).toHaveLength(4);
    expect(result.problems).toHaveLength(1);
  });

  it('a malformed node selector withholds every unclaimed device', () => {
    const nodeSelector = { nodeSelectorTerms: [{ matchExpressions: [{ key: 'pool', operator: 'Gt', values: ['x'] }] }] };
    const result = resolve({ policies: [policy('a', { nodeSelector, configs: [{}] }), policy('b', { configs: [{}] })] });
    expect(result.eligible).toEqual([]);
    expect(new Set(result.withheld.map((entry) => entry.reason))).toEqual(new Set(['InvalidPolicy']));
  });

  it('withholds a device over the attribute budget, names it, and still publishes the others', () => {
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`example.com/a${index}`, { int: index }]));
    const crowded = device(vf(pfA, 3), { 'example.com/extra': { bool: true } });
    const result = resolve({
      devices: [...inventory, crowded],
      policies: [policy('p', { configs: [{ deviceAttributesSelector: {}, resourceFilters: [{ pfNames: ['ens1f0'] }] }] })],
      deviceAttributes: [attributes('many', {}, many)],
    });
    expect(names(result.eligible)).toEqual([a0.name, a1.name]);
    expect(result.withheld.map((entry) => [entry.name, entry.reason, entry.error.code])).toEqual([[crowded.name, 'DeviceLimits', 'AttributeBudgetExceeded']]);
    expect(result.withheld[0]?.error.message).toContain(`worker-a/${crowded.name}`);
  });

  it.each<[string, InventoryDevice['attributes'], boolean]>([
    ['a discovered string over 64 bytes', { 'example.com/long': { string: 'é'.repeat(33) } }, false],
    ['a discovered string of exactly 64 bytes', { 'example.com/long': { string: 'é'.repeat(32) } }, true],
    ['a list value without list support', { 'example.com/list': { strings: ['a'] } }, false],
    ['an invalid attribute name', { 'bad name': { int: 1 } }, false],
    ['a bare and a qualified spelling of one name', { vfID: { int: 1 }, [`${DRIVER_NAME}/vfID`]: { int: 1 } }, false],
  ])('checks %s before publishing', (_case, extra, publishable) => {
    const odd = device(vf(pfA, 3), extra);
    const result = resolve({ devices: [a0, odd], policies: [policy('p', { configs: [{}] })] });
    expect(names(result.eligible)).toEqual(publishable ? [a0.name, odd.name] : [a0.name]);
    if (!publishable) expect(result.withheld.map((entry) => [entry.name, entry.reason])).toEqual([[odd.name, 'DeviceLimits']]);
  });

  it('publishes list values when the cluster serves them', () => {
    const listed = device(vf(pfA, 3), { 'example.com/list': { strings: ['a', 'b'] } });
    const result = resolve({ devices: [listed], policies: [policy('p', { configs: [{}] })], limits: { listAttributes: true } });
    expect(names(result.eligible)).toEqual([listed.name]);
  });

  it('is deterministic regardless of input order', () => {
    const input = { policies: [policy('b', { configs: [{}] }), policy('a', { configs: [{ resourceFilters: [{ linkType: 'ib' }] }] })] };
    const forward = resolve({ ...input, devices: inventory });
    const backward = resolve({ ...input, devices: [...inventory].reverse(), policies: [...input.policies].reverse() });
    expect(backward).toEqual(forward);
  });
});

describe('resolvePolicyDevices: what a withheld device and a problem say', () => {
  const railA = { resourceFilters: [{ pfNames: ['ens1f0'] }] };
  const configRef = (name: string, field: string) => ({ kind: 'SriovResourcePolicy', namespace: NS, name, field });

  it('skips objects that are not Kubernetes objects', () => {
    const result = resolve({ policies: [null, 'x', policy('p', { configs: [railA] })], deviceAttributes: [null, { metadata: {} }] });
    expect(names(result.eligible)).toEqual([a0.name, a1.name]);
    expect(result.problems).toEqual([]);
  });

  it('reports no problem for valid objects, and a policy without configs claims nothing', () => {
    const result = resolve({
      policies: [policy('a-empty', {}), policy('b', { configs: [{ ...railA, deviceAttributesSelector: {} }] })],
      deviceAttributes: [attributes('x', {}, { 'example.com/rail': { string: 'a' } })],
    });
    expect(result.problems).toHaveLength(0);
    expect(result.eligible.map((entry) => [entry.name, entry.claimedBy.policy])).toEqual([
      [a0.name, 'b'],
      [a1.name, 'b'],
    ]);
  });

  it('resolves a null selector like an absent one: no custom attributes', () => {
    const result = resolve({ policies: [policy('p', { configs: [{ ...railA, deviceAttributesSelector: null }] })] });
    expect(names(result.eligible)).toEqual([a0.name, a1.name]);
  });

  it('says which config selects nothing, in which namespace, and what to do', () => {
    const result = resolve({
      policies: [
        policy('p', { configs: [{ resourceFilters: [{ pfNames: ['ens9f9'] }] }, { ...railA, deviceAttributesSelector: { matchLabels: { rail: 'a' } } }] }),
      ],
      devices: [a0],
    });
    expect(result.withheld[0]?.error.toJSON()).toEqual({
      code: 'InvalidSriovResourcePolicy',
      detail: `deviceAttributesSelector selects no DeviceAttributes object in ${NS}`,
      object: configRef('p', 'configs[1]'),
      remedy: 'create the DeviceAttributes object the selector names, or fix the selector; until then the devices of this config are not published',
    });
  });

  it('says what is wrong with a malformed selector', () => {
    const selector = { matchExpressions: [{ key: 'rail', operator: 'In' }] };
    const result = resolve({
      policies: [policy('p', { configs: [{ ...railA, deviceAttributesSelector: selector }] })],
      deviceAttributes: [attributes('x', { rail: 'a' }, {})],
    });
    expect(result.withheld[0]?.error).toMatchObject({
      detail: 'deviceAttributesSelector: requirement In on rail has no values',
      object: configRef('p', 'configs[0]'),
    });
  });

  it('reports an invalid DeviceAttributes object as a problem even when no config selects it', () => {
    const result = resolve({ deviceAttributes: [attributes('bad', {}, { 'example.com/bad': { int: 1, string: 'two' } })] });
    expect(result.problems.map((error) => [error.code, error.object?.name])).toEqual([['InvalidDeviceAttributes', 'bad']]);
  });

  it('withholds under an invalid policy whose node selector cannot even be read', () => {
    const result = resolve({ policies: [policy('a-broken', { nodeSelector: { nodeSelectorTerms: 'x' }, configs: [{}] }), policy('b', { configs: [{}] })] });
    expect(result.eligible).toEqual([]);
    expect(result.withheld.map((entry) => [entry.name, entry.reason, entry.claimedBy])).toEqual(
      [a0, a1, b0, b1].map((entry) => [entry.name, 'InvalidPolicy', { policy: 'a-broken' }]),
    );
  });

  it('names the policy whose node selector is malformed, and reports it once', () => {
    const nodeSelector = { nodeSelectorTerms: [{ matchExpressions: [{ key: 'pool', operator: 'Gt', values: ['x'] }] }] };
    const result = resolve({ policies: [policy('a', { nodeSelector, configs: [{}] })], devices: [a0] });
    const expected = {
      code: 'InvalidSriovResourcePolicy',
      detail: 'nodeSelector: requirement Gt on pool needs exactly one integer value',
      object: { kind: 'SriovResourcePolicy', namespace: NS, name: 'a' },
    };
    expect(result.problems.map((error) => error.toJSON())).toEqual([expect.objectContaining(expected)]);
    expect(result.withheld.map((entry) => [entry.claimedBy, entry.error.toJSON()])).toEqual([[{ policy: 'a' }, expect.objectContaining(expected)]]);
  });

  it('lists withheld devices by name whichever policy withheld them', () => {
    const unresolved = (filter: Record<string, unknown>) => ({ resourceFilters: [filter], deviceAttributesSelector: { matchLabels: { rail: 'none' } } });
    const result = resolve({
      policies: [policy('a', { configs: [unresolved({ pfNames: ['ib0'] })] }), policy('b', { configs: [unresolved({ pfNames: ['ens1f0'] })] })],
    });
    expect(names(result.withheld)).toEqual([a0.name, a1.name, b0.name, b1.name]);
  });

  it('withholds a device whose discovered attributes carry half a template reference, naming the device', () => {
    const half = device(vf(pfA, 3), { [attributeKeys.netAttachDefNamespace]: { string: 'infra' } });
    const result = resolve({ devices: [half], policies: [policy('p', { configs: [{}] })] });
    expect(result.eligible).toEqual([]);
    expect(result.withheld.map((entry) => [entry.reason, entry.error.object])).toEqual([['DeviceLimits', { kind: 'Device', name: `worker-a/${half.name}` }]]);
  });
});
