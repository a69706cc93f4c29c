// The test bindings' helpers on a real kube-apiserver: a binding is reported made only once RBAC
// authorizes its subjects by it, and reported gone only once it no longer does.
import { describe, expect, it, jest } from '@jest/globals';
import { isApiError } from '../src/api-errors.ts';
import { resourceTypes } from '../src/resources.ts';
import { createRoleBinding, deleteRoleBinding, serviceAccountToken } from '../src/testing/index.ts';
import { createNamespace, useControlPlane } from './fixtures.ts';

const shared = useControlPlane({ namespace: 'granted' });

// A helper gives the authorizer up to 30 s to follow a change before it reports which subject it waited for.
jest.setTimeout(60_000);

const podReader = (name: string) => ({
  metadata: { name },
  rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }],
});

describe('createRoleBinding', () => {
  it('resolves only once its subject is authorized: a binding made before its role waits for the role', async () => {
    let resolved = false;
    const binding = createRoleBinding(shared.admin, {
      metadata: { name: 'late-role' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'late-role' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'late-user' }],
    }).then(() => {
      resolved = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(resolved).toBe(false);

    await shared.admin.create(resourceTypes.clusterRole, podReader('late-role'));
    await binding;
    expect((await shared.cp.clientFor('late-user').list(resourceTypes.pod, { namespace: 'granted' })).items).toEqual([]);
  });

  it('grants a ServiceAccount a role in one namespace through a RoleBinding', async () => {
    await createNamespace(shared.admin, 'elsewhere');
    await shared.admin.create(
      resourceTypes.serviceAccount,
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reader' } },
      { namespace: 'granted' },
    );
    await shared.admin.create(resourceTypes.clusterRole, podReader('namespaced-reader'));
    await createRoleBinding(shared.admin, {
      metadata: { name: 'namespaced-reader', namespace: 'granted' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'namespaced-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: 'granted' }],
    });
    const reader = shared.cp.clientWithToken(await serviceAccountToken(shared.admin, { namespace: 'granted', name: 'reader' }));
    expect((await reader.list(resourceTypes.pod, { namespace: 'granted' })).items).toEqual([]);
    const refused = await reader.list(resourceTypes.pod, { namespace: 'elsewhere' }).catch((error: unknown) => error);
    expect(isApiError(refused, 'Forbidden')).toBe(true);
  });
});

describe('deleteRoleBinding', () => {
  it('resolves once the subject is refused what the binding granted', async () => {
    await shared.admin.create(resourceTypes.clusterRole, podReader('revoked-reader'));
    const body = {
      metadata: { name: 'revoked-reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'revoked-reader' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'revoked-user' }],
    } as const;
    await createRoleBinding(shared.admin, body);
    const user = shared.cp.clientFor('revoked-user');
    expect((await user.list(resourceTypes.pod, { namespace: 'granted' })).items).toEqual([]);

    await deleteRoleBinding(shared.admin, body);
    const refused = await user.list(resourceTypes.pod, { namespace: 'granted' }).catch((error: unknown) => error);
    expect(isApiError(refused, 'Forbidden')).toBe(true);
  });
});
