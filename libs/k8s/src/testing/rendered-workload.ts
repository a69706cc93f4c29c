import type { KubeClient } from '../client.ts';
import { type ResourceType, resourceTypes } from '../resources.ts';
import { writeKubeconfig } from './kubeconfig.ts';
import type { ControlPlane } from './control-plane.ts';
import { ROLE, ROLE_BINDING, type RoleBindingBody, awaitRoleBinding } from './role-binding.ts';

/** The kinds the charts render, by kind, for creating what Helm rendered as it is. */
const RENDERED_KINDS: Readonly<Record<string, ResourceType>> = {
  ServiceAccount: resourceTypes.serviceAccount,
  ClusterRole: resourceTypes.clusterRole,
  ClusterRoleBinding: resourceTypes.clusterRoleBinding,
  Role: ROLE,
  RoleBinding: ROLE_BINDING,
  ConfigMap: { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true },
  Secret: { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true },
  Service: { group: '', version: 'v1', resource: 'services', kind: 'Service', namespaced: true },
  DaemonSet: { group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet', namespaced: true },
  Deployment: { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true },
  PodDisruptionBudget: { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true },
  ValidatingWebhookConfiguration: resourceTypes.validatingWebhookConfiguration,
  ValidatingAdmissionPolicy: resourceTypes.validatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding: resourceTypes.validatingAdmissionPolicyBinding,
};

/**
 * Creates rendered objects as they are, each namespaced one in its own namespace or else `namespace`, and
 * resolves once the API server authorizes the subjects of every binding among them.
 */
export async function createRendered(client: KubeClient, objects: readonly Record<string, unknown>[], namespace: string): Promise<void> {
  const bindings: RoleBindingBody[] = [];
  for (const object of objects) {
    const type = RENDERED_KINDS[String(object['kind'])];
    if (type === undefined) throw new Error(`a rendered ${String(object['kind'])}: not a kind the charts render`);
    const own = (object['metadata'] as { namespace?: string } | undefined)?.namespace;
    const created = await client.create(type, object, type.namespaced ? { namespace: own ?? namespace } : {});
    if (type.kind === 'ClusterRoleBinding' || type.kind === 'RoleBinding') bindings.push(created as unknown as RoleBindingBody);
  }
  // A binding may precede its role in the rendered order: all are created before any is awaited.
  for (const binding of bindings) await awaitRoleBinding(client, binding);
}

export interface RenderedContainer {
  readonly command?: readonly string[];
  readonly args?: readonly string[];
  readonly env?: readonly { readonly name: string; readonly value?: string; readonly valueFrom?: { readonly fieldRef?: { readonly fieldPath: string } } }[];
  readonly volumeMounts?: readonly { readonly name: string; readonly mountPath: string }[];
}

export interface RenderedVolume {
  readonly name: string;
  readonly hostPath?: { readonly path: string };
  readonly configMap?: { readonly name: string };
  readonly secret?: { readonly secretName: string };
}

export interface RenderedPodSpec {
  readonly serviceAccountName: string;
  readonly initContainers?: readonly RenderedContainer[];
  readonly containers: readonly RenderedContainer[];
  readonly volumes?: readonly RenderedVolume[];
  readonly securityContext?: { readonly runAsUser?: number };
}

/** The Pod template of a rendered DaemonSet or Deployment. */
export function podSpecOf(workload: Record<string, unknown> | undefined): RenderedPodSpec {
  const spec = (workload as { spec?: { template?: { spec?: RenderedPodSpec } } } | undefined)?.spec?.template?.spec;
  if (spec === undefined) throw new Error(`${String(workload?.['kind'])} has no Pod template`);
  return spec;
}

/**
 * The environment a container of `pod` gets on a node, for starting its program here: field references
 * resolved from `fields` (as the kubelet resolves them), and a value naming a path at or under one of its
 * mounts rewritten to where `contentOf` says that volume's content is on this machine (a host path stays
 * itself unless `contentOf` says otherwise). Nothing else is inherited.
 */
export function containerEnvironment(
  pod: RenderedPodSpec,
  container: RenderedContainer,
  fields: Readonly<Record<string, string>>,
  contentOf: (volume: RenderedVolume) => string | undefined = (volume) => volume.hostPath?.path,
): Record<string, string> {
  const seenAs = (value: string): string => {
    for (const mount of container.volumeMounts ?? []) {
      if (value !== mount.mountPath && !value.startsWith(`${mount.mountPath}/`)) continue;
      const volume = pod.volumes?.find((candidate) => candidate.name === mount.name);
      const content = volume === undefined ? undefined : contentOf(volume);
      if (content !== undefined) return `${content}${value.slice(mount.mountPath.length)}`;
    }
    return value;
  };
  const env: Record<string, string> = { PATH: process.env['PATH'] ?? '' };
  for (const variable of container.env ?? []) {
    const field = variable.valueFrom?.fieldRef?.fieldPath;
    const value = field === undefined ? variable.value : fields[field];
    if (value === undefined) throw new Error(`cannot resolve ${variable.name}${field === undefined ? '' : ` (field ${field})`}`);
    env[variable.name] = seenAs(value);
  }
  return env;
}

/**
 * A token of ServiceAccount `namespace/name` from the TokenRequest API, as any cluster's admin may ask
 * for one; `boundTo` binds it to a Pod, as a Pod's own token is. The API server may shorten
 * `expirationSeconds` (--service-account-max-token-expiration).
 */
export async function serviceAccountToken(
  admin: KubeClient,
  account: { readonly namespace: string; readonly name: string },
  options: { readonly boundTo?: { readonly name: string; readonly uid: string }; readonly expirationSeconds?: number } = {},
): Promise<string> {
  const { boundTo, expirationSeconds = 3600 } = options;
  const issued = (await admin.request({
    method: 'POST',
    path: `/api/v1/namespaces/${account.namespace}/serviceaccounts/${account.name}/token`,
    body: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds, ...(boundTo === undefined ? {} : { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', ...boundTo } }) },
    },
  })) as { status: { token: string } };
  return issued.status.token;
}

/**
 * A kubeconfig with a token of ServiceAccount `namespace/name`, standing in for the token the kubelet
 * mounts into its Pods; `boundTo` binds the token to a Pod, as a Pod's own token is.
 */
export async function serviceAccountKubeconfig(
  cp: ControlPlane,
  account: { readonly namespace: string; readonly name: string },
  file: string,
  boundTo?: { readonly name: string; readonly uid: string },
): Promise<string> {
  const token = await serviceAccountToken(cp.adminClient, account, boundTo === undefined ? {} : { boundTo });
  return writeKubeconfig(file, cp.server, cp.caCert, `system:serviceaccount:${account.namespace}:${account.name}`, { token });
}
