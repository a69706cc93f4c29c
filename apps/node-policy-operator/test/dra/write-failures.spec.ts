// Writes the API server refuses (RBAC stands in for any failing write): a policy whose DeviceAttributes
// cannot be written reports DRAConfigurationSyncFailed, never True, until the write succeeds; an
// invalidation whose stale object cannot be deleted still reports the policy not ready, keeps the failure
// for a retry, and completes once the delete is allowed.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import {
  type ControlPlane,
  type RoleBindingBody,
  createNamespace,
  createRoleBinding,
  deleteRoleBinding,
  installCrds,
  startControlPlane,
} from '@sriov-dra/k8s/testing';
import type { NodePolicyReconcilerOptions } from '../../src/dra/node-policy-reconciler.ts';
import { type CachedReconciler, startCachedReconciler } from './cached-reconciler.ts';
import { reconcileSriovNetwork } from '../../src/network/sriov-network-reconciler.ts';
import { draReference, nodePolicyBody, seedNode, sriovNetworkBody } from '../cluster-objects.ts';

const OPERATOR_NS = 'sriov-network-operator';
const USER = 'restricted-operator';

type Condition = { type: string; status: string; reason: string; message: string };

let cp: ControlPlane;
let admin: KubeClient;
let options: Omit<NodePolicyReconcilerOptions, 'informers' | 'nodeProblems'>;
let reconciler: CachedReconciler;
let policyUID: string;

const rule = (apiGroups: string[], resources: string[], verbs: string[]) => ({ apiGroups, resources, verbs });

const ATTRIBUTE_WRITES: RoleBindingBody = {
  metadata: { name: 'op-attributes-write' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'op-attributes-write' },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: USER }],
};

beforeAll(async () => {
  cp = await startControlPlane();
  admin = cp.adminClient;
  await installCrds(admin);
  await createNamespace(admin, OPERATOR_NS);
  await createNamespace(admin, 'ai-workloads');
  await admin.create(resourceTypes.clusterRole, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'op-base' },
    rules: [
      rule(['sriovnetwork.openshift.io'], ['sriovnetworknodepolicies', 'sriovnetworks', 'sriovnetworknodestates'], ['get', 'list', 'watch']),
      rule(['sriovnetwork.openshift.io'], ['sriovnetworknodepolicies/status'], ['patch']),
      rule(['k8s.cni.cncf.io'], ['network-attachment-definitions'], ['get', 'list', 'watch']),
      rule([''], ['nodes'], ['get', 'list', 'watch']),
      rule(['sriovnetwork.k8snetworkplumbingwg.io'], ['deviceattributes'], ['get', 'list', 'watch']),
      rule(['sriovnetwork.k8snetworkplumbingwg.io'], ['sriovresourcepolicies'], ['get', 'list', 'watch', 'create', 'patch', 'delete']),
    ],
  });
  await admin.create(resourceTypes.clusterRole, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'op-attributes-write' },
    rules: [rule(['sriovnetwork.k8snetworkplumbingwg.io'], ['deviceattributes'], ['create', 'patch', 'delete'])],
  });
  await createRoleBinding(admin, {
    metadata: { name: 'op-base' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'op-base' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: USER }],
  });
  await seedNode(admin, OPERATOR_NS, 'worker-1', { rail: 'true' }, [
    { name: 'ens1f0', pciAddress: '0000:3b:00.0', Vfs: [{ pciAddress: '0000:3b:00.2', vfID: 0 }] },
  ]);
  const common = { operatorNamespace: OPERATOR_NS, resourcePrefix: 'openshift.io', logger: pino({ level: 'silent' }) };
  await admin.create(resourceTypes.sriovNetwork, sriovNetworkBody(OPERATOR_NS, 'rail-a-net', { resourceName: 'r', networkNamespace: 'ai-workloads' }), {
    namespace: OPERATOR_NS,
  });
  await reconcileSriovNetwork({ namespace: OPERATOR_NS, name: 'rail-a-net' }, { ...common, client: admin });
  const policy = await admin.create(
    resourceTypes.sriovNetworkNodePolicy,
    nodePolicyBody(OPERATOR_NS, 'rail-a-policy', {
      resourceName: 'sriov_vfs',
      nodeSelector: { rail: 'true' },
      numVfs: 1,
      nicSelector: { pfNames: ['ens1f0'] },
      dra: draReference(OPERATOR_NS, 'rail-a-net'),
    }),
    { namespace: OPERATOR_NS },
  );
  policyUID = policy.metadata.uid;
  options = { ...common, client: cp.clientFor(USER), draEnabled: true };
  reconciler = await startCachedReconciler(options, admin);
}, 120_000);

afterAll(async () => {
  await reconciler.stop();
  await cp.stop();
});

async function draReady(): Promise<Condition | undefined> {
  const policy = await admin.get<KubeObject & { status?: { conditions?: Condition[] } }>(resourceTypes.sriovNetworkNodePolicy, {
    namespace: OPERATOR_NS,
    name: 'rail-a-policy',
  });
  return policy.status?.conditions?.find((condition) => condition.type === 'DRAConfigurationReady');
}

const attributesExist = (): Promise<boolean> =>
  admin.get(resourceTypes.deviceAttributes, { namespace: OPERATOR_NS, name: `dra-policy-${policyUID}-attrs` }).then(
    () => true,
    () => false,
  );

describe('node-policy reconciliation under refused writes', () => {
  it('reports DRAConfigurationSyncFailed, never True, until its DeviceAttributes can be written', async () => {
    const refused = await reconciler.reconcile();
    expect(refused.failures).toEqual([expect.stringContaining('forbidden')]);
    expect(await draReady()).toMatchObject({
      status: 'False',
      reason: 'DRAConfigurationSyncFailed',
      message: expect.stringContaining(`dra-policy-${policyUID}-attrs`),
    });
    expect(await attributesExist()).toBe(false);

    await createRoleBinding(admin, ATTRIBUTE_WRITES);
    expect((await reconciler.reconcile()).failures).toEqual([]);
    expect(await draReady()).toMatchObject({ status: 'True', reason: 'DRAConfigurationApplied' });
    expect(await attributesExist()).toBe(true);
  }, 60_000);

  it('keeps an invalidated policy not ready while its stale attributes cannot be deleted, and deletes them once allowed', async () => {
    await deleteRoleBinding(admin, ATTRIBUTE_WRITES);
    await admin.patch(
      resourceTypes.networkAttachmentDefinition,
      { namespace: 'ai-workloads', name: 'rail-a-net' },
      { spec: { config: '{"cniVersion":"1.0.0","name":"x","type":"sriov"}' } },
      'application/merge-patch+json',
    );
    expect((await reconciler.reconcile()).failures).toEqual([expect.stringContaining(`deleting dra-policy-${policyUID}-attrs`)]);
    expect(await draReady()).toMatchObject({ status: 'False', reason: 'SourceNADNotReady' });
    expect(await attributesExist()).toBe(true);

    await createRoleBinding(admin, ATTRIBUTE_WRITES);
    expect((await reconciler.reconcile()).failures).toEqual([]);
    expect(await attributesExist()).toBe(false);
    expect(await draReady()).toMatchObject({ status: 'False', reason: 'SourceNADNotReady' });
  }, 60_000);
});
