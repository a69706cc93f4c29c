/**
 * Failures of a selection's `default-route`: refused before any delegate runs (ECMP, an empty gateway), or
 * the sandbox's routes or the libcni result cache could not be changed after a delegate's ADD, which fails
 * the ADD and undoes what ran, as any delegate failure does.
 */
export type DefaultRouteCode = 'DefaultRouteEcmpUnsupported' | 'InvalidDefaultRoute' | 'DefaultRouteChangeFailed' | 'DefaultRouteCacheUpdateFailed';

const REMEDIES: Readonly<Record<DefaultRouteCode, string>> = {
  DefaultRouteEcmpUnsupported:
    'Multus does not support ECMP for default-route: ask for at most one IPv4 and one IPv6 gateway over all the Pod’s networks (k8s.v1.cni.cncf.io/networks and v1.multus-cni.io/default-network)',
  InvalidDefaultRoute: 'give every default-route entry an IP address; an empty list keeps no default route on the other networks',
  DefaultRouteChangeFailed:
    'the gateway must be reachable on that interface (inside its subnet); the daemon runs nsenter and iproute2’s ip from chrootDir (the host’s root), else from its own image — install util-linux and iproute2 there',
  DefaultRouteCacheUpdateFailed: 'inspect the libcni cache entry named above; the delegates that ran were undone and the runtime retries the ADD',
};

export class DefaultRouteError extends Error {
  override readonly name = 'DefaultRouteError';
  readonly code: DefaultRouteCode;
  /** What the failure is about: the Pod, or the network and interface whose routes were being changed. */
  readonly subject: string;

  constructor(code: DefaultRouteCode, subject: string, detail: string, cause?: unknown) {
    super(`${code}: ${subject}: ${detail} \u2014 ${REMEDIES[code]}`, cause === undefined ? undefined : { cause });
    this.code = code;
    this.subject = subject;
  }
}
