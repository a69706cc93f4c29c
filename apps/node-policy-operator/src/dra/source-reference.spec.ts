import { describe, expect, it } from '@jest/globals';
import type { SourceNadOptions } from '../render/source-nad.ts';
import { renderSourceNad } from '../render/source-nad.ts';
import type { Condition } from '../status/conditions.ts';
import { type LiveRead, type NadObject, type SourceResolution, type SriovNetworkObject, judgeSource } from './source-reference.ts';

const OPTIONS: SourceNadOptions = { operatorNamespace: 'sriov-network-operator', resourcePrefix: 'openshift.io' };
const REFERENCE = { namespace: 'team-a', name: 'rail-a-net' };
const NETWORK_UID = 'net-uid-a';

function readyCondition(overrides: Partial<Condition> = {}): Condition {
  return {
    type: 'Ready',
    status: 'True',
    reason: 'NetworkReady',
    message: 'NetworkAttachmentDefinition is provisioned and ready',
    observedGeneration: 3,
    lastTransitionTime: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}

interface NetworkOverrides {
  readonly metadata?: Record<string, unknown>;
  readonly spec?: Record<string, unknown>;
  readonly conditions?: Condition[];
  /** Replaces the whole status; undefined leaves it out. */
  readonly status?: object | undefined;
}

function network(overrides: NetworkOverrides = {}): SriovNetworkObject {
  const status = 'status' in overrides ? overrides.status : { conditions: overrides.conditions ?? [readyCondition()] };
  return {
    metadata: { namespace: REFERENCE.namespace, name: REFERENCE.name, uid: NETWORK_UID, resourceVersion: '1', generation: 3, ...overrides.metadata },
    spec: { resourceName: 'rail_a', vlan: 10, ...overrides.spec },
    ...(status === undefined ? {} : { status }),
  };
}

/** The NAD the network renders to, as its SriovNetwork controller writes it. */
function renderedNad(from: SriovNetworkObject = network(), metadata: Record<string, unknown> = {}): NadObject {
  const rendered = renderSourceNad(from, OPTIONS);
  if (!rendered.ok) throw rendered.error;
  return {
    metadata: {
      namespace: rendered.value.namespace,
      name: rendered.value.name,
      uid: 'nad-uid',
      resourceVersion: '1',
      annotations: { ...rendered.value.annotations },
      ownerReferences: [{ apiVersion: 'sriovnetwork.openshift.io/v1', kind: 'SriovNetwork', name: REFERENCE.name, uid: NETWORK_UID }],
      ...metadata,
    },
    spec: { config: rendered.value.config },
  };
}

const found = <T>(object: T): LiveRead<T> => ({ kind: 'found', object });

function judge(read: LiveRead<SriovNetworkObject>, nad: LiveRead<NadObject> = found(renderedNad())): SourceResolution {
  return judgeSource(REFERENCE, read, () => nad, OPTIONS);
}

const unready = (message: string): SourceResolution => ({ ok: false, reason: 'SriovNetworkNotReady', message });
const nadUnready = (message: string): SourceResolution => ({ ok: false, reason: 'SourceNADNotReady', message });

describe('judgeSource: the referenced SriovNetwork', () => {
  it('resolves a Ready SriovNetwork whose rendered NAD is in place', () => {
    expect(judge(found(network()))).toEqual({ ok: true, nad: { name: 'rail-a-net', namespace: 'team-a' } });
  });

  it('refuses a missing SriovNetwork, and names the one that was not found', () => {
    expect(judge({ kind: 'not-found' })).toEqual({ ok: false, reason: 'SriovNetworkNotFound', message: 'SriovNetwork team-a/rail-a-net does not exist' });
  });

  it('refuses when the operator may not read the SriovNetwork, with the API server’s words', () => {
    expect(judge({ kind: 'forbidden', message: 'sriovnetworks is forbidden' })).toEqual({
      ok: false,
      reason: 'SourceAccessDenied',
      message: 'reading SriovNetwork team-a/rail-a-net: sriovnetworks is forbidden',
    });
  });

  it('refuses a SriovNetwork being deleted', () => {
    expect(judge(found(network({ metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' } })))).toEqual(
      unready('SriovNetwork team-a/rail-a-net is being deleted'),
    );
  });

  it('refuses a SriovNetwork without a Ready condition; a True condition of another type does not count', () => {
    expect(judge(found(network({ conditions: [readyCondition({ type: 'Degraded' })] })))).toEqual(unready('SriovNetwork team-a/rail-a-net is not Ready'));
  });

  it('refuses a SriovNetwork without status or without conditions', () => {
    expect(judge(found(network({ status: undefined })))).toEqual(unready('SriovNetwork team-a/rail-a-net is not Ready'));
    expect(judge(found(network({ status: {} })))).toEqual(unready('SriovNetwork team-a/rail-a-net is not Ready'));
  });

  it('refuses a SriovNetwork whose Ready is False, quoting its reason and message', () => {
    const conditions = [readyCondition({ status: 'False', reason: 'NamespaceNotFound', message: 'namespace team-a is missing' })];
    expect(judge(found(network({ conditions })))).toEqual(
      unready('SriovNetwork team-a/rail-a-net is not Ready (NamespaceNotFound: namespace team-a is missing)'),
    );
  });

  it('refuses a Ready that is for an older generation than the object’s', () => {
    expect(judge(found(network({ metadata: { generation: 4 } })))).toEqual(
      unready('SriovNetwork team-a/rail-a-net Ready is for generation 3, the object is at generation 4'),
    );
  });

  it('reads an object without a generation as generation 0', () => {
    const ungenerated = network({ metadata: { generation: undefined }, conditions: [readyCondition({ observedGeneration: 0 })] });
    expect(judge(found(ungenerated), found(renderedNad(ungenerated)))).toEqual({ ok: true, nad: { name: 'rail-a-net', namespace: 'team-a' } });
  });

  it('refuses a SriovNetwork that does not render, with the renderer’s reason', () => {
    const elsewhere = network({ spec: { networkNamespace: 'team-b' } });
    expect(judge(found(elsewhere))).toEqual({
      ok: false,
      reason: 'SriovNetworkNotReady',
      message: expect.stringMatching(/^NetworkAttachmentDefinitionInvalid: SriovNetwork team-a\/rail-a-net spec\.networkNamespace: is allowed only/),
    });
  });
});

describe('judgeSource: the source NAD', () => {
  it('reads the NAD where the SriovNetwork renders it, not in the SriovNetwork’s namespace', () => {
    const operatorNetwork = network({ metadata: { namespace: 'sriov-network-operator' }, spec: { networkNamespace: 'team-b' } });
    const read: { namespace: string; name: string }[] = [];
    const result = judgeSource(
      { namespace: 'sriov-network-operator', name: 'rail-a-net' },
      found(operatorNetwork),
      (at) => {
        read.push(at);
        return found(renderedNad(operatorNetwork));
      },
      OPTIONS,
    );
    expect(read).toEqual([{ namespace: 'team-b', name: 'rail-a-net' }]);
    expect(result).toEqual({ ok: true, nad: { name: 'rail-a-net', namespace: 'team-b' } });
  });

  it('refuses a missing NAD', () => {
    expect(judge(found(network()), { kind: 'not-found' })).toEqual(nadUnready('source NAD team-a/rail-a-net of SriovNetwork team-a/rail-a-net does not exist'));
  });

  it('refuses when the operator may not read the NAD', () => {
    expect(judge(found(network()), { kind: 'forbidden', message: 'network-attachment-definitions is forbidden' })).toEqual({
      ok: false,
      reason: 'SourceAccessDenied',
      message: 'reading source NAD team-a/rail-a-net: network-attachment-definitions is forbidden',
    });
  });

  it('refuses a NAD being deleted', () => {
    expect(judge(found(network()), found(renderedNad(network(), { deletionTimestamp: '2026-01-01T00:00:00Z' })))).toEqual(
      nadUnready('source NAD team-a/rail-a-net is being deleted'),
    );
  });

  it.each([
    ['without annotations', undefined],
    ['with another SriovNetwork’s owner marker', { 'sriovnetwork.openshift.io/owner-ref': 'SriovNetwork.sriovnetwork.openshift.io/team-a/other' }],
  ])('refuses a NAD %s', (_case, annotations) => {
    expect(judge(found(network()), found(renderedNad(network(), { annotations })))).toEqual(
      nadUnready('source NAD team-a/rail-a-net does not carry the owner marker of SriovNetwork team-a/rail-a-net'),
    );
  });

  it('refuses a NAD whose config differs from the rendering, or has none', () => {
    const edited = renderedNad();
    const differs = nadUnready('source NAD team-a/rail-a-net differs from what SriovNetwork team-a/rail-a-net renders');
    expect(judge(found(network()), found({ ...edited, spec: { config: '{}' } }))).toEqual(differs);
    expect(judge(found(network()), found({ metadata: edited.metadata }))).toEqual(differs);
  });

  it('refuses a NAD in the same namespace owned by another SriovNetwork', () => {
    const ownerReferences = [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'configmap-uid' },
      { apiVersion: 'sriovnetwork.openshift.io/v1', kind: 'SriovNetwork', name: 'other', uid: 'other-uid' },
    ];
    expect(judge(found(network()), found(renderedNad(network(), { ownerReferences })))).toEqual(
      nadUnready('source NAD team-a/rail-a-net is owned by another SriovNetwork (UID other-uid)'),
    );
  });

  it('accepts owners of other kinds, and a NAD without ownerReferences', () => {
    const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'configmap-uid' }];
    const ok = { ok: true, nad: { name: 'rail-a-net', namespace: 'team-a' } };
    expect(judge(found(network()), found(renderedNad(network(), { ownerReferences })))).toEqual(ok);
    expect(judge(found(network()), found(renderedNad(network(), { ownerReferences: undefined })))).toEqual(ok);
  });

  it('ignores ownerReferences of a NAD in another namespace, which cannot point at the SriovNetwork', () => {
    const operatorNetwork = network({ metadata: { namespace: 'sriov-network-operator' }, spec: { networkNamespace: 'team-b' } });
    const ownerReferences = [{ apiVersion: 'sriovnetwork.openshift.io/v1', kind: 'SriovNetwork', name: 'other', uid: 'other-uid' }];
    const nad = renderedNad(operatorNetwork, { ownerReferences });
    expect(judgeSource({ namespace: 'sriov-network-operator', name: 'rail-a-net' }, found(operatorNetwork), () => found(nad), OPTIONS)).toEqual({
      ok: true,
      nad: { name: 'rail-a-net', namespace: 'team-b' },
    });
  });
});
