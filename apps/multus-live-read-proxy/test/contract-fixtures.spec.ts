// Every shared contract fixture, read the way the Multus guard reads it: the binding annotation from a
// selected shadow NAD, the registry from the live Pod, generated selections from the networks list, and
// identities only through the name a shadow must carry.
import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { type Result, annotations, ok, shadowNameFor, validateGeneratedSelection } from '@sriov-dra/contract';
import { type Fixture, type FixtureKind, expectedError, expectsValid, loadFixtures, rawInput } from '@sriov-dra/contract/fixtures';
import { readPodRegistry } from '../src/guard/pod-registry.ts';
import { readShadowBinding } from '../src/guard/shadow-binding.ts';

/** null: the fixture cannot reach Multus at all (an invalid tuple or template never becomes a shadow). */
type Consumer = (fixture: Fixture) => Result<unknown> | null;

function attachmentIDOf(raw: string): string {
  try {
    const value = (JSON.parse(raw) as { attachmentID?: unknown } | null)?.attachmentID;
    return typeof value === 'string' ? value : '';
  } catch {
    return '';
  }
}

function podUIDOf(raw: string): string {
  try {
    const value = (JSON.parse(raw) as { podUID?: unknown } | null)?.podUID;
    return typeof value === 'string' ? value : '00000000-0000-0000-0000-000000000000';
  } catch {
    return '00000000-0000-0000-0000-000000000000';
  }
}

const consumers: Record<FixtureKind, Consumer | { notConsumed: string }> = {
  'binding-annotation': (fixture) => {
    const raw = rawInput(fixture);
    // The shadow as the driver would have named it, so only the annotation itself is under test.
    const name = shadowNameFor(attachmentIDOf(raw).padEnd(64, '0'));
    return readShadowBinding({ metadata: { name, namespace: 'ai-workloads', annotations: { [annotations.binding]: raw } } });
  },
  'managed-networks-registry': (fixture) => {
    const raw = rawInput(fixture);
    return readPodRegistry({
      metadata: { name: 'consumer', namespace: 'ai-workloads', uid: podUIDOf(raw), annotations: { [annotations.managedNetworks]: raw } },
    });
  },
  'generated-selection': (fixture) => validateGeneratedSelection(fixture.input),
  identity: (fixture) => {
    // The guard never sees the tuple; it checks that a shadow's name derives from its attachmentID.
    if (!expectsValid(fixture)) return null;
    expect(shadowNameFor(String(fixture.expect['attachmentID']))).toBe(fixture.expect['shadowName']);
    return ok(fixture.expect['shadowName']);
  },
  'vf-config': { notConsumed: 'driver configuration; Multus executes the rendered shadow and never reads VfConfig' },
  'device-attributes': { notConsumed: 'driver policy input; Multus performs no allocation lookup' },
  'sriov-resource-policy': { notConsumed: 'driver policy input; Multus performs no allocation lookup' },
  'node-policy-dra': { notConsumed: 'operator input' },
  render: (fixture) => {
    // The guard hashes the exact spec.config bytes of a shadow and compares the binding's configSHA256.
    if (!expectsValid(fixture)) return null;
    expect(createHash('sha256').update(String(fixture.expect['bytes']), 'utf8').digest('hex')).toBe(fixture.expect['sha256']);
    return ok(fixture.expect['bytes']);
  },
};

describe('multus-live-read-proxy reads the shared contract fixtures', () => {
  it.each(loadFixtures().map((fixture) => [fixture.id, fixture] as const))('%s', (_id, fixture) => {
    const consumer = consumers[fixture.kind];
    if ('notConsumed' in consumer) {
      expect(consumer.notConsumed).not.toBe('');
      return;
    }
    const result = consumer(fixture);
    if (result === null) {
      expect(['identity', 'render']).toContain(fixture.kind);
      return;
    }
    if (expectsValid(fixture)) expect(result.ok ? 'valid' : result.error.message).toBe('valid');
    else expect(result.ok ? 'valid' : result.error.code).toBe(expectedError(fixture));
  });
});
