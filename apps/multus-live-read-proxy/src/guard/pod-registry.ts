import { type ObjectRef, type RegistryV1, type Result, annotations, fail, ok, parseRegistry } from '@sriov-dra/contract';

export interface PodMetadata {
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly uid: string;
    readonly annotations?: Readonly<Record<string, string>>;
  };
}

/**
 * Reads the driver's managed-networks registry from the live Pod. Absent means the Pod has no managed
 * networks (null). A registry recorded for another Pod UID was copied, not written by the driver for
 * this Pod, and must not vouch for any shadow.
 */
export function readPodRegistry(pod: PodMetadata): Result<RegistryV1 | null> {
  const raw = pod.metadata.annotations?.[annotations.managedNetworks];
  if (raw === undefined) return ok(null);
  const object: ObjectRef = { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid };
  const registry = parseRegistry(raw, { ...object, field: `annotation ${annotations.managedNetworks}` });
  if (!registry.ok) return registry;
  if (registry.value.podUID !== pod.metadata.uid) {
    return fail('ManagedShadowMismatch', `registry was written for Pod UID ${registry.value.podUID}`, { object });
  }
  return registry;
}
