import { type ErrorCode, type ObjectRef, SriovDraError } from '@sriov-dra/contract';

/**
 * Typed Kubernetes API failures, in the system's one error family: a KubeApiError is a SriovDraError
 * whose stable code names the failure class (`ApiForbidden`, `ApiConflict`, …). Classification uses
 * only structured data — the HTTP status, the `reason` of the returned metav1.Status, and Node.js error
 * codes for transport failures — never the human-readable message, which the API server may reword
 * between releases.
 */

export type ApiErrorKind =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'TooManyRequests'
  | 'Timeout'
  | 'ServerError'
  | 'Unavailable';

const codes = {
  BadRequest: 'ApiBadRequest',
  Unauthorized: 'ApiUnauthorized',
  Forbidden: 'ApiForbidden',
  NotFound: 'ApiNotFound',
  AlreadyExists: 'ApiAlreadyExists',
  Conflict: 'ApiConflict',
  Gone: 'ApiGone',
  Invalid: 'ApiInvalid',
  TooManyRequests: 'ApiTooManyRequests',
  Timeout: 'ApiTimeout',
  ServerError: 'ApiServerError',
  Unavailable: 'ApiUnavailable',
} as const satisfies Record<ApiErrorKind, ErrorCode>;

/** The metav1.Status fields used for classification and reporting. */
export interface ApiStatus {
  readonly reason?: string;
  readonly message?: string;
  readonly code?: number;
  readonly details?: { readonly retryAfterSeconds?: number; readonly causes?: readonly { readonly message?: string; readonly field?: string }[] };
}

export interface ApiRequestInfo {
  readonly method: string;
  readonly path: string;
  /** The object the request is about, when the caller named one. */
  readonly object?: ObjectRef;
}

export class KubeApiError extends SriovDraError {
  readonly kind: ApiErrorKind;
  /** HTTP status, or 0 when no response arrived. */
  readonly status: number;
  readonly apiStatus: ApiStatus | undefined;
  readonly request: ApiRequestInfo;
  /**
   * True when the request may have been applied although no success was observed (a lost response).
   * Callers must re-read before concluding anything.
   */
  readonly outcomeUnknown: boolean;

  constructor(kind: ApiErrorKind, status: number, request: ApiRequestInfo, apiStatus?: ApiStatus, options: { cause?: unknown; outcomeUnknown?: boolean } = {}) {
    const detail = apiStatus?.message ?? errorMessage(options.cause);
    super(codes[kind], `${request.method} ${request.path}${status === 0 ? '' : ` (HTTP ${status})`}${detail === '' ? '' : `: ${detail}`}`, {
      object: request.object,
      cause: options.cause,
    });
    this.kind = kind;
    this.status = status;
    this.apiStatus = apiStatus;
    this.request = request;
    this.outcomeUnknown = options.outcomeUnknown ?? false;
  }
}

/** The message of anything thrown; `instanceof Error` is false for errors from another realm (vm contexts). */
export function errorMessage(error: unknown): string {
  const message = (error as { message?: unknown } | null | undefined)?.message;
  if (typeof message === 'string') return message;
  return error === undefined ? '' : JSON.stringify(error);
}

export function isApiError(error: unknown, ...kinds: ApiErrorKind[]): error is KubeApiError {
  return error instanceof KubeApiError && (kinds.length === 0 || kinds.includes(error.kind));
}

/** Classifies an HTTP error response. */
export function classifyStatus(status: number, apiStatus: ApiStatus | undefined): ApiErrorKind {
  const reason = apiStatus?.reason;
  switch (status) {
    case 400:
      return 'BadRequest';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 408:
      return 'Timeout';
    case 409:
      return reason === 'AlreadyExists' ? 'AlreadyExists' : 'Conflict';
    case 410:
      return 'Gone';
    case 422:
      return 'Invalid';
    case 429:
      return 'TooManyRequests';
    case 504:
      return 'Timeout';
    case 503:
      return 'Unavailable';
    default:
      if (reason === 'Timeout' || reason === 'ServerTimeout') return 'Timeout';
      return status >= 500 ? 'ServerError' : 'BadRequest';
  }
}

const TRANSPORT_TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * Classifies a request that produced no HTTP response. A connection refused before sending is known
 * not to have been applied; a reset or timeout after sending may have been.
 */
export function classifyTransportError(error: unknown, request: ApiRequestInfo, sent: boolean): KubeApiError {
  const code = (error as { code?: unknown } | null)?.code;
  const name = (error as { name?: unknown } | null)?.name;
  const timeout = name === 'AbortError' || name === 'TimeoutError' || (typeof code === 'string' && TRANSPORT_TIMEOUT_CODES.has(code));
  return new KubeApiError(timeout ? 'Timeout' : 'Unavailable', 0, request, undefined, { cause: error, outcomeUnknown: sent && request.method !== 'GET' });
}

/** Failures worth retrying unchanged after a backoff (the request itself was fine). */
export function isTransient(error: unknown): boolean {
  return isApiError(error, 'Timeout', 'TooManyRequests', 'ServerError', 'Unavailable');
}
