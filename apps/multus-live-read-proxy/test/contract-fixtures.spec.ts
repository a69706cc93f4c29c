// Every shared contract fixture, read the way the Multus guard reads it: the binding annotation from a
// selected shadow NAD, the registry from the live Pod, generated selections from the networks list,
// identities only through the name a shadow must carry, and rendered configurations through the config
// hash check. Every expected value comes from the fixture's `expect`, never from its input.
import { describe, expect, it } from '@jest/globals';
import { type BindingAnnotationV1, type Result, annotations, validateGeneratedSelection } from '@sriov-dra/contract';
import { type Fixture, type FixtureKind, expectedError, expectsValid, loadFixtures, rawInput } from '@sriov-dra/contract/fixtures';
import { readPodRegistry } from '../src/guard/pod-registry.ts';
import { readShadowBinding } from '../src/guard/shadow-binding.ts';
import { checkShadowConfig } from '../src/guard/shadow-config.ts';

/** null: the fixture cannot reach Multus at all (an invalid tuple or template never becomes a shadow). */
type Consumer = (fixture: Fixture) => Result<unknown> | null;

/** A name no valid fixture binding derives to: an invalid annotation must fail before names are compared. */
const UNRELATED_SHADOW = 'dra-sriov-00000000000000000000000000000000';
/** The Pod every registry fixture is written for; a valid fixture states it again in `expect.podUID`. */
const FIXTURE_POD_UID = '11111111-2222-3333-4444-555555555555';
const OTHER_POD_UID = '99999999-2222-3333-4444-555555555555';

function stated(fixture: Fixture, key: string): string {
  const value = expectsValid(fixture) ? fixture.expect[key] : undefined;
  if (typeof value !== 'string') throw new Error(`fixture ${fixture.id} states no ${key}`);
  return value;
}

function shadowNad(name: string, binding: string) {
  return { metadata: { name, namespace: 'ai-workloads', annotations: { [annotations.binding]: binding } } };
}

function pod(uid: string, registry: string) {
  return { metadata: { name: 'consumer', namespace: 'ai-workloads', uid, annotations: { [annotations.managedNetworks]: registry } } };
}

/** The last hex digit changed: a name one character away from the derived one. */
function nearMiss(name: string): string {
  return `${name.slice(0, -1)}${name.endsWith('0') ? '1' : '0'}`;
}

/** A binding annotation (fixture binding-annotation/rail-a) carrying another attachmentID or hash. */
function bindingWith(attachmentID: string, configSHA256: string): string {
  return JSON.stringify({
    version: 1,
    attachmentID,
    podUID: '11111111-2222-3333-4444-555555555555',
    claimUID: 'a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607',
    nodeName: 'worker-a',
    nodeUID: '6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40',
    source: { namespace: 'ai-workloads', name: 'rail-a-net', uid: '9e8d7c6b-5a49-4382-a716-0f1e2d3c4b5a', resourceVersion: '48213' },
    pciAddress: '0000:03:00.1',
    interface: 'dra0',
    configSHA256,
  });
}

const consumers: Record<FixtureKind, Consumer | { notConsumed: string }> = {
  'binding-annotation': (fixture) => {
    const raw = rawInput(fixture);
    if (!expectsValid(fixture)) return readShadowBinding(shadowNad(UNRELATED_SHADOW, raw));
    const name = stated(fixture, 'shadowName');
    // The same annotation on a NAD whose name does not derive from it is a copy, not a shadow.
    const copied = readShadowBinding(shadowNad(nearMiss(name), raw));
    expect(copied.ok ? 'accepted' : copied.error.code).toBe('ManagedShadowMismatch');
    return readShadowBinding(shadowNad(name, raw));
  },
  'managed-networks-registry': (fixture) => {
    const raw = rawInput(fixture);
    if (!expectsValid(fixture)) return readPodRegistry(pod(FIXTURE_POD_UID, raw));
    // A registry copied onto another Pod vouches for nothing.
    const copied = readPodRegistry(pod(OTHER_POD_UID, raw));
    expect(copied.ok ? 'accepted' : copied.error.code).toBe('ManagedShadowMismatch');
    const registry = readPodRegistry(pod(stated(fixture, 'podUID'), raw));
    if (registry.ok) {
      const shadows = (registry.value?.entries ?? []).map(({ name, namespace, uid, interface: iface, configSHA256 }) => ({
        name,
        namespace,
        uid,
        interface: iface,
        configSHA256,
      }));
      expect(shadows).toEqual(fixture.expect['shadows']);
    }
    return registry;
  },
  'generated-selection': (fixture) => validateGeneratedSelection(fixture.input),
  identity: (fixture) => {
    // The guard never sees the tuple: it accepts a shadow only under the name derived from its binding's
    // attachmentID, which the fixture states literally.
    if (!expectsValid(fixture)) return null;
    const binding = bindingWith(stated(fixture, 'attachmentID'), 'e654abd54aaf09229ef47364500f74ea465ecff6062ce081fcdc62c8bfd1c28d');
    const elsewhere = readShadowBinding(shadowNad(nearMiss(stated(fixture, 'shadowName')), binding));
    expect(elsewhere.ok ? 'accepted' : elsewhere.error.code).toBe('ManagedShadowMismatch');
    return readShadowBinding(shadowNad(stated(fixture, 'shadowName'), binding));
  },
  'vf-config': { notConsumed: 'driver configuration; Multus executes the rendered shadow and never reads VfConfig' },
  'device-attributes': { notConsumed: 'driver policy input; Multus performs no allocation lookup' },
  'sriov-resource-policy': { notConsumed: 'driver policy input; Multus performs no allocation lookup' },
  'node-policy-dra': { notConsumed: 'operator input' },
  render: (fixture) => {
    // A shadow carrying the rendered bytes passes the config check against the rendered digest, and
    // one changed byte fails it.
    if (!expectsValid(fixture)) return null;
    const bytes = stated(fixture, 'bytes');
    const binding = { configSHA256: stated(fixture, 'sha256') } as BindingAnnotationV1;
    const shadow = (config: string) => ({ metadata: { name: UNRELATED_SHADOW, namespace: 'ai-workloads' }, spec: { config } });
    const edited = checkShadowConfig(shadow(`${bytes} `), binding);
    expect(edited.ok ? 'accepted' : edited.error.code).toBe('ManagedShadowMismatch');
    const checked = checkShadowConfig(shadow(bytes), binding);
    expect(checked).toEqual({ ok: true, value: bytes });
    return checked;
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
