import { buildBindingIdentity, parseRegistry, serializeRegistry } from '../src/index.ts';
import type { RegistryV1 } from '../src/index.ts';

// A Pod with 64 managed VFs: four claims of sixteen devices each.
const podUID = '11111111-2222-3333-4444-555555555555';
const claims = [
  'a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607',
  'b3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607',
  'c3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607',
  'd3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607',
];
const entries = Array.from({ length: 64 }, (_unused, index) => {
  const claimUID = claims[index % 4] ?? '';
  const identity = buildBindingIdentity({
    protocolVersion: 1,
    nodeUID: '6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40',
    podUID,
    claimUID,
    driver: 'sriovnetwork.k8snetworkplumbingwg.io',
    pool: 'worker-a',
    device: `0000-${(index + 16).toString(16)}-00-1`,
  });
  if (!identity.ok) throw identity.error;
  return {
    attachmentID: identity.value.attachmentID,
    claimUID,
    namespace: 'ai-workloads',
    name: identity.value.shadowName,
    uid: `4f3e2d1c-0b9a-4877-9665-${index.toString(16).padStart(12, '0')}`,
    interface: `dra${index}`,
    configSHA256: identity.value.attachmentID.split('').reverse().join(''),
  };
});
const registry: RegistryV1 = { version: 1, podUID, entries };
const raw = serializeRegistry(registry);
if (!parseRegistry(raw).ok) throw new Error('benchmark registry is invalid');

export const benchmarks = [
  {
    name: 'validate a 64-entry managed-networks registry (parse + schema + uniqueness)',
    targetMedianMs: 0.5,
    run: () => parseRegistry(raw),
    baseline: { name: 'JSON.parse of the same annotation', run: () => JSON.parse(raw) as unknown },
  },
];
