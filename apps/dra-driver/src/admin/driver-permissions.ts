import { SriovDraError } from '@sriov-dra/contract';
import type { KubeClient } from '@sriov-dra/k8s';
import { z } from 'zod';

/** One API permission the driver needs for a Pod's managed networks. */
export interface RequiredPermission {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly namespace: string;
}

/**
 * What the driver must be allowed to do for one Pod (§12.3): read the claims, read and patch the Pod,
 * create, read, patch (finalizers) and delete shadows in the Pod's namespace, and read every source
 * template where it lives. Pure.
 */
export function requiredPermissions(podNamespace: string, sourceNamespaces: readonly string[]): RequiredPermission[] {
  const nads = { group: 'k8s.cni.cncf.io', resource: 'network-attachment-definitions' };
  return [
    { verb: 'get', group: 'resource.k8s.io', resource: 'resourceclaims', namespace: podNamespace },
    ...['get', 'patch'].map((verb) => ({ verb, group: '', resource: 'pods', namespace: podNamespace })),
    ...['get', 'create', 'patch', 'delete'].map((verb) => ({ verb, ...nads, namespace: podNamespace })),
    ...[...new Set(sourceNamespaces)].filter((namespace) => namespace !== podNamespace).map((namespace) => ({ verb: 'get', ...nads, namespace })),
  ];
}

const reviewSchema = z.looseObject({ status: z.looseObject({ allowed: z.boolean() }) });

/** The groups the API server gives a ServiceAccount's token, which RBAC bindings may name. */
function groupsOf(user: string): string[] {
  const match = /^system:serviceaccount:([^:]+):[^:]+$/.exec(user);
  return match === null ? [] : ['system:serviceaccounts', `system:serviceaccounts:${match[1] ?? ''}`, 'system:authenticated'];
}

/**
 * Asks the API server, one SubjectAccessReview per permission, what `user` (the driver's identity) may
 * not do; each gap as "USER cannot VERB RESOURCE in NAMESPACE". The caller needs permission to create
 * SubjectAccessReviews (cluster administrators have it).
 */
export async function permissionGaps(client: KubeClient, user: string, required: readonly RequiredPermission[]): Promise<string[]> {
  const gaps: string[] = [];
  for (const permission of required) {
    const answer = await client.request({
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user, groups: groupsOf(user), resourceAttributes: permission },
      },
    });
    const review = reviewSchema.safeParse(answer);
    if (!review.success) {
      throw new SriovDraError('MalformedApiResponse', 'a SubjectAccessReview answer has no status.allowed', {
        object: { kind: 'SubjectAccessReview', name: user },
      });
    }
    if (!review.data.status.allowed) {
      const resource = permission.group === '' ? permission.resource : `${permission.resource}.${permission.group}`;
      gaps.push(`${user} cannot ${permission.verb} ${resource} in ${permission.namespace}`);
    }
  }
  return gaps;
}
