// The Pod every real-control-plane test schedules: one container consuming one ResourceClaim, either a
// named claim or one generated from a template, tolerating any taint of the test node.
import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';

export type ClaimSource = { readonly resourceClaimName: string } | { readonly resourceClaimTemplateName: string };

/** Creates Pod `name` in `namespace` whose container uses the claim `source` names, under the Pod claim name "nics". */
export function createClaimConsumer(client: KubeClient, namespace: string, name: string, source: ClaimSource): Promise<KubeObject> {
  return client.create(
    resourceTypes.pod,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: {
        resourceClaims: [{ name: 'nics', ...source }],
        containers: [{ name: 'app', image: 'registry.invalid/app:1', resources: { claims: [{ name: 'nics' }] } }],
        tolerations: [{ operator: 'Exists' }],
      },
    },
    { namespace },
  );
}
