// Reading a source template on the real API server (§5.2 step 5, §5.4): one live GET with the driver's
// own authorization returns the NAD's UID, resourceVersion and exact spec.config; a missing NAD, one the
// driver may not read (RBAC Forbidden) and a file-backed NAD are typed refusals naming the NAD.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, createRoleBinding, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import { readSourceTemplate } from '../src/managed/source-template.ts';

const DRIVER_USER = 'system:serviceaccount:dra-driver-sriov:dra-driver-sriov';
const READABLE = 'ai-workloads';
const UNREADABLE = 'infra';
/** Spacing and key order as an administrator wrote them: the snapshot keeps the text byte for byte. */
const CONFIG = '{ "cniVersion": "1.0.0",\n  "plugins": [ {"type": "sriov", "ipam": {"type": "whereabouts", "range": "192.0.2.0/24"}} ] }';

let cp: ControlPlane;
let admin: KubeClient;
let driver: KubeClient;

async function createNad(namespace: string, name: string, spec: Record<string, unknown>): Promise<KubeObject> {
  return admin.create(
    resourceTypes.networkAttachmentDefinition,
    { apiVersion: 'k8s.cni.cncf.io/v1', kind: 'NetworkAttachmentDefinition', metadata: { name, namespace }, spec },
    { namespace },
  );
}

beforeAll(async () => {
  cp = await startControlPlane();
  admin = cp.adminClient;
  await installCrds(admin);
  await createNamespace(admin, READABLE);
  await createNamespace(admin, UNREADABLE);
  // Read access in one namespace only, so the other one answers Forbidden through RBAC itself.
  await admin.create(resourceTypes.clusterRole, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'source-template-reader' },
    rules: [{ apiGroups: ['k8s.cni.cncf.io'], resources: ['network-attachment-definitions'], verbs: ['get'] }],
  });
  await createRoleBinding(admin, {
    metadata: { name: 'source-template-reader', namespace: READABLE },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'source-template-reader' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: DRIVER_USER }],
  });
  driver = cp.clientFor(DRIVER_USER);
}, 180_000);

afterAll(async () => {
  await cp.stop();
});

describe('readSourceTemplate', () => {
  it('returns the UID, resourceVersion and exact configuration text the API server holds', async () => {
    const created = await createNad(READABLE, 'rail-a-net', { config: CONFIG });
    const template = await readSourceTemplate(driver, { namespace: READABLE, name: 'rail-a-net' }, AbortSignal.timeout(10_000));
    expect(template).toEqual({
      namespace: 'ai-workloads',
      name: 'rail-a-net',
      uid: created.metadata.uid,
      resourceVersion: created.metadata.resourceVersion,
      config: CONFIG,
    });
  });

  it('reports a missing NAD as ApiNotFound against that NAD, with what to do', async () => {
    await expect(readSourceTemplate(driver, { namespace: READABLE, name: 'no-such-net' })).rejects.toMatchObject({
      code: 'ApiNotFound',
      object: { kind: 'NetworkAttachmentDefinition', namespace: 'ai-workloads', name: 'no-such-net' },
      message: expect.stringContaining(
        'NetworkAttachmentDefinition ai-workloads/no-such-net: the source template does not exist — create it, or correct the reference',
      ),
    });
  });

  it('reports a NAD the driver may not read as ApiForbidden, naming the permission', async () => {
    await createNad(UNREADABLE, 'rail-b-net', { config: CONFIG });
    await expect(readSourceTemplate(driver, { namespace: UNREADABLE, name: 'rail-b-net' })).rejects.toMatchObject({
      code: 'ApiForbidden',
      object: { kind: 'NetworkAttachmentDefinition', namespace: 'infra', name: 'rail-b-net' },
      message: expect.stringContaining('get on network-attachment-definitions.k8s.cni.cncf.io in namespace infra'),
    });
    // The same object is there for a reader with the permission: the refusal came from RBAC.
    await expect(readSourceTemplate(admin, { namespace: UNREADABLE, name: 'rail-b-net' })).resolves.toMatchObject({ config: CONFIG });
  });

  it('refuses a file-backed NAD, whose spec.config is empty', async () => {
    await createNad(READABLE, 'file-backed', {});
    await expect(readSourceTemplate(driver, { namespace: READABLE, name: 'file-backed' })).rejects.toMatchObject({
      code: 'MissingInlineConfig',
      object: { kind: 'NetworkAttachmentDefinition', namespace: 'ai-workloads', name: 'file-backed' },
    });
  });
});
