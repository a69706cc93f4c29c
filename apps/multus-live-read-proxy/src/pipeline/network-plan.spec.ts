import { describe, expect, it } from '@jest/globals';
import { annotations } from '@sriov-dra/contract';
import { DEFAULT_NETWORK_ANNOTATION, type NetworkPlanSettings, type PlannedNetwork, planNetworks } from './network-plan.ts';

const settings: NetworkPlanSettings = {
  clusterNetwork: 'primary',
  defaultNetworks: ['sidecar', '/etc/cni/multus/net.d/extra.conflist'],
  multusNamespace: 'kube-system',
  systemNamespaces: ['kube-system'],
  namespaceIsolation: false,
  nonIsolatedNamespaces: ['default'],
};

function pod(namespace: string, podAnnotations: Record<string, string> = {}) {
  return { metadata: { name: 'trainer', namespace, uid: '11111111-2222-3333-4444-555555555555', annotations: podAnnotations } };
}

function describePlan(planned: readonly PlannedNetwork[]): string[] {
  return planned.map(({ role, source, selection }) => {
    const where = source.kind === 'path' ? source.path : `${source.namespace}/${source.name}${source.confNameFallback ? ' (or conf)' : ''}`;
    return `${role} ${where}${selection?.interface === undefined ? '' : `@${selection.interface}`}`;
  });
}

function plan(forPod: ReturnType<typeof pod>, with_: Partial<NetworkPlanSettings> = {}): string[] | string {
  const result = planNetworks(forPod, { ...settings, ...with_ });
  return result.ok ? describePlan(result.value) : `${result.error.code}: ${result.error.detail}`;
}

describe('planNetworks', () => {
  it('orders the cluster network, the default networks and the annotation as Multus does', () => {
    expect(plan(pod('ai-workloads', { [annotations.networks]: 'rail-a-net@dra0,other/rail-b' }))).toEqual([
      'master kube-system/primary (or conf)',
      'default kube-system/sidecar (or conf)',
      'default /etc/cni/multus/net.d/extra.conflist',
      'selection ai-workloads/rail-a-net@dra0',
      'selection other/rail-b',
    ]);
  });

  it('gives Pods of system namespaces no default networks', () => {
    expect(plan(pod('kube-system'))).toEqual(['master kube-system/primary (or conf)']);
  });

  it('lets the Pod replace the cluster network with exactly one NAD, in the Multus namespace by default', () => {
    expect(plan(pod('ai-workloads', { [DEFAULT_NETWORK_ANNOTATION]: 'alt-primary' }), { defaultNetworks: [] })).toEqual(['master kube-system/alt-primary']);
    expect(plan(pod('ai-workloads', { [DEFAULT_NETWORK_ANNOTATION]: 'a,b' }))).toBe(
      'MalformedNetworkSelections: annotation v1.multus-cni.io/default-network must name exactly one network, not 2',
    );
  });

  it('enforces namespace isolation on the annotation only, with the non-isolated namespaces as exceptions', () => {
    const isolated = { namespaceIsolation: true, defaultNetworks: [] };
    expect(plan(pod('ai-workloads', { [annotations.networks]: 'other/rail-b' }), isolated)).toBe(
      'NamespaceIsolationViolation: namespace isolation is on and the Pod refers to network other/rail-b in another namespace',
    );
    expect(plan(pod('ai-workloads', { [annotations.networks]: 'default/shared,rail-a-net' }), isolated)).toEqual([
      'master kube-system/primary (or conf)',
      'selection default/shared',
      'selection ai-workloads/rail-a-net',
    ]);
  });

  it('tells the operator what to do about a refused plan, naming the Pod and the annotation at fault', () => {
    const refusal = (forPod: ReturnType<typeof pod>, with_: Partial<NetworkPlanSettings> = {}): unknown => {
      const result = planNetworks(forPod, { ...settings, ...with_ });
      return result.ok ? 'accepted' : { remedy: result.error.remedy, object: result.error.object };
    };
    const at = { kind: 'Pod', namespace: 'ai-workloads', name: 'trainer', uid: '11111111-2222-3333-4444-555555555555' };
    const networks = { [annotations.networks]: 'other/rail-b' };
    expect(refusal(pod('ai-workloads', networks), { namespaceIsolation: true })).toEqual({
      remedy: 'reference NADs of namespace ai-workloads or of default (globalNamespaces)',
      object: at,
    });
    expect(refusal(pod('ai-workloads', networks), { namespaceIsolation: true, nonIsolatedNamespaces: ['default', 'shared'] })).toMatchObject({
      remedy: 'reference NADs of namespace ai-workloads or of default, shared (globalNamespaces)',
    });
    expect(refusal(pod('ai-workloads', networks), { namespaceIsolation: true, nonIsolatedNamespaces: [] })).toMatchObject({
      remedy: 'reference NADs of namespace ai-workloads or of no other namespace (globalNamespaces)',
    });
    // Without isolation another namespace is fine.
    expect(plan(pod('ai-workloads', networks), { defaultNetworks: [] })).toEqual(['master kube-system/primary (or conf)', 'selection other/rail-b']);
    expect(refusal(pod('ai-workloads'), { clusterNetwork: '' })).toMatchObject({
      remedy: 'set clusterNetwork in daemon-config.json to the primary network (a NAD name, a CNI network name or a file path)',
    });
    expect(refusal(pod('ai-workloads', { [DEFAULT_NETWORK_ANNOTATION]: 'a,b' }))).toMatchObject({ object: at });
    // An override that does not parse is refused naming the Pod; one naming no network too.
    expect(refusal(pod('ai-workloads', { [DEFAULT_NETWORK_ANNOTATION]: '[{"name":' }))).toMatchObject({ object: at });
    // The malformed override is named as such, not as the networks annotation.
    expect(refusal(pod('ai-workloads', { [DEFAULT_NETWORK_ANNOTATION]: '[{"name":' }))).toMatchObject({
      object: { field: `annotation ${DEFAULT_NETWORK_ANNOTATION}` },
    });
    expect(refusal(pod('ai-workloads', { [annotations.networks]: '[{"name":' }))).toMatchObject({ object: { field: `annotation ${annotations.networks}` } });
    expect(plan(pod('ai-workloads', { [DEFAULT_NETWORK_ANNOTATION]: '[]' }))).toBe(
      'MalformedNetworkSelections: annotation v1.multus-cni.io/default-network must name exactly one network, not 0',
    );
    expect(refusal(pod('ai-workloads', { [annotations.networks]: '[{"name":' }))).toMatchObject({ object: at });
  });

  it('takes the override with its selection and namespace, as the master and not a configured file', () => {
    const planned = planNetworks(pod('ai-workloads', { [DEFAULT_NETWORK_ANNOTATION]: 'net-ns/alt@eth9' }), settings);
    expect(planned.ok && planned.value[0]).toMatchObject({
      role: 'master',
      source: { kind: 'nad', namespace: 'net-ns', name: 'alt', confNameFallback: false },
      selection: { name: 'alt', namespace: 'net-ns', interface: 'eth9' },
    });
  });

  it('refuses a malformed networks annotation and a daemon without a cluster network', () => {
    expect(plan(pod('ai-workloads', { [annotations.networks]: '[{"name":' }))).toMatch(/^MalformedNetworkSelections: /);
    expect(plan(pod('ai-workloads'), { clusterNetwork: '' })).toBe('InvalidComponentSetting: the daemon configuration names no clusterNetwork');
  });
});

describe('planNetworks sources', () => {
  it('states where each network comes from, for a Pod with or without annotations', () => {
    const planned = planNetworks(pod('ai-workloads', { [annotations.networks]: 'rail-a-net' }), settings);
    expect(planned.ok && planned.value.map((network) => network.source)).toEqual([
      { kind: 'nad', namespace: 'kube-system', name: 'primary', confNameFallback: true },
      { kind: 'nad', namespace: 'kube-system', name: 'sidecar', confNameFallback: true },
      { kind: 'path', path: '/etc/cni/multus/net.d/extra.conflist' },
      { kind: 'nad', namespace: 'ai-workloads', name: 'rail-a-net', confNameFallback: false },
    ]);
    const bare = planNetworks({ metadata: { name: 'trainer', namespace: 'ai-workloads', uid: 'u' } }, { ...settings, defaultNetworks: [] });
    expect(bare.ok && bare.value.map((network) => network.role)).toEqual(['master']);
  });
});
