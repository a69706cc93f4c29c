// The credentials the DaemonSet's driver Pod would get: its ServiceAccount, bound by the chart's RBAC
// templates, and a token bound to a driver Pod on the node (which is what "associated-node" status writes
// are authorized against).
import { resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, DRIVER_CHART_DIR, createRendered, renderChartTemplate, serviceAccountKubeconfig } from '@sriov-dra/k8s/testing';

const RBAC_KINDS: ReadonlySet<string> = new Set(['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);

/** The values of a release with managed networks on, whose RBAC includes managed-networks-rbac.yaml. */
export const MANAGED_RELEASE_VALUES = { configurationMode: 'MULTUS', multusAutoAttach: true } as const;

/** Creates the RBAC objects of `templates` of the driver chart, released into `namespace`, and waits until they authorize. */
export async function applyDriverRbac(cp: ControlPlane, namespace: string, templates: readonly string[]): Promise<void> {
  for (const template of templates) {
    const objects = renderChartTemplate(DRIVER_CHART_DIR, template, { namespace, values: MANAGED_RELEASE_VALUES });
    const unexpected = objects.find((object) => !RBAC_KINDS.has(String(object['kind'])));
    if (unexpected !== undefined) throw new Error(`unexpected ${String(unexpected['kind'])} in ${template}`);
    await createRendered(cp.adminClient, objects, namespace);
  }
}

/** Writes a kubeconfig for the driver's ServiceAccount in `namespace`, authorized by `templates` of the driver chart alone. */
export async function driverIdentity(
  cp: ControlPlane,
  kubeconfigPath: string,
  placement: { readonly namespace: string; readonly node: string },
  templates: readonly string[],
): Promise<string> {
  const { namespace, node } = placement;
  const serviceAccount = 'dra-driver-sriov';
  await cp.adminClient.create(resourceTypes.serviceAccount, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: serviceAccount } }, { namespace });
  await applyDriverRbac(cp, namespace, templates);
  const pod = await cp.adminClient.create(
    resourceTypes.pod,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `dra-driver-${node}` },
      spec: { nodeName: node, serviceAccountName: serviceAccount, containers: [{ name: 'driver', image: 'sriov-dra/dra-driver' }] },
    },
    { namespace },
  );
  return serviceAccountKubeconfig(cp, { namespace, name: serviceAccount }, kubeconfigPath, { name: pod.metadata.name, uid: pod.metadata.uid });
}
