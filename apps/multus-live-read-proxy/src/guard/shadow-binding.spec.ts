import { describe, expect, it } from '@jest/globals';
import { annotations } from '@sriov-dra/contract';
import { expectsValid, loadFixtures, rawInput } from '@sriov-dra/contract/fixtures';
import { readPodRegistry } from './pod-registry.ts';
import { readShadowBinding } from './shadow-binding.ts';

const binding = loadFixtures('binding-annotation').find((fixture) => fixture.id === 'binding-annotation/rail-a');
const registry = loadFixtures('managed-networks-registry').find((fixture) => fixture.id === 'managed-networks-registry/two-rails');
if (binding === undefined || registry === undefined || !expectsValid(binding)) throw new Error('fixtures missing');

describe('readShadowBinding', () => {
  it('leaves an ordinary NAD alone', () => {
    expect(readShadowBinding({ metadata: { name: 'rail-a-net', namespace: 'ai-workloads', annotations: {} } })).toEqual({ ok: true, value: null });
  });

  it('accepts the binding on the NAD named after its attachmentID', () => {
    const result = readShadowBinding({
      metadata: { name: 'dra-sriov-71179501bb6cd083245331b0ff5857fa', namespace: 'ai-workloads', annotations: { [annotations.binding]: rawInput(binding) } },
    });
    expect(result.ok ? result.value?.attachmentID : result.error.message).toBe('71179501bb6cd083245331b0ff5857fa31e1b3479ee5e9985da63f7c301d31cc');
  });

  it('refuses a binding copied onto a NAD whose name does not derive from it', () => {
    const result = readShadowBinding({
      metadata: { name: 'dra-sriov-00000000000000000000000000000000', namespace: 'ai-workloads', annotations: { [annotations.binding]: rawInput(binding) } },
    });
    expect(result.ok ? 'accepted' : result.error.code).toBe('ManagedShadowMismatch');
  });
});

describe('readPodRegistry', () => {
  const raw = rawInput(registry);
  // The Pod UID the fixture was written for, stated literally rather than read back from the registry.
  const podUID = '11111111-2222-3333-4444-555555555555';

  it('accepts the registry of this Pod and reports absence as null', () => {
    const read = readPodRegistry({ metadata: { name: 'p', namespace: 'ai-workloads', uid: podUID, annotations: { [annotations.managedNetworks]: raw } } });
    expect(read.ok ? read.value?.entries.map((entry) => entry.name) : read.error.message).toEqual([
      'dra-sriov-71179501bb6cd083245331b0ff5857fa',
      'dra-sriov-8dd60903e917c99a2954bc971df83a01',
    ]);
    expect(readPodRegistry({ metadata: { name: 'p', namespace: 'ai-workloads', uid: podUID } })).toEqual({ ok: true, value: null });
  });

  it('reads an empty annotation value as a malformed registry, not as no registry', () => {
    const result = readPodRegistry({ metadata: { name: 'p', namespace: 'ai-workloads', uid: podUID, annotations: { [annotations.managedNetworks]: '' } } });
    expect(result.ok ? 'accepted' : result.error.code).toBe('InvalidManagedNetworksRegistry');
  });

  it('refuses a registry copied from another Pod', () => {
    const result = readPodRegistry({
      metadata: { name: 'p', namespace: 'ai-workloads', uid: '99999999-2222-3333-4444-555555555555', annotations: { [annotations.managedNetworks]: raw } },
    });
    expect(result.ok ? 'accepted' : result.error.code).toBe('ManagedShadowMismatch');
    if (!result.ok) expect(result.error.message).toContain('Pod ai-workloads/p');
  });
});

describe('readShadowBinding and readPodRegistry refusals', () => {
  const shadowName = 'dra-sriov-71179501bb6cd083245331b0ff5857fa';

  it('name the NAD and the annotation at fault', () => {
    const copied = readShadowBinding({
      metadata: { name: 'dra-sriov-00000000000000000000000000000000', namespace: 'ai-workloads', annotations: { [annotations.binding]: rawInput(binding) } },
    });
    expect(copied.ok ? 'accepted' : [copied.error.detail, copied.error.object]).toEqual([
      `name does not derive from attachmentID 71179501bb6cd083245331b0ff5857fa31e1b3479ee5e9985da63f7c301d31cc (expected ${shadowName})`,
      { kind: 'NetworkAttachmentDefinition', namespace: 'ai-workloads', name: 'dra-sriov-00000000000000000000000000000000' },
    ]);
    const malformed = readShadowBinding({ metadata: { name: shadowName, namespace: 'ai-workloads', annotations: { [annotations.binding]: '{' } } });
    expect(malformed.ok ? 'accepted' : malformed.error.object).toEqual({
      kind: 'NetworkAttachmentDefinition',
      namespace: 'ai-workloads',
      name: shadowName,
      field: `annotation ${annotations.binding}`,
    });
  });

  it('name the Pod, the registry annotation and the UID it was written for', () => {
    const podUID = '99999999-2222-3333-4444-555555555555';
    const copied = readPodRegistry({
      metadata: { name: 'p', namespace: 'ai-workloads', uid: podUID, annotations: { [annotations.managedNetworks]: rawInput(registry) } },
    });
    expect(copied.ok ? 'accepted' : copied.error.detail).toBe('registry was written for Pod UID 11111111-2222-3333-4444-555555555555');
    const malformed = readPodRegistry({ metadata: { name: 'p', namespace: 'ai-workloads', uid: podUID, annotations: { [annotations.managedNetworks]: '{' } } });
    expect(malformed.ok ? 'accepted' : malformed.error.object).toEqual({
      kind: 'Pod',
      namespace: 'ai-workloads',
      name: 'p',
      uid: podUID,
      field: `annotation ${annotations.managedNetworks}`,
    });
  });
});
