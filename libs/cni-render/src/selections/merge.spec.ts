import { describe, expect, it } from '@jest/globals';
import { type RegistryEntry, annotations, parseRegistry } from '@sriov-dra/contract';
import { CLAIM_A, CLAIM_B, POD, managed } from '../../test/managed.ts';
import { type MergeInput, mergeManagedSelections } from './merge.ts';

const vf0 = managed(CLAIM_A, '0000-03-00-1', 'dra0', 'rail-a-net');
const vf1 = managed(CLAIM_A, '0000-83-00-1', 'dra1', 'rail-b-net');
const vf2 = managed(CLAIM_B, '0000-03-00-2', 'dra2', 'rail-a-net');

/** The compact texts the merge is expected to publish, written out here rather than produced by the code under test. */
const selectionText = (entry: RegistryEntry): string => `{"name":"${entry.name}","namespace":"${entry.namespace}","interface":"${entry.interface}"}`;
const registryText = (...entries: RegistryEntry[]): string =>
  `{"version":1,"podUID":"${POD.uid}","entries":[${entries
    .map(
      (entry) =>
        `{"attachmentID":"${entry.attachmentID}","claimUID":"${entry.claimUID}","namespace":"${entry.namespace}","name":"${entry.name}","uid":"${entry.uid}","interface":"${entry.interface}","configSHA256":"${entry.configSHA256}"}`,
    )
    .join(',')}]}`;
const NETWORKS_KEY = 'k8s.v1.cni.cncf.io/networks';
const REGISTRY_KEY = 'sriovnetwork.k8snetworkplumbingwg.io/managed-networks';

const POD_REF = { kind: 'Pod', namespace: 'ai-workloads', name: 'gpu-pairs', uid: '11111111-2222-3333-4444-555555555555' };

function rejection(podAnnotations: Record<string, string> | undefined, desired: MergeInput['desired'], releasedClaims?: string[]) {
  const outcome = mergeManagedSelections({ pod: { ...POD, annotations: podAnnotations }, desired, releasedClaims });
  return outcome.ok ? 'merged' : { code: outcome.error.code, detail: outcome.error.detail, object: outcome.error.object };
}

function merge(podAnnotations: Record<string, string> | undefined, desired: MergeInput['desired'], releasedClaims?: string[]) {
  const result = mergeManagedSelections({ pod: { ...POD, annotations: podAnnotations }, desired, releasedClaims });
  if (!result.ok) throw result.error;
  return result.value;
}

function apply(base: Record<string, string>, result: { networks: string | null; registry: string | null }): Record<string, string> {
  const out = Object.fromEntries(Object.entries(base).filter(([key]) => key !== annotations.networks && key !== annotations.managedNetworks));
  if (result.networks !== null) out[annotations.networks] = result.networks;
  if (result.registry !== null) out[annotations.managedNetworks] = result.registry;
  return out;
}

describe('mergeManagedSelections', () => {
  it('appends managed entries to a Pod without annotations and writes the registry in the same order', () => {
    const result = merge(undefined, [vf0, vf1]);
    expect(result.changed).toBe(true);
    expect(JSON.parse(result.networks ?? '')).toEqual([
      { name: vf0.entry.name, namespace: 'ai-workloads', interface: 'dra0' },
      { name: vf1.entry.name, namespace: 'ai-workloads', interface: 'dra1' },
    ]);
    const registry = parseRegistry(result.registry ?? '');
    expect(registry.ok && registry.value.entries.map((entry) => entry.interface)).toEqual(['dra0', 'dra1']);
  });

  it('keeps foreign entries, their unknown fields, options and order, and appends after them', () => {
    const foreign = '[{"name":"storage","ips":["192.0.2.9/24"],"x-future":{"n":12345678901234567890}},{"namespace":"infra","name":"mgmt","interface":"mgmt0"}]';
    const result = merge({ [annotations.networks]: foreign, other: 'kept' }, [vf0]);
    expect(result.networks).toBe(`${foreign.slice(0, -1)},{"name":"${vf0.entry.name}","namespace":"ai-workloads","interface":"dra0"}]`);
  });

  it('converts comma notation to the equivalent objects when it must add entries', () => {
    const result = merge({ [annotations.networks]: 'storage, infra/mgmt@mgmt0' }, [vf0]);
    expect(JSON.parse(result.networks ?? '')).toEqual([
      { name: 'storage' },
      { name: 'mgmt', namespace: 'infra', interface: 'mgmt0' },
      { name: vf0.entry.name, namespace: 'ai-workloads', interface: 'dra0' },
    ]);
  });

  it('is idempotent: the same desired state changes nothing and returns the current text', () => {
    const first = merge({ [annotations.networks]: '[ {"name":"storage"} ]' }, [vf0, vf1]);
    const applied = apply({ [annotations.networks]: '[ {"name":"storage"} ]' }, first);
    const second = merge(applied, [vf0, vf1]);
    expect(second).toEqual({ changed: false, networks: applied[annotations.networks], registry: applied[annotations.managedNetworks] });
  });

  it('gives two VFs of one source template two entries', () => {
    const twin = managed(CLAIM_A, '0000-03-00-3', 'dra1', 'rail-a-net');
    const result = merge(undefined, [vf0, twin]);
    expect((JSON.parse(result.networks ?? '') as unknown[]).length).toBe(2);
  });

  it('refuses a manual selection of a template the driver attaches, naming the entry', () => {
    const outcome = mergeManagedSelections({ pod: { ...POD, annotations: { [annotations.networks]: 'rail-a-net@net1' } }, desired: [vf0] });
    expect(outcome.ok ? 'merged' : outcome.error.code).toBe('ManualSelectionConflictsWithManagedTemplate');
    if (!outcome.ok) expect(outcome.error.detail).toContain('ai-workloads/rail-a-net');
  });

  it('refuses an edited managed entry instead of adopting its options', () => {
    const applied = apply({}, merge(undefined, [vf0]));
    const edited = (applied[annotations.networks] ?? '').replace('"interface":"dra0"', '"interface":"dra0","mac":"02:00:00:00:00:01"');
    const outcome = mergeManagedSelections({ pod: { ...POD, annotations: { ...applied, [annotations.networks]: edited } }, desired: [vf0] });
    expect(outcome.ok ? 'merged' : outcome.error.code).toBe('ManagedSelectionConflict');
  });

  it('refuses a generated shadow name that the registry does not vouch for', () => {
    const outcome = mergeManagedSelections({
      pod: { ...POD, annotations: { [annotations.networks]: `[{"name":"${vf0.entry.name}","namespace":"ai-workloads","interface":"dra0"}]` } },
      desired: [vf0],
    });
    expect(outcome.ok ? 'merged' : outcome.error.code).toBe('ManagedSelectionConflict');
  });

  it('releases one claim: only its owned entries go, manual entries and other claims stay', () => {
    const base = { [annotations.networks]: '[{"name":"storage"}]' };
    const applied = apply(base, merge(base, [vf0, vf1, vf2]));
    const released = merge(applied, [vf2], [CLAIM_A]);
    expect(JSON.parse(released.networks ?? '')).toEqual([{ name: 'storage' }, { name: vf2.entry.name, namespace: 'ai-workloads', interface: 'dra2' }]);
    const registry = parseRegistry(released.registry ?? '');
    expect(registry.ok && registry.value.entries.map((entry) => entry.claimUID)).toEqual([CLAIM_B]);
    const last = merge(apply(applied, released), [], [CLAIM_B]);
    expect(last).toEqual({ changed: true, networks: '[{"name":"storage"}]', registry: null });
  });

  it('records a repaired shadow UID without moving the entry', () => {
    const applied = apply({}, merge(undefined, [vf0, vf1]));
    const repaired = { ...vf0, entry: { ...vf0.entry, uid: '0a1b2c3d-4e5f-4061-8273-94a5b6c7d8e9' } };
    const result = merge(applied, [repaired, vf1]);
    expect(result.networks).toBe(applied[annotations.networks]);
    const registry = parseRegistry(result.registry ?? '');
    expect(registry.ok && registry.value.entries[0]?.uid).toBe('0a1b2c3d-4e5f-4061-8273-94a5b6c7d8e9');
  });

  describe('a registry entry whose selection was removed from the networks annotation', () => {
    // The Pod as the driver left it: a manual entry, then vf0 and vf2 (two claims), recorded in the registry.
    const written = {
      [NETWORKS_KEY]: `[{"name":"storage"},${selectionText(vf0.entry)},${selectionText(vf2.entry)}]`,
      [REGISTRY_KEY]: registryText(vf0.entry, vf2.entry),
    };
    const withoutVf0 = { ...written, [NETWORKS_KEY]: `[{"name":"storage"},${selectionText(vf2.entry)}]` };

    it('is re-added after the remaining selections when its binding is still wanted, and the repair is stable', () => {
      expect(merge(written, [vf0, vf2]).changed).toBe(false);
      const repaired = merge(withoutVf0, [vf0, vf2]);
      expect(repaired).toEqual({
        changed: true,
        networks: `[{"name":"storage"},${selectionText(vf2.entry)},${selectionText(vf0.entry)}]`,
        registry: registryText(vf2.entry, vf0.entry),
      });
      expect(merge(apply(withoutVf0, repaired), [vf0, vf2]).changed).toBe(false);
    });

    it.each([
      ['another interface', { interface: 'dra7' }],
      ['another rendered config', { configSHA256: 'f'.repeat(64) }],
    ])('is not re-added when its checkpoint now records %s: the record and the checkpoint conflict', (_case, change) => {
      const outcome = mergeManagedSelections({ pod: { ...POD, annotations: withoutVf0 }, desired: [{ ...vf0, entry: { ...vf0.entry, ...change } }, vf2] });
      expect(outcome.ok ? 'merged' : outcome.error.code).toBe('ManagedSelectionConflict');
    });

    it('stays recorded, and is not re-added, while its claim is neither wanted nor released', () => {
      expect(merge(withoutVf0, [vf2])).toEqual({ changed: false, networks: withoutVf0[NETWORKS_KEY], registry: withoutVf0[REGISTRY_KEY] });
    });

    it('keeps its recorded place among the other entries', () => {
      const vf3 = managed(CLAIM_B, '0000-83-00-2', 'dra3', 'rail-d-net');
      const pod = {
        [NETWORKS_KEY]: `[${selectionText(vf2.entry)},${selectionText(vf3.entry)}]`,
        [REGISTRY_KEY]: registryText(vf2.entry, vf0.entry, vf3.entry),
      };
      expect(merge(pod, [vf2, vf3])).toEqual({ changed: false, networks: pod[NETWORKS_KEY], registry: pod[REGISTRY_KEY] });
      const vf4 = managed(CLAIM_B, '0000-83-00-3', 'dra4', 'rail-e-net');
      expect(merge(pod, [vf2, vf3, vf4]).registry).toBe(registryText(vf2.entry, vf0.entry, vf3.entry, vf4.entry));
    });

    it('goes when its claim is released', () => {
      expect(merge(withoutVf0, [vf2], [CLAIM_A])).toEqual({ changed: true, networks: withoutVf0[NETWORKS_KEY], registry: registryText(vf2.entry) });
    });
  });

  describe('the 256 KiB limit on all annotations together (keys plus values, in bytes)', () => {
    const LIMIT = 262_144;
    const published = { [NETWORKS_KEY]: `[${selectionText(vf0.entry)}]`, [REGISTRY_KEY]: registryText(vf0.entry) };
    const bytes = (text: string): number => new TextEncoder().encode(text).length;
    const fixed = Object.entries(published).reduce((total, [key, value]) => total + bytes(key) + bytes(value), 0) + bytes('padding');
    // Two-byte characters make a count of UTF-16 units fall short of the byte count.
    const padding = (total: number): Record<string, string> => ({ padding: 'é'.repeat(1000) + 'x'.repeat(total - fixed - 2000) });

    it('accepts a result of exactly the limit', () => {
      const pod = padding(LIMIT);
      expect(Object.entries({ ...pod, ...published }).reduce((total, [key, value]) => total + bytes(key) + bytes(value), 0)).toBe(LIMIT);
      expect(merge(pod, [vf0])).toEqual({ changed: true, ...{ networks: published[NETWORKS_KEY], registry: published[REGISTRY_KEY] } });
    });

    it('rejects a result one byte over it', () => {
      expect(rejection(padding(LIMIT + 1), [vf0])).toEqual({
        code: 'AnnotationTooLarge',
        detail: 'annotations would total 262145 bytes, over the 262144-byte limit',
        object: POD_REF,
      });
    });

    it('counts only what remains: a release that removes both annotations brings an oversized Pod under the limit', () => {
      const pod = { ...padding(LIMIT + 1), ...published };
      expect(merge(pod, [], [CLAIM_A])).toEqual({ changed: true, networks: null, registry: null });
    });
  });

  describe('a managed entry edited by hand', () => {
    const written = apply({}, merge(undefined, [vf0]));
    const withSelection = (text: string) => ({ ...written, [NETWORKS_KEY]: `[${text}]` });
    const { name } = vf0.entry;

    it.each([
      ['a field added', `{"name":"${name}","namespace":"ai-workloads","interface":"dra0","mac":"02:00:00:00:00:01"}`],
      ['the namespace swapped for another field', `{"name":"${name}","interface":"dra0","ips":["192.0.2.1/24"]}`],
      ['the interface swapped for another field', `{"name":"${name}","namespace":"ai-workloads","mac":"02:00:00:00:00:01"}`],
      ['the interface changed', `{"name":"${name}","namespace":"ai-workloads","interface":"dra9"}`],
      ['the name key respelled, which Multus still reads as the name', `{"Name":"${name}","namespace":"ai-workloads","interface":"dra0"}`],
      ['the namespace key respelled', `{"name":"${name}","Namespace":"ai-workloads","interface":"dra0"}`],
      ['the interface key respelled', `{"name":"${name}","namespace":"ai-workloads","Interface":"dra0"}`],
    ])('is refused when it has %s', (_case, text) => {
      expect(rejection(withSelection(text), [vf0])).toEqual({
        code: 'ManagedSelectionConflict',
        detail: `networks entry 0 (ai-workloads/${name}) differs from the generated selection or repeats it`,
        object: POD_REF,
      });
    });

    it('is refused when it appears twice', () => {
      expect(rejection(withSelection(`${selectionText(vf0.entry)},${selectionText(vf0.entry)}`), [vf0])).toEqual({
        code: 'ManagedSelectionConflict',
        detail: `networks entry 1 (ai-workloads/${name}) differs from the generated selection or repeats it`,
        object: POD_REF,
      });
    });

    it('is refused when its present selection is recorded with another interface or config than the checkpoint', () => {
      const moved = { ...vf0, entry: { ...vf0.entry, configSHA256: 'e'.repeat(64) } };
      expect(rejection(written, [moved])).toEqual({
        code: 'ManagedSelectionConflict',
        detail: `attachment ${vf0.entry.attachmentID} is recorded with another interface or config than its checkpoint`,
        object: POD_REF,
      });
    });

    it('is not confused with a selection of the same name in another namespace, which is foreign', () => {
      const foreign = `{"name":"${name}","namespace":"infra"}`;
      expect(merge(withSelection(`${foreign},${selectionText(vf0.entry)}`), [vf0])).toEqual({
        changed: false,
        networks: `[${foreign},${selectionText(vf0.entry)}]`,
        registry: written[REGISTRY_KEY],
      });
    });
  });

  describe("selections that are not the driver's", () => {
    it('keeps a generated-looking name in another namespace, or one no desired attachment has', () => {
      const elsewhere = `{"name":"${vf0.entry.name}","namespace":"infra"}`;
      const undesired = `{"name":"${vf1.entry.name}","namespace":"ai-workloads"}`;
      const result = merge({ [NETWORKS_KEY]: `[${elsewhere},${undesired}]` }, [vf0]);
      expect(result.networks).toBe(`[${elsewhere},${undesired},${selectionText(vf0.entry)}]`);
    });

    it('keeps a selection of a template name in another namespace', () => {
      const result = merge({ [NETWORKS_KEY]: 'infra/rail-a-net' }, [vf0]);
      expect(result.networks).toBe(`[{"name":"rail-a-net","namespace":"infra"},${selectionText(vf0.entry)}]`);
    });

    it.each([
      [
        'a generated shadow name without registry provenance',
        { [NETWORKS_KEY]: `[${selectionText(vf0.entry)}]` },
        'ManagedSelectionConflict',
        `networks entry 0 names generated shadow ${vf0.entry.name} without registry provenance`,
      ],
      [
        'the template of an automatic attachment',
        { [NETWORKS_KEY]: '[{"name":"storage"},{"name":"rail-a-net"}]' },
        'ManualSelectionConflictsWithManagedTemplate',
        `networks entry 1 selects ai-workloads/rail-a-net, the template the driver attaches automatically for attachment ${vf0.entry.attachmentID}`,
      ],
      [
        'an interface an appended entry needs',
        { [NETWORKS_KEY]: '[{"name":"storage","interface":"dra0"}]' },
        'DuplicateInterfaceName',
        'networks entries 0 and 1 both request interface dra0',
      ],
    ])('are refused when they hold %s', (_case, podAnnotations, code, detail) => {
      expect(rejection(podAnnotations, [vf0])).toEqual({ code, detail, object: POD_REF });
    });
  });

  it('refuses a claim that is both desired and released', () => {
    expect(rejection(undefined, [vf0], [CLAIM_A])).toEqual({
      code: 'ClaimReleaseInProgress',
      detail: `claim ${CLAIM_A} is both desired and released`,
      object: POD_REF,
    });
  });

  it('refuses a registry written for another Pod, naming the registry annotation', () => {
    const copied = { [REGISTRY_KEY]: '{"version":1,"podUID":"99999999-2222-3333-4444-555555555555","entries":[]}' };
    expect(rejection(copied, [vf0])).toEqual({
      code: 'InvalidManagedNetworksRegistry',
      detail: 'the registry was written for Pod UID 99999999-2222-3333-4444-555555555555; it was copied, not written for this Pod',
      object: POD_REF,
    });
    const unknown = mergeManagedSelections({
      pod: { ...POD, annotations: { [REGISTRY_KEY]: `{"version":2,"podUID":"${POD.uid}","entries":[]}` } },
      desired: [],
    });
    expect(unknown.ok ? 'merged' : unknown.error.object).toEqual({ ...POD_REF, field: `annotation ${REGISTRY_KEY}` });
  });

  it('refuses a new attachment on the interface of an entry still recorded for its release', () => {
    const recorded = { [REGISTRY_KEY]: registryText(vf0.entry) };
    const sameInterface = managed(CLAIM_B, '0000-03-00-7', 'dra0', 'rail-c-net');
    const outcome = mergeManagedSelections({ pod: { ...POD, annotations: recorded }, desired: [sameInterface] });
    expect(outcome.ok ? 'merged' : outcome.error.code).toBe('DuplicateSelectionIdentity');
  });

  it("replaces one claim's entry with another's in a list of the same length", () => {
    const vf3 = managed(CLAIM_B, '0000-83-00-2', 'dra3', 'rail-d-net');
    const pod = { [NETWORKS_KEY]: `[${selectionText(vf0.entry)},${selectionText(vf2.entry)}]`, [REGISTRY_KEY]: registryText(vf0.entry, vf2.entry) };
    expect(merge(pod, [vf2, vf3], [CLAIM_A])).toEqual({
      changed: true,
      networks: `[${selectionText(vf2.entry)},${selectionText(vf3.entry)}]`,
      registry: registryText(vf2.entry, vf3.entry),
    });
  });

  it('re-adds a removed selection and leaves the registry text exactly as written when its entries are unchanged', () => {
    // Spaces make the written text differ from what the merge would serialize.
    const spaced = registryText(vf0.entry).replace('"version":1', '"version": 1');
    const result = merge({ [NETWORKS_KEY]: '[{"name":"storage"}]', [REGISTRY_KEY]: spaced }, [vf0]);
    expect(result).toEqual({ changed: true, networks: `[{"name":"storage"},${selectionText(vf0.entry)}]`, registry: spaced });
  });

  it.each([
    ['a malformed networks annotation', { [annotations.networks]: '[{"name":' }, 'MalformedNetworkSelections'],
    ['an unknown registry version', { [annotations.managedNetworks]: `{"version":2,"podUID":"${POD.uid}","entries":[]}` }, 'UnsupportedRegistryVersion'],
    [
      'a registry copied from another Pod',
      { [annotations.managedNetworks]: '{"version":1,"podUID":"99999999-2222-3333-4444-555555555555","entries":[]}' },
      'InvalidManagedNetworksRegistry',
    ],
    ['a foreign entry on the same interface', { [annotations.networks]: '[{"name":"storage","interface":"dra0"}]' }, 'DuplicateInterfaceName'],
    ['annotations over 256 KiB', { big: 'x'.repeat(256 * 1024) }, 'AnnotationTooLarge'],
  ])('fails on %s and publishes nothing', (_case, podAnnotations, code) => {
    const outcome = mergeManagedSelections({ pod: { ...POD, annotations: podAnnotations }, desired: [vf0] });
    expect(outcome.ok ? 'merged' : outcome.error.code).toBe(code);
  });
});
