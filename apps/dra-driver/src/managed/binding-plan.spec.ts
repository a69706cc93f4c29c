import { describe, expect, it } from '@jest/globals';
import { type BindingPlanInput, type ManagedAllocation, planManagedBindings } from './binding-plan.ts';
import type { ManagedBinding } from '../checkpoint/checkpoint-record.ts';
import type { PlannedBinding } from './planned-binding.ts';
import type { SourceTemplate } from './source-template.ts';

// Every identity, rendered configuration and hash below was written out by hand and hashed with
// sha256sum (identities as in libs/contract/IDENTITY.md); none comes from the code under test.

const DRIVER = 'sriovnetwork.k8snetworkplumbingwg.io';
const NODE = { name: 'worker-a', uid: '6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40' };
const POD = { namespace: 'ai-workloads', name: 'trainer-0', uid: '11111111-2222-3333-4444-555555555555' };
const CLAIM_A = { uid: 'a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607', namespace: 'ai-workloads', name: 'trainer-0-nics-a', aliases: ['rail-a'] };
const CLAIM_B = { uid: 'b4e2d3c5-6c7f-4081-9ba2-c3d4e5f60718', namespace: 'ai-workloads', name: 'trainer-0-nics-b', aliases: ['rail-b'] };

/** A conflist without a name: the shadow materializes the source's metadata.name. */
const RAIL_A: SourceTemplate = {
  namespace: 'ai-workloads',
  name: 'rail-a-net',
  uid: '5f0c9a52-3d1e-4b7a-9c08-2e6f4d1b7a93',
  resourceVersion: '4711',
  config: '{"cniVersion":"1.0.0","plugins":[{"type":"sriov","ipam":{"type":"whereabouts","range":"192.0.2.0/24"}},{"type":"tuning","mtu":9000}]}',
};
/** A single plugin with its own name, in another namespace than the Pod. */
const RAIL_B: SourceTemplate = {
  namespace: 'infra',
  name: 'rail-b-net',
  uid: '7a1e3c5b-9d2f-4e60-8b14-3c5d7e9f1a2b',
  resourceVersion: '815',
  config: '{"cniVersion":"1.0.0","name":"infra-rail-b","type":"sriov","vlan":200,"ipam":{"type":"host-local","subnet":"198.51.100.0/24"}}',
};

function allocation(claim: ManagedAllocation['claim'], request: string, device: string, source: SourceTemplate, ifName = ''): ManagedAllocation {
  const pciAddress = `${device.slice(0, 4)}:${device.slice(5, 7)}:${device.slice(8, 10)}.${device.slice(11)}`;
  return { claim, request, driver: DRIVER, pool: 'worker-a', device, pciAddress, ifName, source };
}

/** Claim A: one request for two VFs on rail A. Claim B: two count-one requests on rail B. */
const TWO_BY_TWO: readonly ManagedAllocation[] = [
  allocation(CLAIM_A, 'nics', '0000-03-00-1', RAIL_A),
  allocation(CLAIM_A, 'nics', '0000-03-00-2', RAIL_A),
  allocation(CLAIM_B, 'nic-0', '0000-81-00-1', RAIL_B),
  allocation(CLAIM_B, 'nic-1', '0000-81-00-2', RAIL_B),
];

const input = (allocations: readonly ManagedAllocation[], annotations?: Record<string, string>): BindingPlanInput => ({
  node: NODE,
  pod: annotations === undefined ? POD : { ...POD, annotations },
  allocations,
});

const POD_FIELDS = {
  bindingVersion: 1 as const,
  podUID: POD.uid,
  podNamespace: 'ai-workloads',
  podName: 'trainer-0',
  nodeName: 'worker-a',
  nodeUID: NODE.uid,
  driver: DRIVER,
};
const CLAIM_A_FIELDS = { claimUID: CLAIM_A.uid, claimNamespace: 'ai-workloads', claimName: 'trainer-0-nics-a' };
const CLAIM_B_FIELDS = { claimUID: CLAIM_B.uid, claimNamespace: 'ai-workloads', claimName: 'trainer-0-nics-b' };
const RAIL_A_SOURCE = { namespace: 'ai-workloads', name: 'rail-a-net', uid: '5f0c9a52-3d1e-4b7a-9c08-2e6f4d1b7a93', resourceVersion: '4711' };
const RAIL_B_SOURCE = { namespace: 'infra', name: 'rail-b-net', uid: '7a1e3c5b-9d2f-4e60-8b14-3c5d7e9f1a2b', resourceVersion: '815' };

const EXPECTED: readonly PlannedBinding[] = [
  {
    ...POD_FIELDS,
    ...CLAIM_A_FIELDS,
    attachmentID: '71179501bb6cd083245331b0ff5857fa31e1b3479ee5e9985da63f7c301d31cc',
    pool: 'worker-a',
    device: '0000-03-00-1',
    requestNames: ['nics'],
    pciAddress: '0000:03:00.1',
    interface: 'dra0',
    source: RAIL_A_SOURCE,
    shadow: { namespace: 'ai-workloads', name: 'dra-sriov-71179501bb6cd083245331b0ff5857fa' },
    renderedConfig:
      '{"cniVersion":"1.0.0","name":"rail-a-net","plugins":[{"type":"sriov","ipam":{"type":"whereabouts","range":"192.0.2.0/24"},"deviceID":"0000:03:00.1"},{"type":"tuning","mtu":9000}]}',
    configSHA256: 'd55fe2caddbd9ee7bddf89d5b094568165be065558a85979b9597448c1233528',
  },
  {
    ...POD_FIELDS,
    ...CLAIM_A_FIELDS,
    attachmentID: '8dd60903e917c99a2954bc971df83a01bc1b6a21fa287ae8b3fda29fae5d6132',
    pool: 'worker-a',
    device: '0000-03-00-2',
    requestNames: ['nics'],
    pciAddress: '0000:03:00.2',
    interface: 'dra1',
    source: RAIL_A_SOURCE,
    shadow: { namespace: 'ai-workloads', name: 'dra-sriov-8dd60903e917c99a2954bc971df83a01' },
    renderedConfig:
      '{"cniVersion":"1.0.0","name":"rail-a-net","plugins":[{"type":"sriov","ipam":{"type":"whereabouts","range":"192.0.2.0/24"},"deviceID":"0000:03:00.2"},{"type":"tuning","mtu":9000}]}',
    configSHA256: 'bf98da3166d335f041a65316e5fc6bd4c0518aa02284953445689e9ff2379456',
  },
  {
    ...POD_FIELDS,
    ...CLAIM_B_FIELDS,
    attachmentID: '0d51e451b9bf3a0dd1e94c4af3e05f1a2064cb35441fb85e34f98a30f7543f9a',
    pool: 'worker-a',
    device: '0000-81-00-1',
    requestNames: ['nic-0'],
    pciAddress: '0000:81:00.1',
    interface: 'dra2',
    source: RAIL_B_SOURCE,
    shadow: { namespace: 'ai-workloads', name: 'dra-sriov-0d51e451b9bf3a0dd1e94c4af3e05f1a' },
    renderedConfig:
      '{"cniVersion":"1.0.0","name":"infra-rail-b","type":"sriov","vlan":200,"ipam":{"type":"host-local","subnet":"198.51.100.0/24"},"deviceID":"0000:81:00.1"}',
    configSHA256: 'a61d42c4783267364ace295eb2d9b3882126485a22478a563dd496d32401fe5d',
  },
  {
    ...POD_FIELDS,
    ...CLAIM_B_FIELDS,
    attachmentID: 'd2ccb638658add8f1f3215b5c333489bd5d8433aa8e47686ba5f4395e1d1d11f',
    pool: 'worker-a',
    device: '0000-81-00-2',
    requestNames: ['nic-1'],
    pciAddress: '0000:81:00.2',
    interface: 'dra3',
    source: RAIL_B_SOURCE,
    shadow: { namespace: 'ai-workloads', name: 'dra-sriov-d2ccb638658add8f1f3215b5c333489b' },
    renderedConfig:
      '{"cniVersion":"1.0.0","name":"infra-rail-b","type":"sriov","vlan":200,"ipam":{"type":"host-local","subnet":"198.51.100.0/24"},"deviceID":"0000:81:00.2"}',
    configSHA256: 'ac105db47c944c929d9795efb010cf15989019c704dec1cb04e57c3c6655f3b6',
  },
];

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, index) => permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]));
}

function planned(allocations: readonly ManagedAllocation[], annotations?: Record<string, string>) {
  const plan = planManagedBindings(input(allocations, annotations));
  if (!plan.ok) throw plan.error;
  return plan.value.bindings;
}

function refusal(allocations: readonly ManagedAllocation[], annotations?: Record<string, string>) {
  const plan = planManagedBindings(input(allocations, annotations));
  if (plan.ok) throw new Error('the plan was expected to be refused');
  return plan.error;
}

describe('planManagedBindings', () => {
  it('plans two claims of two VFs each: identity, interfaces across claims, rendered bytes and the record', () => {
    expect(planned(TWO_BY_TWO).map(({ binding }) => binding)).toEqual(EXPECTED);
  });

  it('gives the same plan for every order of the allocations', () => {
    const orders = permutations(TWO_BY_TWO);
    expect(orders).toHaveLength(24);
    for (const order of orders) expect(planned(order).map(({ binding }) => binding)).toEqual(EXPECTED);
  });

  it('builds the shadow NAD each binding will create: in the Pod namespace, owned, protected, with its provenance', () => {
    const [first] = planned(TWO_BY_TWO);
    expect(first?.shadowNad).toEqual({
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: {
        name: 'dra-sriov-71179501bb6cd083245331b0ff5857fa',
        namespace: 'ai-workloads',
        labels: {
          'sriovnetwork.k8snetworkplumbingwg.io/managed-by': 'sriov-dra',
          'sriovnetwork.k8snetworkplumbingwg.io/pod-uid': '11111111-2222-3333-4444-555555555555',
          'sriovnetwork.k8snetworkplumbingwg.io/claim-uid': 'a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607',
          'sriovnetwork.k8snetworkplumbingwg.io/node-uid': '6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40',
        },
        annotations: {
          'sriovnetwork.k8snetworkplumbingwg.io/binding':
            '{"version":1,"attachmentID":"71179501bb6cd083245331b0ff5857fa31e1b3479ee5e9985da63f7c301d31cc","podUID":"11111111-2222-3333-4444-555555555555",' +
            '"claimUID":"a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607","nodeName":"worker-a","nodeUID":"6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40",' +
            '"source":{"namespace":"ai-workloads","name":"rail-a-net","uid":"5f0c9a52-3d1e-4b7a-9c08-2e6f4d1b7a93","resourceVersion":"4711"},' +
            '"pciAddress":"0000:03:00.1","interface":"dra0","configSHA256":"d55fe2caddbd9ee7bddf89d5b094568165be065558a85979b9597448c1233528"}',
        },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'trainer-0', uid: '11111111-2222-3333-4444-555555555555', blockOwnerDeletion: false }],
        finalizers: ['sriovnetwork.k8snetworkplumbingwg.io/attachment-protection'],
      },
      spec: {
        config:
          '{"cniVersion":"1.0.0","name":"rail-a-net","plugins":[{"type":"sriov","ipam":{"type":"whereabouts","range":"192.0.2.0/24"},"deviceID":"0000:03:00.1"},{"type":"tuning","mtu":9000}]}',
      },
    });
  });

  it('orders a claim by the lexically first of its aliases', () => {
    const claimB = { ...CLAIM_B, aliases: ['z-rail', 'a-rail'] };
    const interfaces = planned([
      ...TWO_BY_TWO.slice(0, 2),
      allocation(claimB, 'nic-0', '0000-81-00-1', RAIL_B),
      allocation(claimB, 'nic-1', '0000-81-00-2', RAIL_B),
    ]).map(({ binding }) => `${binding.device}=${binding.interface}`);
    expect(interfaces).toEqual(['0000-81-00-1=dra0', '0000-81-00-2=dra1', '0000-03-00-1=dra2', '0000-03-00-2=dra3']);
  });

  it('uses an explicit VfConfig interface name of a count-one request', () => {
    const allocations = [...TWO_BY_TWO.slice(0, 3), allocation(CLAIM_B, 'nic-1', '0000-81-00-2', RAIL_B, 'rail-b1')];
    expect(planned(allocations).map(({ binding }) => binding.interface)).toEqual(['dra0', 'dra1', 'dra2', 'rail-b1']);
  });

  it('attaches a device allocated for two requests of its claim once, with both request names', () => {
    const bindings = planned([allocation(CLAIM_A, 'primary', '0000-03-00-1', RAIL_A), allocation(CLAIM_A, 'fallback', '0000-03-00-1', RAIL_A)]);
    expect(bindings.map(({ binding }) => [binding.device, binding.interface, binding.requestNames])).toEqual([
      ['0000-03-00-1', 'dra0', ['fallback', 'primary']],
    ]);
  });

  it('keeps unrelated manual selections: the plan is refused only for what conflicts', () => {
    expect(planned(TWO_BY_TWO, { 'k8s.v1.cni.cncf.io/networks': 'ai-workloads/storage-net@storage0' })).toHaveLength(4);
  });

  describe('with the Pod’s other claims as neighbours', () => {
    const [a0, a1] = EXPECTED;
    /** Claim A as its checkpoint holds it: Ready, its shadows created. */
    const recordedA: ManagedBinding[] = [a0, a1].map((binding, index) => ({
      ...(binding as PlannedBinding),
      phase: 'Ready',
      shadow: { ...(binding as PlannedBinding).shadow, uid: `9e1f0c3a-7b2d-4e5f-8a6b-0c1d2e3f4a5${String(index)}` },
    }));
    const neighboursOf = (bindings: typeof recordedA): BindingPlanInput['neighbours'] =>
      bindings.map((binding) => ({ claim: CLAIM_A, request: 'nics', pool: binding.pool, device: binding.device, ifName: '', recorded: binding }));
    const planB = (neighbours: BindingPlanInput['neighbours'], annotations?: Record<string, string>) =>
      planManagedBindings({ ...input(TWO_BY_TWO.slice(2), annotations), neighbours });

    it('plans only the new claim, numbered after a prepared claim as if both were planned together', () => {
      const plan = planB(neighboursOf(recordedA));
      expect(plan.ok && plan.value.bindings.map(({ binding }) => binding)).toEqual(EXPECTED.slice(2));
    });

    it('numbers around a claim not prepared yet from its allocation alone: no template of its is needed', () => {
      const unprepared = TWO_BY_TWO.slice(0, 2).map(({ claim, request, pool, device }) => ({ claim, request, pool, device, ifName: '' }));
      const plan = planB(unprepared);
      expect(plan.ok && plan.value.bindings.map(({ binding }) => binding.interface)).toEqual(['dra2', 'dra3']);
    });

    it('keeps a prepared claim’s recorded names, whatever the numbering would give it now', () => {
      const renamed = recordedA.map((binding, index) => ({ ...binding, interface: `rail${String(index)}` }));
      const plan = planB(neighboursOf(renamed));
      expect(plan.ok && plan.value.bindings.map(({ binding }) => binding.interface)).toEqual(['dra2', 'dra3']);
      const colliding = planB(neighboursOf(recordedA.map((binding, index) => ({ ...binding, interface: index === 0 ? 'dra3' : binding.interface }))));
      expect(!colliding.ok && [colliding.error.code, colliding.error.detail]).toEqual([
        'DuplicateInterfaceName',
        'devices worker-a/0000-03-00-1 and worker-a/0000-81-00-2 both get interface dra3',
      ]);
    });

    it('refuses a new device on the VF a prepared binding holds, and a manual selection that conflicts with the prepared claim', () => {
      const samePci = planB(neighboursOf(recordedA.map((binding, index) => ({ ...binding, pciAddress: index === 0 ? '0000:81:00.1' : binding.pciAddress }))));
      expect(!samePci.ok && samePci.error.code).toBe('ConflictingDeviceRequirements');
      const manual = planB(neighboursOf(recordedA), { 'k8s.v1.cni.cncf.io/networks': 'rail-a-net' });
      expect(!manual.ok && manual.error.code).toBe('ManualSelectionConflictsWithManagedTemplate');
      // A released neighbour no longer holds a selection on the Pod.
      const released = planB(neighboursOf(recordedA.map((binding) => ({ ...binding, phase: 'Deleting' as const }))), {
        'k8s.v1.cni.cncf.io/networks': 'rail-a-net',
      });
      expect(released.ok).toBe(true);
    });
  });

  describe('refuses before any hardware change', () => {
    it.each<[string, () => ReturnType<typeof refusal>, string, string]>([
      [
        'a manual selection of a template the driver attaches automatically',
        () => refusal(TWO_BY_TWO, { 'k8s.v1.cni.cncf.io/networks': '[{"name":"rail-b-net","namespace":"infra"}]' }),
        'ManualSelectionConflictsWithManagedTemplate',
        'networks entry 0 selects infra/rail-b-net',
      ],
      [
        'a manual selection in comma notation of a Pod-namespace template',
        () => refusal(TWO_BY_TWO, { 'k8s.v1.cni.cncf.io/networks': 'storage-net, rail-a-net' }),
        'ManualSelectionConflictsWithManagedTemplate',
        'networks entry 1 selects ai-workloads/rail-a-net',
      ],
      [
        'a manual selection asking for an interface a managed one gets',
        () => refusal(TWO_BY_TWO, { 'k8s.v1.cni.cncf.io/networks': 'storage-net@dra1' }),
        'DuplicateInterfaceName',
        'both request interface dra1',
      ],
      [
        'annotations that would exceed 256 KiB once the managed selections are added',
        // 262,000 bytes fit; the four selections and their registry do not.
        () => refusal(TWO_BY_TWO, { 'example.com/blob': 'x'.repeat(262_000 - 'example.com/blob'.length) }),
        'AnnotationTooLarge',
        'over the 262144-byte limit',
      ],
      [
        'an explicit interface name on a request for two VFs',
        () => refusal([allocation(CLAIM_A, 'nics', '0000-03-00-1', RAIL_A, 'rail-a'), allocation(CLAIM_A, 'nics', '0000-03-00-2', RAIL_A, 'rail-a')]),
        'AmbiguousInterfaceName',
        'allocates 2 devices',
      ],
      [
        'one device whose two requests ask for different templates',
        () => refusal([allocation(CLAIM_A, 'primary', '0000-03-00-1', RAIL_A), allocation(CLAIM_A, 'fallback', '0000-03-00-1', RAIL_B)]),
        'ConflictingDeviceRequirements',
        'bind device worker-a/0000-03-00-1 to templates ai-workloads/rail-a-net and infra/rail-b-net',
      ],
      [
        'one device whose two requests saw different versions of its template',
        () =>
          refusal([
            allocation(CLAIM_A, 'primary', '0000-03-00-1', RAIL_A),
            allocation(CLAIM_A, 'fallback', '0000-03-00-1', { ...RAIL_A, resourceVersion: '4712' }),
          ]),
        'ConflictingDeviceRequirements',
        'to templates ai-workloads/rail-a-net and ai-workloads/rail-a-net',
      ],
      [
        'one device allocated by two claims',
        () => refusal([allocation(CLAIM_A, 'nics', '0000-03-00-1', RAIL_A), allocation(CLAIM_B, 'nic-0', '0000-03-00-1', RAIL_A)]),
        'ConflictingDeviceRequirements',
        'is allocated by two claims',
      ],
      [
        'two devices with one PCI address',
        () =>
          refusal([
            allocation(CLAIM_A, 'nics', '0000-03-00-1', RAIL_A),
            { ...allocation(CLAIM_B, 'nic-0', '0000-81-00-1', RAIL_B), pciAddress: '0000:03:00.1' },
          ]),
        'ConflictingDeviceRequirements',
        'are both PCI 0000:03:00.1',
      ],
      [
        'a claim outside the Pod namespace',
        () => refusal([allocation({ ...CLAIM_A, namespace: 'other' }, 'nics', '0000-03-00-1', RAIL_A)]),
        'ConsumerMismatch',
        'claim other/trainer-0-nics-a is not in the Pod',
      ],
      [
        'a claim the Pod does not list',
        () => refusal([allocation({ ...CLAIM_A, aliases: [] }, 'nics', '0000-03-00-1', RAIL_A)]),
        'ConsumerMismatch',
        'is not among the Pod',
      ],
      [
        'a template that is not an SR-IOV configuration',
        () => refusal([allocation(CLAIM_A, 'nics', '0000-03-00-1', { ...RAIL_A, config: '{"cniVersion":"1.0.0","type":"macvlan","master":"eth1"}' })]),
        'UnsupportedCniTopology',
        'the single plugin is "macvlan", not sriov',
      ],
      [
        'a PCI address from discovery that is not a BDF',
        () => refusal([{ ...allocation(CLAIM_A, 'nics', '0000-03-00-1', RAIL_A), pciAddress: '03:00.1' }]),
        'InvalidPciAddress',
        '"03:00.1"',
      ],
      [
        'a record the checkpoint would refuse to persist',
        () => refusal([allocation({ ...CLAIM_A, name: 'Trainer_Nics' }, 'nics', '0000-03-00-1', RAIL_A)]),
        'InvalidApiObject',
        'claimName',
      ],
    ])('%s', (_, refuse, code, detail) => {
      const error = refuse();
      expect(error.code).toBe(code);
      expect(error.detail).toContain(detail);
    });
  });
});

describe('planManagedBindings: one device through two requests, and what a refusal names', () => {
  const planned = (allocations: readonly ManagedAllocation[]) => planManagedBindings(input(allocations));
  const podObject = { kind: 'Pod', namespace: POD.namespace, name: POD.name, uid: POD.uid };

  it.each<[string, Partial<SourceTemplate>]>([
    ['namespace', { namespace: 'infra' }],
    ['name', { name: 'rail-a-net-2' }],
    ['UID', { uid: '6f0c9a52-3d1e-4b7a-9c08-2e6f4d1b7a93' }],
    ['configuration', { config: RAIL_A.config.replace('192.0.2.0/24', '192.0.2.0/25') }],
  ])('refuses a device whose two requests saw templates differing only in %s', (_field, change) => {
    const result = planned([allocation(CLAIM_A, 'primary', '0000-03-00-1', RAIL_A), allocation(CLAIM_A, 'fallback', '0000-03-00-1', { ...RAIL_A, ...change })]);
    expect(result.ok ? result : [result.error.code, result.error.object]).toEqual(['ConflictingDeviceRequirements', podObject]);
  });

  it('refuses two PCI addresses that are not BDFs as such, not as one shared address', () => {
    const result = planned([
      { ...allocation(CLAIM_A, 'nics', '0000-03-00-1', RAIL_A), pciAddress: '03:00.1' },
      { ...allocation(CLAIM_A, 'nics', '0000-03-00-2', RAIL_A), pciAddress: '03:00.2' },
    ]);
    expect(result.ok ? result : result.error.code).toBe('InvalidPciAddress');
  });

  it('attaches a device once when its two requests saw the same template', () => {
    const result = planned([allocation(CLAIM_A, 'primary', '0000-03-00-1', RAIL_A), allocation(CLAIM_A, 'fallback', '0000-03-00-1', { ...RAIL_A })]);
    expect(result.ok ? result.value.bindings.map(({ binding }) => binding.requestNames) : result.error.message).toEqual([['fallback', 'primary']]);
  });

  it.each<[string, readonly ManagedAllocation[]]>([
    ['a claim outside the Pod namespace', [allocation({ ...CLAIM_A, namespace: 'other' }, 'nics', '0000-03-00-1', RAIL_A)]],
    ['a claim the Pod does not list', [allocation({ ...CLAIM_A, aliases: [] }, 'nics', '0000-03-00-1', RAIL_A)]],
    [
      'two devices with one PCI address',
      [allocation(CLAIM_A, 'nics', '0000-03-00-1', RAIL_A), { ...allocation(CLAIM_B, 'nic-0', '0000-81-00-1', RAIL_B), pciAddress: '0000:03:00.1' }],
    ],
    ['a record the checkpoint would refuse to persist', [allocation({ ...CLAIM_A, name: 'Trainer_Nics' }, 'nics', '0000-03-00-1', RAIL_A)]],
    [
      'an explicit interface name on a request for two VFs',
      [allocation(CLAIM_A, 'nics', '0000-03-00-1', RAIL_A, 'rail-a'), allocation(CLAIM_A, 'nics', '0000-03-00-2', RAIL_A, 'rail-a')],
    ],
  ])('names the Pod when it refuses %s', (_case, allocations) => {
    const result = planned(allocations);
    expect(result.ok ? result : result.error.object).toEqual(podObject);
  });
});
