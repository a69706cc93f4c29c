import type { KubeClient, KubeObject } from '../client.ts';
import { type ResourceType, resourceTypes } from '../resources.ts';
import { waitFor } from './processes.ts';

/** Namespaced RBAC kinds, which the client's resource table leaves out (no component reads them). */
export const ROLE: ResourceType = { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', kind: 'Role', namespaced: true };
export const ROLE_BINDING: ResourceType = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  resource: 'rolebindings',
  kind: 'RoleBinding',
  namespaced: true,
};

export interface RoleBindingSubject {
  readonly kind: 'User' | 'Group' | 'ServiceAccount';
  readonly name: string;
  /** A ServiceAccount's namespace. */
  readonly namespace?: string;
  readonly apiGroup?: string;
}

/** A ClusterRoleBinding, or a RoleBinding when `metadata.namespace` is set. */
export interface RoleBindingBody {
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly roleRef: { readonly apiGroup: 'rbac.authorization.k8s.io'; readonly kind: 'ClusterRole' | 'Role'; readonly name: string };
  readonly subjects: readonly RoleBindingSubject[];
}

interface PolicyRule {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly verbs: readonly string[];
}

/** How long the API server's authorizer may take to follow a binding change on a busy machine. */
const AUTHORIZER_CATCH_UP_MS = 30_000;

/**
 * Creates the binding and resolves once the API server authorizes each of its subjects by it. RBAC
 * decides from a cache the API server fills from a watch, so a request a subject sends right after the
 * create can still be refused, and on a busy machine it is: a test that acts as the subject next would
 * then fail on timing alone.
 */
export async function createRoleBinding(admin: KubeClient, body: RoleBindingBody): Promise<KubeObject> {
  const { namespace } = body.metadata;
  const created = await admin.create(
    namespace === undefined ? resourceTypes.clusterRoleBinding : ROLE_BINDING,
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: namespace === undefined ? 'ClusterRoleBinding' : 'RoleBinding', ...body },
    namespace === undefined ? {} : { namespace },
  );
  await awaitDecision(admin, body, true);
  return created;
}

/** Resolves once the API server authorizes each subject of a binding already created (a chart's, as rendered). */
export function awaitRoleBinding(admin: KubeClient, body: RoleBindingBody): Promise<void> {
  return awaitDecision(admin, body, true);
}

/**
 * Deletes the binding and resolves once the API server refuses its subjects what it granted: for a
 * binding that alone grants its role's first rule to them.
 */
export async function deleteRoleBinding(admin: KubeClient, body: RoleBindingBody): Promise<void> {
  const { name, namespace } = body.metadata;
  if (namespace === undefined) await admin.delete(resourceTypes.clusterRoleBinding, { name });
  else await admin.delete(ROLE_BINDING, { namespace, name });
  await awaitDecision(admin, body, false);
}

/**
 * Waits until a SubjectAccessReview of the role's first resource rule answers `allowed` for every
 * subject. The role is read on each probe: a binding may name a role that is created after it.
 */
async function awaitDecision(admin: KubeClient, body: RoleBindingBody, allowed: boolean): Promise<void> {
  const { namespace } = body.metadata;
  const probeAttributes = async (): Promise<Record<string, string>> => {
    const role =
      body.roleRef.kind === 'ClusterRole'
        ? await admin.get<KubeObject & { rules?: PolicyRule[] }>(resourceTypes.clusterRole, { name: body.roleRef.name })
        : await admin.get<KubeObject & { rules?: PolicyRule[] }>(ROLE, { namespace: namespace ?? '', name: body.roleRef.name });
    const rule = role.rules?.find((candidate) => (candidate.resources?.length ?? 0) > 0);
    if (rule === undefined) throw new Error(`${body.roleRef.kind} ${body.roleRef.name} grants no resource to probe the binding with`);
    const [resource = '', subresource] = (rule.resources?.[0] ?? '').split('/');
    return {
      group: rule.apiGroups?.[0] ?? '',
      resource,
      ...(subresource === undefined ? {} : { subresource }),
      verb: rule.verbs[0] ?? '',
      ...(rule.resourceNames?.[0] === undefined ? {} : { name: rule.resourceNames[0] }),
      ...(namespace === undefined ? {} : { namespace }),
    };
  };
  for (const subject of body.subjects) {
    const identity = identityOf(subject);
    await waitFor(
      `${subject.kind} ${subject.name} to be ${allowed ? 'granted' : 'refused'} ${body.roleRef.kind} ${body.roleRef.name} through ${body.metadata.name}`,
      async () => {
        const review = (await admin.request({
          method: 'POST',
          path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
          body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { ...identity, resourceAttributes: await probeAttributes() } },
        })) as { status?: { allowed?: boolean } };
        return (review.status?.allowed === true) === allowed;
      },
      { timeoutMs: AUTHORIZER_CATCH_UP_MS },
    );
  }
}

/** The user and groups a request of `subject` authenticates as. */
function identityOf(subject: RoleBindingSubject): { user: string; groups: string[] } {
  switch (subject.kind) {
    case 'User':
      return { user: subject.name, groups: ['system:authenticated'] };
    case 'Group':
      return { user: `member-of-${subject.name}`, groups: [subject.name, 'system:authenticated'] };
    case 'ServiceAccount':
      return {
        user: `system:serviceaccount:${subject.namespace ?? ''}:${subject.name}`,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${subject.namespace ?? ''}`, 'system:authenticated'],
      };
  }
}
