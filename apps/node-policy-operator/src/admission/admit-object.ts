import type { AdmissionFinding } from './admission-finding.ts';
import type { AdmissionObject, AdmissionOptions, AdmittedKind } from './admission-object.ts';
import { admitNodePolicy } from './node-policy-admission.ts';
import { admitSriovNetwork } from './sriov-network-admission.ts';

/** Every finding against `object` of `kind`; empty when it may be admitted. Never throws. */
export function admitObject(kind: AdmittedKind, object: AdmissionObject, options: AdmissionOptions): AdmissionFinding[] {
  return kind === 'SriovNetworkNodePolicy' ? admitNodePolicy(object, options) : admitSriovNetwork(object, options);
}
