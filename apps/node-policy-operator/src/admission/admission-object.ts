import { z } from 'zod';

/** The API group and version of both kinds this operator admits. */
export const SRIOV_NETWORK_API_VERSION = 'sriovnetwork.openshift.io/v1';
export const SRIOV_NETWORK_GROUP = 'sriovnetwork.openshift.io';

export const ADMITTED_KINDS = ['SriovNetworkNodePolicy', 'SriovNetwork'] as const;
export type AdmittedKind = (typeof ADMITTED_KINDS)[number];

export function isAdmittedKind(kind: unknown): kind is AdmittedKind {
  return ADMITTED_KINDS.includes(kind as AdmittedKind);
}

export interface AdmissionOptions {
  /** Home of the default bootstrap policy and the only namespace whose SriovNetworks may set networkNamespace. */
  readonly operatorNamespace: string;
}

/**
 * The envelope every admitted object needs before its kind's rules can run: a metadata object. Name and
 * namespace are read loosely here; each kind's validation judges them.
 */
export const admissionObjectSchema = z.looseObject({
  metadata: z.looseObject({ name: z.unknown().optional(), namespace: z.unknown().optional() }),
});

export type AdmissionObject = z.infer<typeof admissionObjectSchema>;

/**
 * The object with `namespace` as its metadata.namespace when it states none: the API server (from the
 * request path) and kubectl (from -n) both place such an object in a namespace before it is judged.
 */
export function inNamespace(object: AdmissionObject, namespace: string): AdmissionObject {
  const stated = object.metadata.namespace;
  if (stated !== undefined && stated !== '') return object;
  return { ...object, metadata: { ...object.metadata, namespace } };
}
