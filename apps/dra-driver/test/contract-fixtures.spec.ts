// Every shared contract fixture, read the way the driver reads it: VfConfig from an opaque claim config,
// DeviceAttributes through the policy merge, source templates through the shadow renderer, policies as the policy controller loads them, identities as
// the planner computes them, and its own annotations as the repair worker reads them back.
import { describe, expect, it } from '@jest/globals';
import {
  DRIVER_NAME,
  type Result,
  buildBindingIdentity,
  parseBindingAnnotation,
  parseRegistry,
  serializeBindingAnnotation,
  serializeRegistry,
  validateGeneratedSelection,
  validateSriovResourcePolicy,
} from '@sriov-dra/contract';
import { type Fixture, type FixtureKind, expectedError, expectsValid, loadFixtures, rawInput } from '@sriov-dra/contract/fixtures';
import { type SourceNad, renderShadowConfig } from '@sriov-dra/cni-render';
import { vfConfigFromOpaque } from '../src/config/opaque-vf-config.ts';
import { mergeDeviceAttributes } from '../src/policy/device-attribute-merge.ts';

type Consumer = (fixture: Fixture) => Result<unknown>;

const consumers: Record<FixtureKind, Consumer | { notConsumed: string }> = {
  'vf-config': (fixture) => vfConfigFromOpaque({ driver: DRIVER_NAME, parameters: fixture.input }),
  'device-attributes': (fixture) => {
    const merged = mergeDeviceAttributes([fixture.input]);
    if (merged.ok && expectsValid(fixture)) {
      expect({ attributes: merged.value.attributes, nadReference: merged.value.nadReference }).toEqual({
        attributes: fixture.expect['attributes'],
        nadReference: fixture.expect['nadReference'],
      });
    }
    return merged;
  },
  'sriov-resource-policy': (fixture) => validateSriovResourcePolicy(fixture.input),
  identity: (fixture) => {
    const identity = buildBindingIdentity(fixture.input);
    if (identity.ok && expectsValid(fixture)) {
      expect(identity.value).toEqual({ attachmentID: fixture.expect['attachmentID'], shadowName: fixture.expect['shadowName'] });
    }
    return identity;
  },
  'binding-annotation': (fixture) => {
    const binding = parseBindingAnnotation(rawInput(fixture));
    // The driver is the writer: every valid fixture is spelled the way it writes, so what it reads back
    // it must write back byte for byte.
    if (binding.ok) expect(serializeBindingAnnotation(binding.value)).toBe(rawInput(fixture));
    return binding;
  },
  'managed-networks-registry': (fixture) => {
    const registry = parseRegistry(rawInput(fixture));
    if (registry.ok && expectsValid(fixture)) {
      expect(serializeRegistry(registry.value)).toBe(rawInput(fixture));
      expect(
        registry.value.entries.map(({ name, namespace, uid, interface: iface, configSHA256 }) => ({ name, namespace, uid, interface: iface, configSHA256 })),
      ).toEqual(fixture.expect['shadows']);
    }
    return registry;
  },
  'generated-selection': (fixture) => validateGeneratedSelection(fixture.input),
  'node-policy-dra': { notConsumed: 'operator input; the driver sees only the DeviceAttributes generated from it' },
  render: (fixture) => {
    const input = fixture.input as { sourceNad: SourceNad; pciAddress: string };
    const rendered = renderShadowConfig(input.sourceNad, input.pciAddress);
    if (rendered.ok && expectsValid(fixture)) {
      // These are the bytes the driver freezes in its checkpoint and writes into the shadow.
      expect([rendered.value.bytes, rendered.value.sha256]).toEqual([fixture.expect['bytes'], fixture.expect['sha256']]);
    }
    return rendered;
  },
};

describe('dra-driver reads the shared contract fixtures', () => {
  it('an opaque config of another driver is not ours to judge', () => {
    expect(vfConfigFromOpaque({ driver: 'gpu.example.com', parameters: { anything: true } })).toEqual({ ok: true, value: null });
  });

  it.each(loadFixtures().map((fixture) => [fixture.id, fixture] as const))('%s', (_id, fixture) => {
    const consumer = consumers[fixture.kind];
    if ('notConsumed' in consumer) {
      expect(consumer.notConsumed).not.toBe('');
      return;
    }
    const result = consumer(fixture);
    if (expectsValid(fixture)) expect(result.ok ? 'valid' : result.error.message).toBe('valid');
    else expect(result.ok ? 'valid' : result.error.code).toBe(expectedError(fixture));
  });
});
