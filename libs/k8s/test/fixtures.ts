import { afterAll, beforeAll } from '@jest/globals';
import type { KubeClient, KubeObject } from '../src/client.ts';
import { resourceTypes } from '../src/resources.ts';
import { type ControlPlane, type ControlPlaneOptions, createNamespace, installCrds, startControlPlane } from '../src/testing/index.ts';

export { createNamespace };

/** A Pod that never runs (no kubelet here); it exists for its UID, annotations and ownership. */
export async function createPod(
  client: KubeClient,
  namespace: string,
  name: string,
  extra: { annotations?: Record<string, string> } = {},
): Promise<KubeObject> {
  return client.create(
    resourceTypes.pod,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace, ...(extra.annotations === undefined ? {} : { annotations: extra.annotations }) },
      spec: { containers: [{ name: 'app', image: 'registry.invalid/app:1' }] },
    },
    { namespace },
  );
}

/**
 * A NAD owned by `pod` (no controller) carrying `finalizers`, in one Create. blockOwnerDeletion is false
 * as the driver sets it (§12.3); true only to show what that would cost.
 */
export function ownedNad(pod: KubeObject, name: string, finalizers: readonly string[], blockOwnerDeletion = false): Record<string, unknown> {
  return {
    apiVersion: 'k8s.cni.cncf.io/v1',
    kind: 'NetworkAttachmentDefinition',
    metadata: {
      name,
      namespace: pod.metadata.namespace,
      finalizers,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name, uid: pod.metadata.uid, blockOwnerDeletion }],
    },
    spec: { config: '{"cniVersion":"1.0.0","name":"rail-a-net","type":"sriov","deviceID":"0000:03:00.1"}' },
  };
}

export interface SharedControlPlane {
  readonly cp: ControlPlane;
  readonly admin: KubeClient;
}

/**
 * One control plane for a test file: started before its tests (with the chart CRDs and `namespace`
 * when asked), stopped after them. Read `cp`/`admin` inside tests, not at module load.
 */
export function useControlPlane(options: ControlPlaneOptions & { readonly crds?: boolean; readonly namespace?: string } = {}): SharedControlPlane {
  let started: ControlPlane | undefined;
  const shared = {
    get cp(): ControlPlane {
      if (started === undefined) throw new Error('the control plane is available only inside tests');
      return started;
    },
    get admin(): KubeClient {
      return shared.cp.adminClient;
    },
  };
  beforeAll(async () => {
    started = await startControlPlane(options);
    if (options.crds === true) await installCrds(started.adminClient);
    if (options.namespace !== undefined) await createNamespace(started.adminClient, options.namespace);
  }, 120_000);
  afterAll(async () => {
    await started?.stop();
  }, 60_000);
  return shared;
}
