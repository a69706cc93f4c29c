import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { ATTACHMENT_PROTECTION_FINALIZER, type RegistryV1, annotations } from '@sriov-dra/contract';
import { type NetworkSelection, parseNetworkSelections } from '@sriov-dra/cni-render';
import { type GuardNad, type GuardPod, type NadReference, verifyManagedShadow, verifyRegistrySelections } from './managed-shadow-guard.ts';

// The render fixture of §14.2's rail-a-net (libs/contract/fixtures/render/spec-14-2-rail-a.json), literally.
const CONFIG =
  '{"cniVersion":"1.0.0","name":"ai-workloads-rail-a","type":"sriov","ipam":{"type":"whereabouts","network_name":"ai-workloads-rail-a","range":"192.0.2.0/24","range_start":"192.0.2.10","range_end":"192.0.2.200"},"deviceID":"0000:03:00.1"}';
const CONFIG_SHA256 = 'bdc5c7364e6c91e9a33809ec1d938eef5aa7c26c43c3780694807c2e49fbd5e4';
const ATTACHMENT_ID = '71179501bb6cd083245331b0ff5857fa31e1b3479ee5e9985da63f7c301d31cc';
const SHADOW = 'dra-sriov-71179501bb6cd083245331b0ff5857fa';
const SHADOW_UID = '4f3e2d1c-0b9a-4877-9665-5443322110ff';
const POD_UID = '11111111-2222-3333-4444-555555555555';

const pod: GuardPod = { metadata: { name: 'trainer', namespace: 'ai-workloads', uid: POD_UID }, spec: { nodeName: 'worker-a' } };

function binding(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    version: 1,
    attachmentID: ATTACHMENT_ID,
    podUID: POD_UID,
    claimUID: 'a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607',
    nodeName: 'worker-a',
    nodeUID: '6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40',
    source: { namespace: 'ai-workloads', name: 'rail-a-net', uid: '9e8d7c6b-5a49-4382-a716-0f1e2d3c4b5a', resourceVersion: '48213' },
    pciAddress: '0000:03:00.1',
    interface: 'dra0',
    configSHA256: CONFIG_SHA256,
    ...overrides,
  });
}

interface ShadowOptions {
  readonly binding?: string;
  readonly namespace?: string;
  readonly finalizers?: readonly string[];
  readonly deletionTimestamp?: string;
  readonly ownerUID?: string | null;
  /** The whole ownerReferences list, instead of the one reference to ownerUID. */
  readonly owners?: readonly { apiVersion: string; kind: string; name: string; uid: string }[];
  readonly extraAnnotations?: Record<string, string>;
  readonly config?: string;
}

function shadow(options: ShadowOptions = {}): GuardNad {
  const ownerUID = options.ownerUID === undefined ? POD_UID : options.ownerUID;
  return {
    metadata: {
      name: SHADOW,
      namespace: options.namespace ?? 'ai-workloads',
      uid: SHADOW_UID,
      annotations: { [annotations.binding]: options.binding ?? binding(), ...options.extraAnnotations },
      finalizers: options.finalizers ?? [ATTACHMENT_PROTECTION_FINALIZER],
      ...(options.deletionTimestamp === undefined ? {} : { deletionTimestamp: options.deletionTimestamp }),
      ...(options.owners !== undefined
        ? { ownerReferences: options.owners }
        : ownerUID === null
          ? {}
          : { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'trainer', uid: ownerUID }] }),
    },
    spec: { config: options.config ?? CONFIG },
  };
}

function selection(annotation = `[{"name":"${SHADOW}","namespace":"ai-workloads","interface":"dra0"}]`): NetworkSelection {
  const parsed = parseNetworkSelections(annotation, 'ai-workloads');
  if (!parsed.ok || parsed.value[0] === undefined) throw new Error(`test selection does not parse: ${annotation}`);
  return parsed.value[0];
}

const registry: RegistryV1 = {
  version: 1,
  podUID: POD_UID,
  entries: [
    {
      attachmentID: ATTACHMENT_ID,
      claimUID: 'a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607',
      namespace: 'ai-workloads',
      name: SHADOW,
      uid: SHADOW_UID,
      interface: 'dra0',
      configSHA256: CONFIG_SHA256,
    },
  ],
};

function reached(nad: GuardNad, reference: NadReference, withRegistry: RegistryV1 | null = registry, forPod: GuardPod = pod): string {
  const result = verifyManagedShadow(forPod, nad, reference, withRegistry);
  if (!result.ok) return result.error.code;
  return result.value === null ? 'ordinary' : `verified ${result.value.binding.attachmentID.slice(0, 8)} ${String(result.value.config.length)} bytes`;
}

function outcome(nad: GuardNad, selected = selection(), withRegistry: RegistryV1 | null = registry, forPod: GuardPod = pod): string {
  return reached(nad, { role: 'selection', selection: selected }, withRegistry, forPod);
}

/** The refusal's code and detail, for the cases whose message matters. */
function refusal(nad: GuardNad, withRegistry: RegistryV1 | null = registry): string {
  const result = verifyManagedShadow(pod, nad, { role: 'selection', selection: selection() }, withRegistry);
  return result.ok ? 'accepted' : `${result.error.code}: ${result.error.detail}`;
}

/** A shadow carrying `config` and a binding that records its hash, as a driver of any release would write it. */
function shadowWithConfig(config: string): GuardNad {
  return shadow({ config, binding: binding({ configSHA256: createHash('sha256').update(config, 'utf8').digest('hex') }) });
}

describe('verifyManagedShadow', () => {
  it('passes a healthy shadow of this Pod and hands back its exact frozen configuration', () => {
    const result = verifyManagedShadow(pod, shadow(), { role: 'selection', selection: selection() }, registry);
    expect(result.ok && result.value?.config).toBe(CONFIG);
    expect(outcome(shadow(), selection(), null)).toBe('verified 71179501 235 bytes');
  });

  it('leaves an ordinary NAD alone, resourceName and all', () => {
    const nad: GuardNad = { metadata: { name: 'rail-a-net', namespace: 'ai-workloads', uid: 'u', annotations: { [annotations.resourceName]: 'x' } } };
    expect(outcome(nad, selection('ai-workloads/rail-a-net'))).toBe('ordinary');
  });

  it('rejects an unknown binding version', () => {
    expect(outcome(shadow({ binding: binding({ version: 2 }) }))).toBe('UnsupportedBindingVersion');
  });

  it('rejects a shadow bound to another Pod, by annotation or by ownerReference', () => {
    expect(outcome(shadow({ binding: binding({ podUID: '99999999-2222-3333-4444-555555555555' }) }), selection(), null)).toBe('ManagedShadowMismatch');
    expect(outcome(shadow({ ownerUID: '99999999-2222-3333-4444-555555555555' }), selection(), null)).toBe('ManagedShadowMismatch');
    expect(outcome(shadow({ ownerUID: null }), selection(), null)).toBe('ManagedShadowMismatch');
  });

  it('considers every Pod ownerReference: a foreign Pod anywhere is named, and the bound Pod must own it exactly once', () => {
    const bound = { apiVersion: 'v1', kind: 'Pod', name: 'trainer', uid: POD_UID };
    const intruder = { apiVersion: 'v1', kind: 'Pod', name: 'intruder', uid: '99999999-2222-3333-4444-555555555555' };
    const foreign = 'ManagedShadowMismatch: ownerReferences[1] names foreign Pod intruder (UID 99999999-2222-3333-4444-555555555555)';
    expect(refusal(shadow({ owners: [bound, intruder] }), null)).toContain(foreign);
    expect(refusal(shadow({ owners: [intruder, bound] }), null)).toContain(foreign.replace('[1]', '[0]'));
    // Another group's kind Pod is no core Pod, but it still names something other than the bound Pod.
    expect(refusal(shadow({ owners: [bound, { ...intruder, apiVersion: 'example.com/v1' }] }), null)).toContain('names foreign Pod intruder');
    expect(refusal(shadow({ owners: [{ ...bound, apiVersion: 'example.com/v1' }] }), null)).toContain(
      'ownerReferences[0] names the bound Pod with apiVersion example.com/v1, not v1',
    );
    expect(refusal(shadow({ owners: [bound, bound] }), null)).toContain(
      'names its bound Pod ai-workloads/trainer (UID 11111111-2222-3333-4444-555555555555) 2 times',
    );
    expect(refusal(shadow({ owners: [] }), null)).toContain('has no ownerReference to its bound Pod');
    // Owners of other kinds are not Pods and are left alone.
    const other = { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', name: 'pairs', uid: '0a1b2c3d-4e5f-4061-8273-94a5b6c7d8e9' };
    expect(outcome(shadow({ owners: [other, bound] }), selection(), null)).toBe('verified 71179501 235 bytes');
  });

  it('refuses a shadow reached as the cluster network, a defaultNetworks entry or the default-network override', () => {
    const refused = (reference: NadReference, nad = shadow()): string => {
      const result = verifyManagedShadow(pod, nad, reference, registry);
      return result.ok ? 'accepted' : `${result.error.code}: ${result.error.detail}`;
    };
    expect(refused({ role: 'master' })).toBe(
      `ManagedShadowAsDefaultNetwork: is the daemon configuration\u2019s clusterNetwork; it is a driver-generated shadow (attachment ${ATTACHMENT_ID})`,
    );
    expect(refused({ role: 'default' })).toContain('ManagedShadowAsDefaultNetwork: is named in the daemon configuration\u2019s defaultNetworks');
    expect(refused({ role: 'master', selection: selection() })).toContain(
      'ManagedShadowAsDefaultNetwork: is named by the Pod\u2019s v1.multus-cni.io/default-network annotation',
    );
    // Refused as such even when everything else about it is in order for this Pod, or when it is another Pod's.
    expect(refused({ role: 'default' }, shadow({ ownerUID: '99999999-2222-3333-4444-555555555555' }))).toMatch(/^ManagedShadowAsDefaultNetwork/);
    // An ordinary NAD stays ordinary in every role.
    const ordinary: GuardNad = { metadata: { name: 'primary', namespace: 'kube-system', uid: 'u' }, spec: { config: '{}' } };
    expect([reached(ordinary, { role: 'master' }), reached(ordinary, { role: 'default' })]).toEqual(['ordinary', 'ordinary']);
  });

  it('rejects a shadow bound to another node', () => {
    expect(outcome(shadow(), selection(), null, { ...pod, spec: { nodeName: 'worker-b' } })).toBe('ManagedShadowMismatch');
  });

  it('rejects a shadow outside the Pod namespace', () => {
    const elsewhere = selection(`[{"name":"${SHADOW}","namespace":"other","interface":"dra0"}]`);
    expect(outcome(shadow({ namespace: 'other' }), elsewhere, null)).toBe('ManagedShadowMismatch');
  });

  it('rejects a deleting or unprotected shadow as not ready', () => {
    expect(outcome(shadow({ deletionTimestamp: '2026-11-30T12:00:00Z' }))).toBe('ManagedShadowNotReady');
    expect(outcome(shadow({ finalizers: [] }))).toBe('ManagedShadowNotReady');
    expect(outcome(shadow({ finalizers: ['example.com/other'] }))).toBe('ManagedShadowNotReady');
  });

  it('rejects a shadow that carries the resourceName key, even empty', () => {
    expect(outcome(shadow({ extraAnnotations: { [annotations.resourceName]: '' } }))).toBe('ManagedShadowNotReady');
  });

  it('rejects any edit of spec.config, whitespace included', () => {
    expect(outcome(shadow({ config: `${CONFIG} ` }))).toBe('ManagedShadowMismatch');
  });

  it('rejects a configuration whose recorded hash matches but whose deviceID is not the bound VF', () => {
    // Configuration and recorded hash both describe another VF: only the PCI comparison can catch it.
    const other = CONFIG.replace('0000:03:00.1', '0000:03:00.2');
    const sha = 'd55a22e6a80365e125be75003b0c502c04a2e11ef69d49365f04c5ef809c7bf0';
    expect(outcome(shadow({ config: other, binding: binding({ configSHA256: sha }) }), selection(), null)).toBe('ManagedShadowMismatch');
  });

  it('reads deviceID as Go does: a "DeviceID" spelling is not accepted as the bound VF', () => {
    const folded = CONFIG.replace('"deviceID"', '"DeviceID"');
    const sha = '977943e167c9d552412d627b73f7f6c14fee3d3366fa984ad14d20c6f17923bc';
    expect(outcome(shadow({ config: folded, binding: binding({ configSHA256: sha }) }), selection(), null)).toBe('ManagedShadowMismatch');
  });

  it('accepts any bytes whose hash the binding records and whose meaning is the bound VF, as another release may write them', () => {
    // Go's encoder escapes & < > as \u0026 \u003c \u003e; MarshalIndent indents; an escaped digit decodes as Go decodes it.
    const goWritten =
      '{\n  "cniVersion": "1.0.0",\n  "ipam": {\n    "range": "192.0.2.0/24",\n    "type": "whereabouts"\n  },\n' +
      '  "name": "ai-workloads-rail-a",\n  "note": "rail \\u003ca\\u003e \\u0026 b",\n  "deviceID": "\\u0030000:03:00.1",\n  "type": "sriov"\n}';
    expect(goWritten).toContain('"\\u0030000:03:00.1"');
    const accepted = verifyManagedShadow(pod, shadowWithConfig(goWritten), { role: 'selection', selection: selection() }, null);
    expect(accepted.ok && accepted.value?.config).toBe(goWritten);
    // The same bytes under a binding that records another hash.
    expect(refusal(shadow({ config: goWritten }), null)).toMatch(
      /^ManagedShadowMismatch: spec\.config hashes to [0-9a-f]{64}, not the bound configSHA256 bdc5c736/,
    );
  });

  it.each([
    [
      'two sriov entries',
      '{"cniVersion":"1.0.0","name":"r","plugins":[{"type":"sriov","deviceID":"0000:03:00.1"},{"type":"sriov","deviceID":"0000:03:00.1"}]}',
      'has 2 sriov plugin entries',
    ],
    [
      'a metaplugin off the allowlist',
      '{"cniVersion":"1.0.0","name":"r","plugins":[{"type":"sriov","deviceID":"0000:03:00.1"},{"type":"bridge"}]}',
      'chains "bridge" at plugins[1]; only tuning may follow sriov',
    ],
    [
      'the deviceID of another VF',
      CONFIG.replace('0000:03:00.1', '0000:03:00.2'),
      'hands the sriov plugin deviceID "0000:03:00.2", not the bound VF 0000:03:00.1',
    ],
  ])('refuses, with the hash recorded, %s', (_case, config, message) => {
    expect(refusal(shadowWithConfig(config), null)).toContain(`ManagedShadowMismatch: spec.config ${message}`);
  });

  it('rejects a managed selection that overrides the binding with options or another interface', () => {
    expect(outcome(shadow(), selection(`[{"name":"${SHADOW}","namespace":"ai-workloads","interface":"dra0","deviceID":"0000:03:00.2"}]`))).toBe(
      'ManagedShadowMismatch',
    );
    expect(outcome(shadow(), selection(`[{"name":"${SHADOW}","namespace":"ai-workloads","interface":"dra0","mac":"02:00:00:00:00:01"}]`))).toBe(
      'ManagedShadowMismatch',
    );
    expect(outcome(shadow(), selection(`[{"name":"${SHADOW}","namespace":"ai-workloads","interface":"dra1"}]`))).toBe('ManagedShadowMismatch');
    expect(outcome(shadow(), selection(`ai-workloads/${SHADOW}`))).toBe('ManagedShadowMismatch');
  });

  it('cross-checks the Pod registry: the entry must exist and record this UID, hash and interface', () => {
    const entry = registry.entries[0];
    if (entry === undefined) throw new Error('registry fixture has no entry');
    expect(outcome(shadow(), selection(), { ...registry, entries: [] })).toBe('ManagedShadowMismatch');
    expect(outcome(shadow(), selection(), { ...registry, entries: [{ ...entry, uid: '0a1b2c3d-4e5f-4061-8273-94a5b6c7d8e9' }] })).toBe('ManagedShadowMismatch');
    expect(outcome(shadow(), selection(), { ...registry, entries: [{ ...entry, configSHA256: 'e'.repeat(64) }] })).toBe('ManagedShadowMismatch');
    expect(outcome(shadow(), selection(), { ...registry, entries: [{ ...entry, interface: 'dra1' }] })).toBe('ManagedShadowMismatch');
  });

  it('cross-checks the claim UID the registry records for the attachment with the binding', () => {
    const entry = registry.entries[0];
    if (entry === undefined) throw new Error('registry fixture has no entry');
    expect(refusal(shadow(), { ...registry, entries: [{ ...entry, claimUID: '0a1b2c3d-4e5f-4061-8273-94a5b6c7d8e9' }] })).toBe(
      "ManagedShadowMismatch: is bound to claim UID a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607, but the Pod's sriovnetwork.k8snetworkplumbingwg.io/managed-networks registry records claim UID 0a1b2c3d-4e5f-4061-8273-94a5b6c7d8e9",
    );
  });
});

describe('verifyManagedShadow refusals', () => {
  const other = '0a1b2c3d-4e5f-4061-8273-94a5b6c7d8e9';
  const entry = registry.entries[0];
  if (entry === undefined) throw new Error('registry fixture has no entry');
  const withEntry = (changes: Record<string, string>): RegistryV1 => ({ ...registry, entries: [{ ...entry, ...changes }] });
  const selected = (members: string): NetworkSelection => selection(`[{"name":"${SHADOW}","namespace":"ai-workloads"${members}}]`);
  const refused = (nad: GuardNad, selected_: NetworkSelection, withRegistry: RegistryV1 | null, forPod: GuardPod = pod): unknown => {
    const result = verifyManagedShadow(forPod, nad, { role: 'selection', selection: selected_ }, withRegistry);
    return result.ok ? 'accepted' : [result.error.code, result.error.detail, result.error.object];
  };
  const at = { kind: 'NetworkAttachmentDefinition', namespace: 'ai-workloads', name: SHADOW, uid: SHADOW_UID };

  it('names the shadow and says what is wrong with it, in the words an operator reads', () => {
    const cases: [GuardNad, NetworkSelection, RegistryV1 | null, GuardPod, string, string][] = [
      [
        shadow({ binding: binding({ podUID: '99999999-2222-3333-4444-555555555555' }) }),
        selection(),
        null,
        pod,
        'ManagedShadowMismatch',
        `is bound to Pod UID 99999999-2222-3333-4444-555555555555, not to Pod ai-workloads/trainer (UID ${POD_UID})`,
      ],
      [
        shadow(),
        selection(),
        null,
        { ...pod, spec: { nodeName: 'worker-b' } },
        'ManagedShadowMismatch',
        'is bound to node worker-a, but Pod ai-workloads/trainer (UID 11111111-2222-3333-4444-555555555555) runs on worker-b',
      ],
      [
        shadow(),
        selection(),
        null,
        { ...pod, spec: {} },
        'ManagedShadowMismatch',
        `is bound to node worker-a, but Pod ai-workloads/trainer (UID ${POD_UID}) runs on no node`,
      ],
      [
        shadow({ deletionTimestamp: '2026-11-30T12:00:00Z' }),
        selection(),
        null,
        pod,
        'ManagedShadowNotReady',
        'is being deleted (deletionTimestamp 2026-11-30T12:00:00Z)',
      ],
      [
        shadow({ finalizers: [] }),
        selection(),
        null,
        pod,
        'ManagedShadowNotReady',
        `lacks the ${ATTACHMENT_PROTECTION_FINALIZER} finalizer that keeps its VF bound until release`,
      ],
      [
        shadow({ extraAnnotations: { [annotations.resourceName]: '' } }),
        selection(),
        null,
        pod,
        'ManagedShadowNotReady',
        `carries ${annotations.resourceName}; a shadow names its VF in spec.config and must not enter device-plugin lookup`,
      ],
      [
        shadow(),
        selected(',"interface":"dra0","mac":"02:00:00:00:00:01","ips":["192.0.2.5/24"]'),
        null,
        pod,
        'ManagedShadowMismatch',
        'is selected with overriding options mac, ips; a managed selection carries only name, namespace and interface',
      ],
      [shadow(), selected(',"interface":"dra1"'), null, pod, 'ManagedShadowMismatch', 'is selected for interface dra1, but is bound to dra0'],
      [shadow(), selected(''), null, pod, 'ManagedShadowMismatch', 'is selected for interface (default), but is bound to dra0'],
      [
        shadow(),
        selection(),
        { ...registry, entries: [] },
        pod,
        'ManagedShadowMismatch',
        `is not recorded in Pod ai-workloads/trainer (UID ${POD_UID})'s ${annotations.managedNetworks} registry`,
      ],
      [
        shadow(),
        selection(),
        withEntry({ uid: other }),
        pod,
        'ManagedShadowMismatch',
        `has UID ${SHADOW_UID}, but the Pod's registry records ${other}: the shadow was replaced`,
      ],
      [
        shadow(),
        selection(),
        withEntry({ attachmentID: 'f'.repeat(64) }),
        pod,
        'ManagedShadowMismatch',
        `disagrees with its entry in the Pod's ${annotations.managedNetworks} registry`,
      ],
    ];
    for (const [nad, selected_, withRegistry, forPod, code, detail] of cases) expect(refused(nad, selected_, withRegistry, forPod)).toEqual([code, detail, at]);
  });

  it('refuses a shadow reached without a selection as the cluster network, naming it', () => {
    const result = verifyManagedShadow(pod, shadow(), { role: 'selection' }, registry);
    expect(result.ok ? 'accepted' : [result.error.code, result.error.object]).toEqual(['ManagedShadowAsDefaultNetwork', at]);
  });

  it('reads a shadow without finalizers as unprotected', () => {
    const bare = shadow();
    expect(outcome({ ...bare, metadata: { ...bare.metadata, finalizers: undefined } })).toBe('ManagedShadowNotReady');
  });

  it('names a Pod in no namespace as such', () => {
    const podInNone: GuardPod = { metadata: { name: 'trainer', uid: POD_UID }, spec: { nodeName: 'worker-b' } };
    expect(refused(shadow(), selection(), null, podInNone)).toEqual([
      'ManagedShadowMismatch',
      `is bound to node worker-a, but Pod /trainer (UID ${POD_UID}) runs on worker-b`,
      at,
    ]);
  });

  it('finds the registry entry by the shadow name and namespace together', () => {
    // The entry of a same-named shadow in another namespace, or of another shadow in this one, is no entry for this one.
    expect(outcome(shadow(), selection(), withEntry({ namespace: 'other' }))).toBe('ManagedShadowMismatch');
    expect(outcome(shadow(), selection(), withEntry({ name: 'dra-sriov-8dd60903e917c99a2954bc971df83a01' }))).toBe('ManagedShadowMismatch');
    // Found among other entries, whatever its position.
    const second = { ...entry, name: 'dra-sriov-8dd60903e917c99a2954bc971df83a01', uid: other };
    expect(outcome(shadow(), selection(), { ...registry, entries: [second, entry] })).toBe('verified 71179501 235 bytes');
  });

  it('names a shadow in no namespace, for a Pod in none, without inventing one', () => {
    const bare = shadow();
    const nad: GuardNad = { ...bare, metadata: { ...bare.metadata, namespace: undefined } };
    expect(refused(nad, selection(), null)).toEqual([
      'ManagedShadowMismatch',
      'lives in namespace (none); a shadow serves only a Pod of its own namespace ai-workloads',
      { ...at, namespace: undefined },
    ]);
    const podInNone: GuardPod = { ...pod, metadata: { name: 'trainer', uid: POD_UID } };
    expect(refused(shadow(), selection(), null, podInNone)).toEqual([
      'ManagedShadowMismatch',
      'lives in namespace ai-workloads; a shadow serves only a Pod of its own namespace ',
      at,
    ]);
  });
});

describe('verifyRegistrySelections', () => {
  const selections = (annotation: string): NetworkSelection[] => {
    const parsed = parseNetworkSelections(annotation, 'ai-workloads');
    if (!parsed.ok) throw new Error(parsed.error.message);
    return parsed.value;
  };
  const code = (list: readonly NetworkSelection[], withRegistry: RegistryV1 | null = registry): string => {
    const result = verifyRegistrySelections(pod, withRegistry, list);
    return result.ok ? 'ok' : result.error.code;
  };

  it('accepts each recorded entry selected exactly once, next to ordinary selections', () => {
    expect(code(selections(`ai-workloads/rail-x,ai-workloads/${SHADOW}@dra0`))).toBe('ok');
    expect(code(selections('ai-workloads/rail-x'), null)).toBe('ok');
  });

  it('rejects a recorded entry that is not selected, or selected twice', () => {
    expect(code(selections('ai-workloads/rail-x'))).toBe('ManagedShadowMismatch');
    expect(code(selections(`ai-workloads/${SHADOW}@dra0,${SHADOW}@dra1`))).toBe('ManagedShadowMismatch');
  });
});

describe('verifyRegistrySelections refusals', () => {
  it('counts selections by name and namespace together and names the Pod and the entry', () => {
    const elsewhere = parseNetworkSelections(`other/${SHADOW}@dra0`, 'ai-workloads');
    if (!elsewhere.ok) throw new Error(elsewhere.error.message);
    const result = verifyRegistrySelections(pod, registry, elsewhere.value);
    expect(result.ok ? 'accepted' : [result.error.code, result.error.detail, result.error.object]).toEqual([
      'ManagedShadowMismatch',
      `the managed network ai-workloads/${SHADOW} (attachment ${ATTACHMENT_ID}) is selected 0 times; it must be selected exactly once`,
      { kind: 'Pod', namespace: 'ai-workloads', name: 'trainer', uid: POD_UID },
    ]);
  });
});
