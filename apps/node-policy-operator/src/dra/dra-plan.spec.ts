import { describe, expect, it } from '@jest/globals';
import { describeErrorCode } from '@sriov-dra/contract';
import { type DraPlan, type DraPlanInput, type PlanNode, planDraConfiguration, referenceKey, referencedSriovNetworks } from './dra-plan.ts';
import type { NodeInventory } from './node-inventory.ts';
import type { NodePolicy } from './node-policy.ts';
import type { SourceResolution } from './source-reference.ts';

const NS = 'sriov-network-operator';
const GENERATED_BY = 'sriovnetwork.openshift.io/generated-by';
const POLICY_UID = 'sriovnetwork.openshift.io/node-policy-uid';
const POOL = 'sriovnetwork.openshift.io/resource-pool';
const RAIL = 'example.com/rail';

/** Two PFs of two VFs each; the node's hostname label differs from its name, as it may. */
function inventory(node: string): NodeInventory {
  return {
    node,
    pfs: [
      {
        name: 'ens1f0',
        altNames: [],
        pciAddress: '0000:3b:00.0',
        vendor: '15b3',
        deviceID: '1017',
        vfs: [
          { pciAddress: '0000:3b:00.2', vfID: 0 },
          { pciAddress: '0000:3b:00.3', vfID: 1 },
        ],
      },
      {
        name: 'ens2f0',
        altNames: [],
        pciAddress: '0000:86:00.0',
        vendor: '15b3',
        deviceID: '1017',
        vfs: [
          { pciAddress: '0000:86:01.0', vfID: 0 },
          { pciAddress: '0000:86:01.1', vfID: 1 },
        ],
      },
    ],
  };
}

const WORKER_1: PlanNode = { name: 'worker-1', labels: { [RAIL]: 'true', 'kubernetes.io/hostname': 'worker-1.example' } };
const WORKER_2: PlanNode = { name: 'worker-2', labels: { [RAIL]: 'true', 'kubernetes.io/hostname': 'worker-2.example' } };

interface PolicyOptions {
  readonly pfNames?: string[];
  readonly dra?: unknown;
  readonly priority?: number;
  readonly namespace?: string;
  readonly resourceName?: string;
  readonly deviceType?: string;
  readonly netFilter?: string;
  readonly nodeSelector?: Record<string, string>;
}

function policy(name: string, options: PolicyOptions = {}): NodePolicy {
  return {
    metadata: { name, namespace: options.namespace ?? NS, uid: `uid-${name}` },
    spec: {
      resourceName: options.resourceName ?? `res_${name}`,
      nodeSelector: options.nodeSelector ?? { [RAIL]: 'true' },
      ...(options.priority === undefined ? {} : { priority: options.priority }),
      nicSelector: { vendor: '15b3', pfNames: options.pfNames ?? ['ens1f0'], ...(options.netFilter === undefined ? {} : { netFilter: options.netFilter }) },
      ...(options.deviceType === undefined ? {} : { deviceType: options.deviceType }),
      ...(options.dra === undefined ? {} : { dra: options.dra }),
    },
  };
}

const attributesOnly = { attributes: { [RAIL]: { string: 'a' } } };
function referencing(namespace: string, name: string): unknown {
  return {
    attributes: {
      [RAIL]: { string: 'a' },
      'sriovnetwork.openshift.io/sriovNetworkName': { string: name },
      'sriovnetwork.openshift.io/sriovNetworkNamespace': { string: namespace },
    },
  };
}

function plan(input: Partial<DraPlanInput> & Pick<DraPlanInput, 'policies'>): DraPlan {
  const nodes = input.nodes ?? [WORKER_1];
  return planDraConfiguration({
    operatorNamespace: NS,
    resourcePrefix: 'openshift.io',
    draEnabled: true,
    nodes,
    inventories: new Map(nodes.map((node) => [node.name, inventory(node.name)])),
    sources: new Map(),
    ...input,
  });
}

const managedSelector = (name: string) => ({ matchLabels: { [GENERATED_BY]: 'sriov-network-operator', [POLICY_UID]: `uid-${name}` } });
const poolSelector = (pool: string) => ({ matchLabels: { [POOL]: pool } });
const hostnameSelector = (hostname: string) => ({
  nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [hostname] }] }],
});
const applied = (name: string) => ({
  reason: 'DRAConfigurationApplied',
  message: `attributes validated; DeviceAttributes dra-policy-uid-${name}-attrs and the configs of the nodes it selects generated`,
});
const configsOf = (result: DraPlan, node = 'worker-1') => result.resourcePolicies.find((entry) => entry.node === node)?.spec.configs;

describe('planDraConfiguration: generation', () => {
  it('generates a managed policy’s DeviceAttributes, with the resolved NAD pair, and the node config selecting them', () => {
    const sources = new Map<string, SourceResolution>([['team-a/rail-a-net', { ok: true, nad: { name: 'rail-a-net', namespace: 'team-b' } }]]);
    const result = plan({ policies: [policy('rail-a', { dra: referencing('team-a', 'rail-a-net') })], sources });
    expect(result).toEqual({
      deviceAttributes: [
        {
          apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1',
          kind: 'DeviceAttributes',
          metadata: { name: 'dra-policy-uid-rail-a-attrs', namespace: NS, labels: { [GENERATED_BY]: 'sriov-network-operator', [POLICY_UID]: 'uid-rail-a' } },
          spec: {
            attributes: {
              'k8s.cni.cncf.io/resourceName': { string: 'openshift.io/res_rail-a' },
              [RAIL]: { string: 'a' },
              'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName': { string: 'rail-a-net' },
              'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefNamespace': { string: 'team-b' },
            },
          },
        },
      ],
      poolAttributes: [],
      resourcePolicies: [
        {
          node: 'worker-1',
          spec: {
            nodeSelector: hostnameSelector('worker-1.example'),
            configs: [{ deviceAttributesSelector: managedSelector('rail-a'), resourceFilters: [{ pfPciAddresses: ['0000:3b:00.0'] }] }],
          },
        },
      ],
      verdicts: new Map([['uid-rail-a', applied('rail-a')]]),
      nodeProblems: [],
      dependencies: new Map([['uid-rail-a', { deviceAttributes: 'dra-policy-uid-rail-a-attrs', nodes: ['worker-1'] }]]),
    });
  });

  it('generates no NAD pair for an attributes-only policy', () => {
    const result = plan({ policies: [policy('rail-a', { dra: attributesOnly })] });
    expect(result.deviceAttributes).toHaveLength(1);
    expect(Object.keys((result.deviceAttributes[0]?.['spec'] as { attributes: object }).attributes)).toEqual(['k8s.cni.cncf.io/resourceName', RAIL]);
    expect(result.verdicts.get('uid-rail-a')).toEqual(applied('rail-a'));
  });

  it('gives policies without spec.dra one pool object per pool, selected by the pool label', () => {
    const result = plan({
      policies: [
        policy('legacy-a', { resourceName: 'intel_nic', pfNames: ['ens1f0'] }),
        policy('legacy-b', { resourceName: 'Intel-nic', pfNames: ['ens2f0'] }),
      ],
    });
    expect(result.poolAttributes).toHaveLength(1);
    expect(result.poolAttributes[0]).toMatchObject({ metadata: { name: 'intel-nic-attrs', labels: { [POOL]: 'intel-nic' } } });
    expect(configsOf(result)).toEqual([
      { deviceAttributesSelector: poolSelector('intel-nic'), resourceFilters: [{ pfPciAddresses: ['0000:3b:00.0'] }] },
      { deviceAttributesSelector: poolSelector('intel-nic'), resourceFilters: [{ pfPciAddresses: ['0000:86:00.0'] }] },
    ]);
    expect(result.deviceAttributes).toEqual([]);
    expect(result.verdicts.size).toBe(0);
  });

  it('advertises a vfio-pci policy’s VFs only once bound to vfio-pci', () => {
    const result = plan({ policies: [policy('dpdk', { dra: attributesOnly, deviceType: 'vfio-pci' })] });
    expect(configsOf(result)).toEqual([
      { deviceAttributesSelector: managedSelector('dpdk'), resourceFilters: [{ pfPciAddresses: ['0000:3b:00.0'], drivers: ['vfio-pci'] }] },
    ]);
  });

  it('orders configs as upstream applies policies: lower priority numbers first (absent is 99), ties by name', () => {
    const result = plan({
      policies: [
        policy('p100', { priority: 100, pfNames: ['ens2f0#1-1'] }),
        policy('b99', { pfNames: ['ens2f0#0-0'] }),
        policy('a99', { priority: 99, pfNames: ['ens1f0#1-1'] }),
        policy('z10', { priority: 10, pfNames: ['ens1f0#0-0'] }),
      ],
    });
    expect(configsOf(result)?.map((config) => config.deviceAttributesSelector?.matchLabels?.[POOL])).toEqual(['res-z10', 'res-a99', 'res-b99', 'res-p100']);
    expect(configsOf(result)?.[0]?.resourceFilters).toEqual([{ pciAddresses: ['0000:3b:00.2'] }]);
  });

  it('orders policies of equal priority by name whatever order they were listed in', () => {
    const names = (policies: NodePolicy[]) => configsOf(plan({ policies }))?.map((config) => config.deviceAttributesSelector?.matchLabels?.[POOL]);
    const a = policy('a', { pfNames: ['ens1f0'] });
    const b = policy('b', { pfNames: ['ens2f0'] });
    expect(names([a, b])).toEqual(['res-a', 'res-b']);
    expect(names([b, a])).toEqual(['res-a', 'res-b']);
  });

  it('plans nodes in name order and leaves out nodes no policy selects', () => {
    const idle: PlanNode = { name: 'worker-0', labels: { 'kubernetes.io/hostname': 'worker-0' } };
    const worker3: PlanNode = { name: 'worker-3', labels: { [RAIL]: 'true' } };
    const result = plan({ policies: [policy('legacy')], nodes: [WORKER_2, worker3, idle, WORKER_1] });
    expect(result.resourcePolicies.map((entry) => entry.node)).toEqual(['worker-1', 'worker-2', 'worker-3']);
  });

  it('charges a policy only with the nodes it selects', () => {
    const result = plan({
      policies: [policy('rail-a', { dra: attributesOnly, nodeSelector: { 'kubernetes.io/hostname': 'worker-2.example' } }), policy('legacy')],
      nodes: [WORKER_1, WORKER_2],
    });
    expect(result.dependencies.get('uid-rail-a')).toEqual({ deviceAttributes: 'dra-policy-uid-rail-a-attrs', nodes: ['worker-2'] });
  });

  it('plans a node that only a managed policy selects, and one that only a policy without spec.dra selects', () => {
    const managedOnly = plan({ policies: [policy('rail-a', { dra: attributesOnly })] });
    expect(managedOnly.resourcePolicies.map((entry) => entry.node)).toEqual(['worker-1']);
    const legacyOnly = plan({ policies: [policy('legacy')] });
    expect(legacyOnly.resourcePolicies.map((entry) => entry.node)).toEqual(['worker-1']);
  });

  it('gives a node no config for a policy selecting none of its VFs', () => {
    const result = plan({ policies: [policy('rail-a', { dra: attributesOnly, pfNames: ['ens9f0'] })] });
    expect(result.resourcePolicies).toEqual([{ node: 'worker-1', spec: { nodeSelector: hostnameSelector('worker-1.example'), configs: [] } }]);
    expect(result.verdicts.get('uid-rail-a')).toEqual(applied('rail-a'));
  });

  it('selects a node without the hostname label by its name, where the name is a label value', () => {
    const result = plan({ policies: [policy('legacy')], nodes: [{ name: 'worker-9', labels: { [RAIL]: 'true' } }] });
    expect(result.resourcePolicies[0]?.spec.nodeSelector).toEqual(hostnameSelector('worker-9'));
  });

  it('ignores policies of other namespaces', () => {
    const result = plan({ policies: [policy('elsewhere', { namespace: 'team-a', dra: attributesOnly }), policy('legacy-elsewhere', { namespace: 'team-a' })] });
    expect(result).toEqual({ deviceAttributes: [], poolAttributes: [], resourcePolicies: [], verdicts: new Map(), nodeProblems: [], dependencies: new Map() });
  });

  it('treats the bootstrap policy as neither managed nor a pool, and refuses spec.dra on it', () => {
    const withDra = plan({ policies: [policy('default', { dra: attributesOnly })] });
    expect(withDra.verdicts).toEqual(
      new Map([
        [
          'uid-default',
          {
            reason: 'InvalidDRAAttribute',
            message: 'DRABlockOnDefaultPolicy: the bootstrap policy default cannot carry spec.dra — remove it and put the attributes on a policy of your own',
          },
        ],
      ]),
    );
    expect(withDra.resourcePolicies).toEqual([]);
    expect(withDra.deviceAttributes).toEqual([]);
    const withoutDra = plan({ policies: [policy('default')] });
    expect(withoutDra.poolAttributes).toEqual([]);
    expect(withoutDra.resourcePolicies).toEqual([]);
  });

  it('does not count the bootstrap policy’s VFs as a conflict with a managed policy', () => {
    const result = plan({ policies: [policy('default'), policy('rail-a', { dra: attributesOnly })] });
    expect(configsOf(result)).toEqual([{ deviceAttributesSelector: managedSelector('rail-a'), resourceFilters: [{ pfPciAddresses: ['0000:3b:00.0'] }] }]);
    expect(result.verdicts.get('uid-rail-a')).toEqual(applied('rail-a'));
  });
});

describe('planDraConfiguration: policies whose attributes cannot be published', () => {
  const REMEDY = describeErrorCode('InvalidDRAAttribute').remedy;
  it('keeps an invalid spec.dra’s exact filter selecting its own unpublished object, so its VFs fall through to no other config', () => {
    const result = plan({ policies: [policy('bad', { dra: { attributes: { [RAIL]: { float: 1 } } } })] });
    expect(result.verdicts.get('uid-bad')).toEqual({
      reason: 'InvalidDRAAttribute',
      message:
        `2 problems: spec.dra.attributes[${JSON.stringify(RAIL)}].float: InvalidDRAAttribute: unknown field spec.dra.attributes[${JSON.stringify(RAIL)}].float \u2014 ${REMEDY}; ` +
        `spec.dra.attributes[${JSON.stringify(RAIL)}]: InvalidDRAAttribute: must set exactly one value member \u2014 ${REMEDY}`,
    });
    expect(result.deviceAttributes).toEqual([]);
    expect(configsOf(result)).toEqual([{ deviceAttributesSelector: managedSelector('bad'), resourceFilters: [{ pfPciAddresses: ['0000:3b:00.0'] }] }]);
    expect(result.dependencies.get('uid-bad')).toEqual({ deviceAttributes: null, nodes: ['worker-1'] });
  });

  it('blocks a policy whose reference was not read in this reconciliation', () => {
    const result = plan({ policies: [policy('rail-a', { dra: referencing('team-a', 'rail-a-net') })] });
    expect(result.verdicts.get('uid-rail-a')).toEqual({
      reason: 'DRAConfigurationSyncFailed',
      message: 'the referenced SriovNetwork was not read in this reconciliation',
    });
    expect(result.deviceAttributes).toEqual([]);
    expect(configsOf(result)).toHaveLength(1);
  });

  it('blocks a policy whose reference is unavailable, with the source’s reason', () => {
    const sources = new Map<string, SourceResolution>([
      ['team-a/rail-a-net', { ok: false, reason: 'SriovNetworkNotFound', message: 'SriovNetwork team-a/rail-a-net does not exist' }],
    ]);
    const result = plan({ policies: [policy('rail-a', { dra: referencing('team-a', 'rail-a-net') })], sources });
    expect(result.verdicts.get('uid-rail-a')).toEqual({ reason: 'SriovNetworkNotFound', message: 'SriovNetwork team-a/rail-a-net does not exist' });
    expect(result.deviceAttributes).toEqual([]);
    expect(result.dependencies.get('uid-rail-a')).toEqual({ deviceAttributes: null, nodes: ['worker-1'] });
  });

  it('reports a blocked policy’s own reason before a node problem', () => {
    const result = plan({
      policies: [policy('rail-a', { dra: referencing('team-a', 'rail-a-net') }), policy('legacy', { pfNames: ['ens1f0'] })],
    });
    expect(result.verdicts.get('uid-rail-a')?.reason).toBe('DRAConfigurationSyncFailed');
  });

  it('validates and stages spec.dra without generating anything when the DRA provider is off', () => {
    const result = plan({
      draEnabled: false,
      policies: [policy('rail-a', { dra: attributesOnly }), policy('bad', { dra: { bogus: true } }), policy('legacy')],
    });
    expect(result).toEqual({
      deviceAttributes: [],
      poolAttributes: [],
      resourcePolicies: [],
      verdicts: new Map([
        ['uid-bad', { reason: 'InvalidDRAAttribute', message: expect.stringContaining('bogus') }],
        ['uid-rail-a', { reason: 'DRAInactive', message: 'spec.dra is valid and stored; the DRA provider is not enabled, so nothing is generated' }],
      ]),
      nodeProblems: [],
      dependencies: new Map(),
    });
  });
});

describe('planDraConfiguration: unsafe nodes get an empty config list', () => {
  it('withdraws a node where a managed policy and a policy without spec.dra share a VF', () => {
    const result = plan({ policies: [policy('rail-a', { dra: attributesOnly, pfNames: ['ens1f0'] }), policy('legacy', { pfNames: ['ens1f0#1-1'] })] });
    expect(configsOf(result)).toEqual([]);
    expect(result.verdicts.get('uid-rail-a')).toEqual({
      reason: 'ConflictingDRAMapping',
      message: 'policies legacy and rail-a both select VF 0000:3b:00.3 on node worker-1; make their nicSelectors disjoint',
    });
    expect(result.deviceAttributes).toHaveLength(1);
  });

  it('withdraws a node where two managed policies share a VF, and charges both', () => {
    const result = plan({ policies: [policy('rail-a', { dra: attributesOnly }), policy('rail-b', { dra: attributesOnly, pfNames: ['ens1f0#0-0'] })] });
    expect(configsOf(result)).toEqual([]);
    const conflict = 'policies rail-a and rail-b both select VF 0000:3b:00.2 on node worker-1; make their nicSelectors disjoint';
    expect(result.verdicts.get('uid-rail-a')).toEqual({ reason: 'ConflictingDRAMapping', message: conflict });
    expect(result.verdicts.get('uid-rail-b')).toEqual({ reason: 'ConflictingDRAMapping', message: conflict });
  });

  it('leaves overlapping policies without spec.dra to upstream’s first-come order', () => {
    const result = plan({ policies: [policy('legacy-a'), policy('legacy-b', { pfNames: ['ens1f0#0-0'] })] });
    expect(configsOf(result)).toHaveLength(2);
  });

  it('does not withdraw a node where a managed policy and others select disjoint VFs', () => {
    const result = plan({ policies: [policy('rail-a', { dra: attributesOnly, pfNames: ['ens1f0#0-0'] }), policy('legacy', { pfNames: ['ens1f0#1-1'] })] });
    expect(configsOf(result)).toHaveLength(2);
    expect(result.verdicts.get('uid-rail-a')).toEqual(applied('rail-a'));
  });

  it('withdraws a node where a managed selector cannot be translated, and charges every managed policy on it', () => {
    const result = plan({
      policies: [
        policy('rail-a', { dra: attributesOnly, netFilter: 'openstack/NetworkID:a' }),
        policy('rail-b', { dra: attributesOnly, netFilter: 'openstack/NetworkID:b', priority: 100 }),
        policy('rail-c', { dra: attributesOnly, pfNames: ['ens2f0'] }),
      ],
    });
    expect(configsOf(result)).toEqual([]);
    const verdict = {
      reason: 'UnsupportedManagedSelector',
      message: 'policy rail-a on node worker-1: nicSelector.netFilter "openstack/NetworkID:a" has no driver filter equivalent',
    };
    expect(result.verdicts.get('uid-rail-a')).toEqual(verdict);
    expect(result.verdicts.get('uid-rail-b')).toEqual(verdict);
    expect(result.verdicts.get('uid-rail-c')).toEqual(verdict);
  });

  it('advertises nothing for an untranslatable selector without spec.dra, and nothing else changes', () => {
    const result = plan({ policies: [policy('legacy', { netFilter: 'openstack/NetworkID:a' }), policy('rail-a', { dra: attributesOnly })] });
    expect(configsOf(result)).toEqual([{ deviceAttributesSelector: managedSelector('rail-a'), resourceFilters: [{ pfPciAddresses: ['0000:3b:00.0'] }] }]);
    expect(result.verdicts.get('uid-rail-a')).toEqual(applied('rail-a'));
  });

  it('keeps the first node’s problem as the policy’s verdict', () => {
    const rail = policy('rail-a', { dra: attributesOnly });
    const result = plan({
      policies: [
        rail,
        policy('legacy-1', { nodeSelector: { 'kubernetes.io/hostname': 'worker-1.example' } }),
        policy('legacy-2', { nodeSelector: { 'kubernetes.io/hostname': 'worker-2.example' } }),
      ],
      nodes: [WORKER_2, WORKER_1],
    });
    expect(result.verdicts.get('uid-rail-a')?.message).toBe(
      'policies legacy-1 and rail-a both select VF 0000:3b:00.2 on node worker-1; make their nicSelectors disjoint',
    );
    expect(result.dependencies.get('uid-rail-a')).toEqual({ deviceAttributes: 'dra-policy-uid-rail-a-attrs', nodes: ['worker-1', 'worker-2'] });
  });
});

describe('planDraConfiguration: node problems are the node’s, not a policy’s', () => {
  it('withdraws a node without inventory and reports it on the node', () => {
    const result = plan({ policies: [policy('rail-a', { dra: attributesOnly })], inventories: new Map() });
    expect(result.resourcePolicies).toEqual([{ node: 'worker-1', spec: { nodeSelector: hostnameSelector('worker-1.example'), configs: [] } }]);
    expect(result.nodeProblems).toEqual([
      {
        node: 'worker-1',
        reason: 'NodeInventoryUnavailable',
        message: 'node worker-1 has no usable SriovNetworkNodeState inventory; its devices stay unadvertised until the config daemon reports one',
      },
    ]);
    expect(result.verdicts.get('uid-rail-a')).toEqual(applied('rail-a'));
  });

  it('says why a node’s inventory is unusable', () => {
    const result = plan({ policies: [policy('legacy')], inventories: new Map([['worker-1', { problem: 'status.interfaces: expected array' }]]) });
    expect(result.nodeProblems).toEqual([
      {
        node: 'worker-1',
        reason: 'NodeInventoryUnavailable',
        message:
          'node worker-1 has no usable SriovNetworkNodeState inventory (status.interfaces: expected array); its devices stay unadvertised until the config daemon reports one',
      },
    ]);
    expect(configsOf(result)).toEqual([]);
  });

  it('gives no config to a node without a hostname label whose name is too long for a label value', () => {
    const long = { name: `${'n'.repeat(63)}.${'m'.repeat(10)}`, labels: { [RAIL]: 'true' } };
    const result = plan({ policies: [policy('rail-a', { dra: attributesOnly })], nodes: [long, WORKER_2] });
    expect(result.resourcePolicies.map((entry) => entry.node)).toEqual(['worker-2']);
    expect(result.nodeProblems).toEqual([
      {
        node: long.name,
        reason: 'NodeNotSelectable',
        message: `node ${long.name} has no kubernetes.io/hostname label and its name is longer than a label value; no config can select it, so its devices stay unadvertised until the label is set`,
      },
    ]);
    expect(result.verdicts.get('uid-rail-a')).toEqual(applied('rail-a'));
  });
});

describe('referencedSriovNetworks', () => {
  it('lists each valid reference once, leaving out the bootstrap policy and invalid or reference-free spec.dra', () => {
    const policies = [
      policy('rail-a', { dra: referencing('team-a', 'rail-a-net') }),
      policy('rail-a2', { dra: referencing('team-a', 'rail-a-net') }),
      policy('rail-b', { dra: referencing('team-b', 'rail-b-net') }),
      policy('default', { dra: referencing('team-c', 'default-net') }),
      policy('bad', { dra: { ...(referencing('team-d', 'bad-net') as object), bogus: true } }),
      policy('plain', { dra: attributesOnly }),
      policy('legacy'),
    ];
    expect(referencedSriovNetworks(policies, NS)).toEqual([
      { namespace: 'team-a', name: 'rail-a-net' },
      { namespace: 'team-b', name: 'rail-b-net' },
    ]);
  });

  it('reads a policy named default outside the operator namespace as an ordinary policy', () => {
    expect(referencedSriovNetworks([policy('default', { namespace: 'team-c', dra: referencing('team-c', 'default-net') })], NS)).toEqual([
      { namespace: 'team-c', name: 'default-net' },
    ]);
  });

  it('keys a reference as <namespace>/<name>', () => {
    expect(referenceKey({ namespace: 'team-a', name: 'rail-a-net' })).toBe('team-a/rail-a-net');
  });
});
