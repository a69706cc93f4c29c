import { describe, expect, it } from '@jest/globals';
import { ATTACHMENT_PROTECTION_FINALIZER, type RegistryV1, annotations } from '@sriov-dra/contract';
import { type NetworkSelection, parseNetworkSelections } from '@sriov-dra/cni-render';
import { type GuardNad, type GuardPod, verifyManagedShadow, verifyRegistrySelections } from './managed-shadow-guard.ts';

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
      ...(ownerUID === null ? {} : { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', uid: ownerUID }] }),
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

function outcome(nad: GuardNad, selected = selection(), withRegistry: RegistryV1 | null = registry, forPod: GuardPod = pod): string {
  const result = verifyManagedShadow(forPod, { nad, selection: selected }, withRegistry);
  if (!result.ok) return result.error.code;
  return result.value === null ? 'ordinary' : `verified ${result.value.binding.attachmentID.slice(0, 8)} ${String(result.value.config.length)} bytes`;
}

describe('verifyManagedShadow', () => {
  it('passes a healthy shadow of this Pod and hands back its exact frozen configuration', () => {
    const result = verifyManagedShadow(pod, { nad: shadow(), selection: selection() }, registry);
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
