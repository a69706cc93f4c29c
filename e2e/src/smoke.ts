// npm run smoke: after `nx run-many -t build`, exercises what exists through the built packages (dist/,
// resolved without the source condition), the way a deployed process would load them.
import {
  DRIVER_NAME,
  annotations,
  buildBindingIdentity,
  parseBindingAnnotation,
  parseRegistry,
  shadowNameFor,
  validateGeneratedSelection,
  validateNodePolicyDra,
  validateSriovResourcePolicy,
} from '@sriov-dra/contract';
import { type Fixture, type FixtureKind, expectedError, expectsValid, loadFixtures, rawInput } from '@sriov-dra/contract/fixtures';
import { type SourceNad, renderShadowConfig } from '@sriov-dra/cni-render';
import { mergeDeviceAttributes, vfConfigFromOpaque } from '@sriov-dra/dra-driver';
import { readShadowBinding } from '@sriov-dra/multus-live-read-proxy';
import { buildPolicyDeviceAttributes } from '@sriov-dra/node-policy-operator';

type Outcome = { ok: true } | { ok: false; error: { code: string } };

const check: Record<FixtureKind, (fixture: Fixture) => Outcome> = {
  'binding-annotation': (f) => {
    const raw = rawInput(f);
    const binding = parseBindingAnnotation(raw);
    const name = binding.ok ? shadowNameFor(binding.value.attachmentID) : 'not-a-shadow';
    return binding.ok ? readShadowBinding({ metadata: { name, namespace: 'ai-workloads', annotations: { [annotations.binding]: raw } } }) : binding;
  },
  'managed-networks-registry': (f) => parseRegistry(rawInput(f)),
  'generated-selection': (f) => validateGeneratedSelection(f.input),
  identity: (f) => buildBindingIdentity(f.input),
  'vf-config': (f) => vfConfigFromOpaque({ driver: DRIVER_NAME, parameters: f.input }),
  'device-attributes': (f) => mergeDeviceAttributes([f.input]),
  'sriov-resource-policy': (f) => validateSriovResourcePolicy(f.input),
  'node-policy-dra': (f) => {
    const dra = validateNodePolicyDra(f.input);
    if (!dra.ok) return dra;
    const generated = buildPolicyDeviceAttributes({
      policyUID: '7d9c1e2f-3a4b-4c5d-8e6f-708192a3b4c5',
      namespace: 'sriov-network-operator',
      dra: dra.value,
      resourceName: 'openshift.io/rail_a',
      sourceNad: dra.value.sriovNetwork,
    });
    return mergeDeviceAttributes([generated]);
  },
  render: (f) => {
    const input = f.input as { sourceNad: SourceNad; pciAddress: string };
    const rendered = renderShadowConfig(input.sourceNad, input.pciAddress);
    if (rendered.ok && expectsValid(f) && rendered.value.sha256 !== f.expect['sha256']) return { ok: false, error: { code: 'RenderedBytesDiffer' } };
    return rendered;
  },
};

let failures = 0;
const fixtures = loadFixtures();
for (const fixture of fixtures) {
  const outcome = check[fixture.kind](fixture);
  const got = outcome.ok ? 'valid' : outcome.error.code;
  const want = expectsValid(fixture) ? 'valid' : expectedError(fixture);
  if (got !== want) {
    failures += 1;
    console.error(`MISMATCH ${fixture.id}: expected ${String(want)}, got ${got}`);
  }
}
const example = fixtures.find((fixture) => fixture.id === 'identity/worked-example');
const identity = example === undefined ? undefined : buildBindingIdentity(example.input);
console.log(`contract fixtures: ${fixtures.length - failures}/${fixtures.length} behave as expected through the built packages`);
if (identity?.ok === true) console.log(`worked example: attachmentID ${identity.value.attachmentID} -> shadow ${identity.value.shadowName}`);
if (failures > 0 || identity?.ok !== true) process.exitCode = 1;
