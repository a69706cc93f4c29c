import { describe, expect, it } from '@jest/globals';
import type { ClaimRecord, ManagedBindingPhase } from '../checkpoint/checkpoint-record.ts';
import { isAttached, isReleasing, managedBindingsOf, withPhase, withShadowUIDs } from './binding-records.ts';

// Only the fields these functions read or write; the checkpoint schema is exercised elsewhere.
const device = (name: string, phase?: ManagedBindingPhase, attachmentID = name) => ({
  device: name,
  ...(phase === undefined ? {} : { managedBinding: { attachmentID, phase, shadow: { namespace: 'ai', name: `shadow-${name}`, uid: '' } } }),
});
const record = (...devices: ReturnType<typeof device>[]): ClaimRecord => ({ claimUID: 'c', devices }) as unknown as ClaimRecord;

describe('binding records', () => {
  it('lists managed bindings only, and tells attached from releasing claims', () => {
    const mixed = record(device('a', 'Ready'), device('plain'), device('b', 'Deleting'));
    expect(managedBindingsOf(mixed).map((binding) => binding.attachmentID)).toEqual(['a', 'b']);
    expect(managedBindingsOf(mixed).map(isAttached)).toEqual([true, false]);
    expect([isReleasing(mixed), isReleasing(record(device('a', 'Pending'), device('b', 'Ready')))]).toEqual([true, false]);
  });

  it('moves only the bindings in the given phases, and sets only the observed UIDs', () => {
    const before = record(device('a', 'Pending'), device('b', 'Ready'), device('plain'));
    const moved = withPhase(before, ['Pending'], 'Ready');
    expect(managedBindingsOf(moved).map((binding) => binding.phase)).toEqual(['Ready', 'Ready']);
    expect(moved.devices[2]).toEqual(before.devices[2]);
    const observed = withShadowUIDs(before, new Map([['b', '0c6f5d0e-1a7b-4c3d-8e9f-0a1b2c3d4e5f']]));
    expect(managedBindingsOf(observed).map((binding) => binding.shadow.uid)).toEqual(['', '0c6f5d0e-1a7b-4c3d-8e9f-0a1b2c3d4e5f']);
    // Forgetting a UID is setting it empty.
    expect(managedBindingsOf(withShadowUIDs(observed, new Map([['b', '']]))).map((binding) => binding.shadow.uid)).toEqual(['', '']);
  });
});
