import { isApiError } from '@sriov-dra/k8s';

/**
 * A Pod or NetworkAttachmentDefinition that ADD could not read. The codes are the same in both read
 * modes; `mode` says which one failed, and `cause` carries the API error when there was one.
 */
export type PodNetworkReadCode = 'PodNotFound' | 'PodReadFailed' | 'NetworkAttachmentDefinitionNotFound' | 'NetworkAttachmentDefinitionReadFailed';

const REMEDIES: Readonly<Record<PodNetworkReadCode, string>> = {
  PodNotFound:
    'the Pod was deleted before its sandbox was set up, or the runtime passed a wrong K8S_POD_NAMESPACE/K8S_POD_NAME; nothing needs to be done if the Pod is gone',
  PodReadFailed: 'check that the API server is reachable and that the daemon’s ServiceAccount may get pods in this namespace; the runtime retries the ADD',
  NetworkAttachmentDefinitionNotFound:
    'create the NetworkAttachmentDefinition in this namespace or correct the Pod’s k8s.v1.cni.cncf.io/networks annotation; with informer reads a NAD created moments ago may not be cached yet, which liveNetworkConfigOnAdd avoids',
  NetworkAttachmentDefinitionReadFailed:
    'check that the API server is reachable and that the daemon’s ServiceAccount may get network-attachment-definitions in this namespace; the runtime retries the ADD',
};

export class PodNetworkReadError extends Error {
  override readonly name = 'PodNetworkReadError';
  readonly code: PodNetworkReadCode;
  readonly mode: 'live' | 'informer';
  /** "<namespace>/<name>" of the object that could not be read. */
  readonly subject: string;

  constructor(code: PodNetworkReadCode, mode: 'live' | 'informer', subject: string, detail: string, cause?: unknown) {
    super(`${code}: ${subject}: ${detail} \u2014 ${REMEDIES[code]}`, cause === undefined ? undefined : { cause });
    this.code = code;
    this.mode = mode;
    this.subject = subject;
  }
}

export function isPodNetworkReadError(error: unknown, code?: PodNetworkReadCode): error is PodNetworkReadError {
  return error instanceof PodNetworkReadError && (code === undefined || error.code === code);
}

/** A failed live GET of a Pod: NotFound is told apart, since upstream answers ADD for a deleted Pod differently. */
export function podReadFailure(mode: 'live' | 'informer', namespace: string, name: string, cause: unknown, via: string): PodNetworkReadError {
  const subject = `Pod ${namespace}/${name}`;
  return isApiError(cause, 'NotFound')
    ? new PodNetworkReadError('PodNotFound', mode, subject, `not found by ${via}`, cause)
    : new PodNetworkReadError('PodReadFailed', mode, subject, `${via} failed: ${errorText(cause)}`, cause);
}

/** Upstream's wording for a NAD that is not there, so logs and events read as they did. */
export function nadNotFound(mode: 'live' | 'informer', namespace: string, name: string, cause?: unknown): PodNetworkReadError {
  return new PodNetworkReadError(
    'NetworkAttachmentDefinitionNotFound',
    mode,
    `NetworkAttachmentDefinition ${namespace}/${name}`,
    `cannot find a network-attachment-definition (${name}) in namespace (${namespace})`,
    cause,
  );
}

export function nadReadFailure(mode: 'live' | 'informer', namespace: string, name: string, cause: unknown, via: string): PodNetworkReadError {
  if (isApiError(cause, 'NotFound')) return nadNotFound(mode, namespace, name, cause);
  return new PodNetworkReadError(
    'NetworkAttachmentDefinitionReadFailed',
    mode,
    `NetworkAttachmentDefinition ${namespace}/${name}`,
    `${via} failed: ${errorText(cause)}`,
    cause,
  );
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
