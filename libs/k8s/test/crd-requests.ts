// Requests and assertions shared by the CRD schema tests. Requests carry no fieldValidation parameter
// unless asked to: the API server then prunes unknown fields instead of refusing them, so a rejection is
// the schema's own (422 Invalid, with the field in status.details.causes), not strict decoding.
import { expect } from '@jest/globals';
import { isApiError } from '../src/api-errors.ts';
import type { KubeClient, KubeObject } from '../src/client.ts';
import { type ResourceType, resourcePath } from '../src/resources.ts';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore' | undefined;
export type Body = Record<string, unknown>;
export type Spec = Record<string, unknown>;

/** A create that validates, admits and answers like a real one, but stores nothing. */
export function dryRunCreate(
  client: KubeClient,
  type: ResourceType,
  namespace: string | undefined,
  body: Body,
  fieldValidation?: FieldValidation,
): Promise<KubeObject> {
  return client.request({
    method: 'POST',
    path: resourcePath(type, { namespace }),
    query: { dryRun: 'All', fieldValidation },
    body,
  }) as Promise<KubeObject>;
}

/** The cause the API server adds when structural errors kept the CEL rules from running. */
export const RULES_NOT_CHECKED = '<nil>';

/** Asserts exactly 422 Invalid whose causes name exactly `fields` (and, when given, carry `message`). */
export async function expectInvalid(call: Promise<unknown>, fields: readonly string[], message?: string): Promise<void> {
  const error = await call.then(
    () => new Error('the request was accepted'),
    (caught: unknown) => caught,
  );
  if (!isApiError(error)) throw error;
  expect({ status: error.status, reason: error.apiStatus?.reason }).toEqual({ status: 422, reason: 'Invalid' });
  const causes = (error.apiStatus?.details?.causes ?? []).filter((cause) => cause.field !== RULES_NOT_CHECKED);
  expect([...new Set(causes.map((cause) => cause.field))].sort()).toEqual([...fields].sort());
  if (message !== undefined) expect(causes.map((cause) => cause.message)).toContainEqual(expect.stringContaining(message));
}

/** The fields a strict decoding error names, sorted. */
export function unknownFields(error: unknown): string[] {
  const message = isApiError(error) ? (error.apiStatus?.message ?? '') : String(error);
  return [...message.matchAll(/unknown field "([^"]+)"/g)].map((match) => match[1] ?? '').sort();
}

export /** Accepted, or refused as Invalid (422); any other failure is thrown. */
async function verdict(call: Promise<unknown>): Promise<'accepted' | 'rejected'> {
  try {
    await call;
    return 'accepted';
  } catch (error) {
    if (isApiError(error, 'Invalid')) return 'rejected';
    throw error;
  }
}

export function nodePolicy(spec: Spec): Body {
  return {
    apiVersion: 'sriovnetwork.openshift.io/v1',
    kind: 'SriovNetworkNodePolicy',
    metadata: { generateName: 'rail-', namespace: 'ai-workloads' },
    spec: { resourceName: 'rail_a', numVfs: 4, nicSelector: { pfNames: ['ens1f0'] }, nodeSelector: {}, ...spec },
  };
}

export const withAttributes = (attributes: unknown): Body => nodePolicy({ dra: { attributes } });

export function deviceAttributes(spec: Spec | undefined): Body {
  return {
    apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1',
    kind: 'DeviceAttributes',
    metadata: { generateName: 'attrs-', namespace: 'ai-workloads' },
    ...(spec === undefined ? {} : { spec }),
  };
}

export function resourcePolicy(spec: Spec | undefined): Body {
  return {
    apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1',
    kind: 'SriovResourcePolicy',
    metadata: { generateName: 'policy-', namespace: 'ai-workloads' },
    ...(spec === undefined ? {} : { spec }),
  };
}
