// The workload side every scenario shares: a ResourceClaimTemplate of count-one requests, each by
// DeviceClass, with optional constraints — the standard DRA fields and nothing of ours.
import { type KubeClient, resourceTypes } from '@sriov-dra/k8s';

export interface TemplateRequest {
  readonly name: string;
  readonly deviceClassName: string;
}

export async function createClaimTemplate(
  admin: KubeClient,
  at: { readonly namespace: string; readonly name: string },
  requests: readonly TemplateRequest[],
  constraints: readonly Record<string, unknown>[] = [],
): Promise<void> {
  const devices = {
    requests: requests.map(({ name, deviceClassName }) => ({ name, exactly: { deviceClassName, allocationMode: 'ExactCount', count: 1 } })),
    ...(constraints.length === 0 ? {} : { constraints }),
  };
  await admin.create(
    resourceTypes.resourceClaimTemplate,
    { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaimTemplate', metadata: { name: at.name }, spec: { spec: { devices } } },
    { namespace: at.namespace },
  );
}
