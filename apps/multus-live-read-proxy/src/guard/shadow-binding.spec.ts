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

  it('refuses a binding copied onto a NAD whose name does not derive from it', () => {
    const result = readShadowBinding({
      metadata: { name: 'dra-sriov-00000000000000000000000000000000', namespace: 'ai-workloads', annotations: { [annotations.binding]: rawInput(binding) } },
    });
    expect(result.ok ? 'accepted' : result.error.code).toBe('ManagedShadowMismatch');
  });
});

describe('readPodRegistry', () => {
  const raw = rawInput(registry);
  const podUID = (JSON.parse(raw) as { podUID: string }).podUID;

  it('accepts the registry of this Pod and reports absence as null', () => {
    expect(readPodRegistry({ metadata: { name: 'p', namespace: 'ai-workloads', uid: podUID, annotations: { [annotations.managedNetworks]: raw } } }).ok).toBe(
      true,
    );
    expect(readPodRegistry({ metadata: { name: 'p', namespace: 'ai-workloads', uid: podUID } })).toEqual({ ok: true, value: null });
  });

  it('refuses a registry copied from another Pod', () => {
    const result = readPodRegistry({
      metadata: { name: 'p', namespace: 'ai-workloads', uid: '99999999-2222-3333-4444-555555555555', annotations: { [annotations.managedNetworks]: raw } },
    });
    expect(result.ok ? 'accepted' : result.error.code).toBe('ManagedShadowMismatch');
    if (!result.ok) expect(result.error.message).toContain('Pod ai-workloads/p');
  });
});
