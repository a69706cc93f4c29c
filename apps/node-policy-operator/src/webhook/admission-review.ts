import { z } from 'zod';

/** The only AdmissionReview version this webhook speaks; its configuration lists admissionReviewVersions [v1]. */
export const ADMISSION_REVIEW_API_VERSION = 'admission.k8s.io/v1';

const groupVersionKindSchema = z.looseObject({ group: z.string(), version: z.string(), kind: z.string() });

/** An admission.k8s.io/v1 AdmissionReview as the API server sends it: the fields this webhook reads. */
export const admissionReviewSchema = z.looseObject({
  apiVersion: z.literal(ADMISSION_REVIEW_API_VERSION),
  kind: z.literal('AdmissionReview'),
  request: z.looseObject({
    uid: z.string().min(1),
    kind: groupVersionKindSchema,
    operation: z.enum(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']),
    name: z.string().optional(),
    namespace: z.string().optional(),
    /** The object as it would be stored; null on DELETE. */
    object: z.unknown().optional(),
    /** The stored object on UPDATE and DELETE. */
    oldObject: z.unknown().optional(),
  }),
});

export type AdmissionReview = z.infer<typeof admissionReviewSchema>;
export type AdmissionRequest = AdmissionReview['request'];

/** One metav1.StatusCause (its type travels as `reason`); the API server passes them on to the client unchanged. */
export interface StatusCause {
  readonly reason: 'FieldValueInvalid';
  readonly field: string;
  readonly message: string;
}

/** The metav1.Status of a refusal; the API server reports `code` to the client as the HTTP status. */
export interface RefusalStatus {
  readonly status: 'Failure';
  readonly code: number;
  readonly reason: 'Invalid' | 'BadRequest';
  readonly message: string;
  readonly details?: { readonly group: string; readonly kind: string; readonly name?: string; readonly causes: readonly StatusCause[] };
}

export interface AdmissionResponse {
  /** The request's uid: the API server discards a response that does not echo it. */
  readonly uid: string;
  readonly allowed: boolean;
  readonly status?: RefusalStatus;
  /** Shown by kubectl even when the request is allowed. */
  readonly warnings?: readonly string[];
}

export function reviewResponse(response: AdmissionResponse): Record<string, unknown> {
  return { apiVersion: ADMISSION_REVIEW_API_VERSION, kind: 'AdmissionReview', response };
}

/**
 * The uid of a review that failed validation, when it has a usable one: the refusal can then be delivered
 * as an answer to that request instead of as a failed webhook call.
 */
export function uidOf(body: unknown): string | undefined {
  const uid = (body as { request?: { uid?: unknown } } | null | undefined)?.request?.uid;
  return typeof uid === 'string' && uid !== '' ? uid : undefined;
}
