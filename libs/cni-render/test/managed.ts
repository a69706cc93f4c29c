import { type RegistryEntry, buildBindingIdentity } from '@sriov-dra/contract';
import type { ManagedSelection } from '../src/selections/merge.ts';

export const POD = { uid: '11111111-2222-3333-4444-555555555555', namespace: 'ai-workloads', name: 'gpu-pairs' };
export const CLAIM_A = 'a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607';
export const CLAIM_B = 'b3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607';

/** A managed attachment of `device` in `claimUID` on interface `iface`, rendered from `source`. */
export function managed(
  claimUID: string,
  device: string,
  iface: string,
  source = 'rail-a-net',
  shadowUID = '4f3e2d1c-0b9a-4877-9665-5443322110ff',
): ManagedSelection {
  const identity = buildBindingIdentity({
    protocolVersion: 1,
    nodeUID: '6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40',
    podUID: POD.uid,
    claimUID,
    driver: 'sriovnetwork.k8snetworkplumbingwg.io',
    pool: 'worker-a',
    device,
  });
  if (!identity.ok) throw identity.error;
  const entry: RegistryEntry = {
    attachmentID: identity.value.attachmentID,
    claimUID,
    namespace: POD.namespace,
    name: identity.value.shadowName,
    uid: shadowUID,
    interface: iface,
    configSHA256: identity.value.attachmentID.split('').reverse().join(''),
  };
  return { entry, source: { namespace: POD.namespace, name: source } };
}
