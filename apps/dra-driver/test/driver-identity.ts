// The credentials the DaemonSet's driver Pod would get: its ServiceAccount, bound by the chart's RBAC
// templates, and a token bound to a driver Pod on the node (which is what "associated-node" status writes
// are authorized against).
import { type ResourceType, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, DRIVER_CHART_DIR, renderChartTemplate, serviceAccountKubeconfig } from '@sriov-dra/k8s/testing';

const RBAC_TYPES: Readonly<Record<string, ResourceType>> = {
  ClusterRole: resourceTypes.clusterRole,
  ClusterRoleBinding: resourceTypes.clusterRoleBinding,
  Role: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', kind: 'Role', namespaced: true },
  RoleBinding: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings', kind: 'RoleBinding', namespaced: true },
};

/** Creates the RBAC objects of `templates` of the driver chart, released into `namespace`. */
export async function applyDriverRbac(cp: ControlPlane, namespace: string, templates: readonly string[]): Promise<void> {
  for (const template of templates) {
    for (const object of renderChartTemplate(DRIVER_CHART_DIR, template, { namespace })) {
      const type = RBAC_TYPES[String(object['kind'])];
      if (type === undefined) throw new Error(`unexpected ${String(object['kind'])} in ${template}`);
      await cp.adminClient.create(type, object, type.namespaced ? { namespace } : {});
    }
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
