/**
 * A failed read of the kubelet's PodResources API, which ADD needs as soon as a selected NAD carries
 * k8s.v1.cni.cncf.io/resourceName. Either fails that ADD (as upstream's failed lookup does); the runtime
 * retries it.
 */
export type PodResourcesCode = 'PodResourcesSocketMissing' | 'PodResourcesListFailed';

const REMEDIES: Readonly<Record<PodResourcesCode, string>> = {
  PodResourcesSocketMissing:
    'mount the kubelet’s pod-resources directory into the daemon (the chart mounts /var/lib/kubelet/pod-resources read-only) or set podResourcesSocket in daemon-config.json to where the kubelet serves it; the device-plugin checkpoint file upstream falls back to is not read',
  PodResourcesListFailed: 'check that the kubelet is running and serving its PodResources API on this socket; the runtime retries the ADD',
};

export class PodResourcesError extends Error {
  override readonly name = 'PodResourcesError';
  readonly code: PodResourcesCode;
  /** The socket the failure is about. */
  readonly subject: string;

  constructor(code: PodResourcesCode, subject: string, detail: string, cause?: unknown) {
    super(`${code}: ${subject}: ${detail} \u2014 ${REMEDIES[code]}`, cause === undefined ? undefined : { cause });
    this.code = code;
    this.subject = subject;
  }
}

export function isPodResourcesError(error: unknown, code?: PodResourcesCode): error is PodResourcesError {
  return error instanceof PodResourcesError && (code === undefined || error.code === code);
}
