import { isDeepStrictEqual } from 'node:util';
import { type AdmissionFinding, describeFinding } from '../admission/admission-finding.ts';
import { type AdmissionOptions, type AdmittedKind, SRIOV_NETWORK_GROUP, admissionObjectSchema, inNamespace } from '../admission/admission-object.ts';
import { admitObject } from '../admission/admit-object.ts';
import type { AdmissionRequest, AdmissionResponse, RefusalStatus } from './admission-review.ts';

/** The version both admitted kinds are served at. */
const VERSION = 'v1';

/**
 * The answer to one admission request for `kind`. CREATE and UPDATE are judged by the admission core;
 * DELETE and CONNECT are always allowed, so a refused object can still be removed. An UPDATE that leaves
 * the spec as stored is allowed as well, with the findings as warnings: an object stored before this
 * webhook (or while it was off) must stay editable for finalizer removal and labels, and reconciliation
 * repeats every check before it acts on it. Never throws.
 */
export function reviewAdmission(request: AdmissionRequest, kind: AdmittedKind, options: AdmissionOptions): AdmissionResponse {
  const { uid } = request;
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return { uid, allowed: true };
  const sent = request.kind;
  if (sent.group !== SRIOV_NETWORK_GROUP || sent.version !== VERSION || sent.kind !== kind) {
    const detail = `this endpoint validates ${kind}.${SRIOV_NETWORK_GROUP}/${VERSION} only, but was sent ${sent.kind}.${sent.group}/${sent.version}`;
    return { uid, allowed: false, status: badRequest(`${detail}: fix the rules of the ValidatingWebhookConfiguration`) };
  }
  const parsed = admissionObjectSchema.safeParse(request.object);
  if (!parsed.success) return { uid, allowed: false, status: badRequest(`the ${request.operation} review of a ${kind} carries no object with metadata`) };
  const object = inNamespace(parsed.data, request.namespace ?? '');
  const findings = admitObject(kind, object, options);
  if (findings.length === 0) return { uid, allowed: true };
  const name = textOf(object.metadata.name) ?? request.name ?? '';
  const subject = `${kind} ${textOf(object.metadata.namespace) ?? ''}/${name}`;
  if (request.operation === 'UPDATE' && specUnchanged(object, request.oldObject)) {
    return { uid, allowed: true, warnings: findings.map((finding) => `${subject}: ${describeFinding(finding)} (stored before this check; fix it)`) };
  }
  return { uid, allowed: false, status: invalid(kind, subject, name, findings) };
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function specUnchanged(object: Record<string, unknown>, stored: unknown): boolean {
  return typeof stored === 'object' && stored !== null && isDeepStrictEqual(object['spec'], (stored as { spec?: unknown }).spec);
}

function badRequest(message: string): RefusalStatus {
  return { status: 'Failure', code: 400, reason: 'BadRequest', message };
}

/**
 * 422 Invalid with one cause per finding, the status the API server itself uses for an object that fails
 * its schema, so a client handles both layers alike; the message names the object and every field.
 */
function invalid(kind: AdmittedKind, subject: string, name: string, findings: readonly AdmissionFinding[]): RefusalStatus {
  return {
    status: 'Failure',
    code: 422,
    reason: 'Invalid',
    message: `${subject}: ${findings.map(describeFinding).join('; ')}`,
    details: {
      group: SRIOV_NETWORK_GROUP,
      kind,
      ...(name === '' ? {} : { name }),
      causes: findings.map((finding) => ({ reason: 'FieldValueInvalid', field: finding.field, message: finding.message })),
    },
  };
}
