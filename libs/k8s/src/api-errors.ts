/**
 * Typed Kubernetes API failures. Classification uses only structured data — the HTTP status, the
 * `reason` of the returned metav1.Status, and Node.js error codes for transport failures — never the
 * human-readable message, which the API server may reword between releases.
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
}

export class KubeApiError extends Error {
  override readonly name = 'KubeApiError';
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
    const detail = apiStatus?.message ?? (options.cause instanceof Error ? options.cause.message : '');
    super(`${request.method} ${request.path}: ${kind}${status === 0 ? '' : ` (HTTP ${status})`}${detail === '' ? '' : `: ${detail}`}`, {
      cause: options.cause,
    });
    this.kind = kind;
    this.status = status;
    this.apiStatus = apiStatus;
    this.request = request;
    this.outcomeUnknown = options.outcomeUnknown ?? false;
  }
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
  const aborted = (error as { name?: unknown } | null)?.name === 'AbortError';
  const timeout = aborted || (typeof code === 'string' && TRANSPORT_TIMEOUT_CODES.has(code));
  return new KubeApiError(timeout ? 'Timeout' : 'Unavailable', 0, request, undefined, { cause: error, outcomeUnknown: sent && request.method !== 'GET' });
}

/** Failures worth retrying unchanged after a backoff (the request itself was fine). */
export function isTransient(error: unknown): boolean {
  return isApiError(error, 'Timeout', 'TooManyRequests', 'ServerError', 'Unavailable');
}
