// Node-scoped authorization on a real API server: the chart's RBAC and admission policies as Helm renders
// them, and ServiceAccount tokens from the TokenRequest API bound to a Pod on node A — what the kubelet
// mounts into the driver's and the Multus daemon's Pods. With them the driver and the daemon write what
// is node A's and nothing of node B's; a token bound to no Pod writes nothing; without managed networks
// the driver has no Pod or NAD grant at all.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DRIVER_NAME, MANAGED_BY_VALUE, labels } from '@sriov-dra/contract';
import { type KubeClient, contentTypes, isApiError, resourceTypes } from '@sriov-dra/k8s';
import {
  type ControlPlane,
  UMBRELLA_CHART_DIR,
  createNamespace,
  createReadyNode,
  createRendered,
  helmBinary,
  installCrds,
  serviceAccountToken,
  startControlPlane,
  waitFor,
} from '@sriov-dra/k8s/testing';
import { parseAllDocuments } from 'yaml';

const RELEASE = 'nauth';
const NAMESPACE = 'sriov-dra';
const WORKLOADS = 'workloads';
const DRIVER = `system:serviceaccount:${NAMESPACE}:dra-driver-sriov`;
const DAEMON = `system:serviceaccount:${NAMESPACE}:multus-live-read-proxy`;
/** What node-scoped authorization installs: identities, their grants, the policies. */
const AUTHORIZATION_KINDS = new Set([
  'ServiceAccount',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
]);

let cp: ControlPlane;
const nodeUID: Record<'a' | 'b', string> = { a: '', b: '' };
/** Clients presenting the driver's and the daemon's tokens bound to their Pods on node A, and an unbound one of the driver's. */
let driverA: KubeClient;
let daemonA: KubeClient;
let driverUnbound: KubeClient;

/** `helm template` of the umbrella chart as release `release` into `namespace`, restricted to AUTHORIZATION_KINDS. */
function renderAuthorization(release: string, namespace: string, ...set: string[]): Record<string, unknown>[] {
  const run = spawnSync(helmBinary(), ['template', release, UMBRELLA_CHART_DIR, '--namespace', namespace, ...set.flatMap((value) => ['--set', value])], {
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`helm template: ${run.stderr}`);
  return parseAllDocuments(run.stdout)
    .map((document) => document.toJS() as Record<string, unknown> | null)
    .filter((object): object is Record<string, unknown> => object !== null && AUTHORIZATION_KINDS.has(String(object['kind'])));
}

function pod(name: string, nodeName: string, serviceAccountName = 'default'): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { nodeName, serviceAccountName, containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
  };
}

/** A token of `account` bound to its Pod `podName` on node A, as the kubelet mounts it. */
async function podBoundClient(account: string, podName: string, namespace = NAMESPACE): Promise<KubeClient> {
  const created = await cp.adminClient.create(resourceTypes.pod, pod(podName, 'node-a', account), { namespace });
  return cp.clientWithToken(await serviceAccountToken(cp.adminClient, { namespace, name: account }, { boundTo: { name: podName, uid: created.metadata.uid } }));
}

function shadow(name: string, node: 'a' | 'b'): Record<string, unknown> {
  return {
    apiVersion: 'k8s.cni.cncf.io/v1',
    kind: 'NetworkAttachmentDefinition',
    metadata: { name, labels: { [labels.managedBy]: MANAGED_BY_VALUE, [labels.nodeUID]: nodeUID[node] } },
    spec: { config: '{"cniVersion":"1.0.0","name":"rail-a","type":"sriov","deviceID":"0000:03:00.1"}' },
  };
}

function slice(name: string, nodeName: string): Record<string, unknown> {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: { name },
    spec: { driver: DRIVER_NAME, nodeName, pool: { name: nodeName, generation: 1, resourceSliceCount: 1 }, devices: [] },
  };
}

const networks = (value: string) => ({ metadata: { annotations: { 'k8s.v1.cni.cncf.io/networks': value } } });
const networkStatus = (value: string) => ({ metadata: { annotations: { 'k8s.v1.cni.cncf.io/network-status': value } } });

/** The API server's answer to `write`: its HTTP status and message, or 'allowed'. */
async function refusal(write: () => Promise<unknown>): Promise<{ status: number; message: string } | 'allowed'> {
  try {
    await write();
    return 'allowed';
  } catch (error) {
    if (!isApiError(error)) throw error;
    return { status: error.status, message: error.apiStatus?.message ?? '' };
  }
}

/** The answer to a write of `object` (as the API server names it: `pods "x"`) that policy `suffix` of `component` denies. */
function denial(component: string, suffix: string, object: string, message: string): { status: number; message: string } {
  const name = `${RELEASE}-${component}-${suffix}`;
  return { status: 403, message: `${object} is forbidden: ValidatingAdmissionPolicy '${name}' with binding '${name}' denied request: ${message}` };
}

/** Writes as `client` without storing anything (dry run): admission runs all the same. */
const dryRun = (client: KubeClient, method: 'POST' | 'PATCH', path: string, body: Record<string, unknown>) =>
  client.request({ method, path, query: { dryRun: 'All' }, body, ...(method === 'PATCH' ? { contentType: contentTypes.mergePatch } : {}) });

/**
 * One write per rendered policy that it refuses, made as a dry run. The API server loads policies
 * asynchronously, from two informers (policies, bindings) it compiles a snapshot of each second, so one
 * policy enforced says nothing of the others.
 */
const POLICY_PROBES: readonly { readonly policy: string; readonly write: () => Promise<unknown> }[] = [
  {
    policy: 'dra-driver-sriov-node-resourceslices',
    write: () => dryRun(driverA, 'POST', `/apis/resource.k8s.io/v1/resourceslices`, slice('probe', 'node-b')),
  },
  { policy: 'dra-driver-sriov-node-pods', write: () => dryRun(driverA, 'PATCH', `/api/v1/namespaces/${WORKLOADS}/pods/pod-b`, networks('[]')) },
  {
    policy: 'dra-driver-sriov-node-shadows',
    write: () => dryRun(driverA, 'POST', `/apis/k8s.cni.cncf.io/v1/namespaces/${WORKLOADS}/network-attachment-definitions`, shadow('probe', 'b')),
  },
  {
    policy: 'multus-live-read-proxy-node-pods',
    write: () => dryRun(daemonA, 'PATCH', `/api/v1/namespaces/${WORKLOADS}/pods/pod-b/status`, networkStatus('[]')),
  },
];

beforeAll(async () => {
  cp = await startControlPlane();
  const admin = cp.adminClient;
  await installCrds(admin);
  await createNamespace(admin, NAMESPACE);
  await createNamespace(admin, WORKLOADS);
  nodeUID.a = (await createReadyNode(admin, 'node-a')).metadata.uid;
  nodeUID.b = (await createReadyNode(admin, 'node-b')).metadata.uid;
  const authorization = renderAuthorization(RELEASE, NAMESPACE, 'dra-driver.configurationMode=MULTUS', 'dra-driver.multusAutoAttach=true');
  await createRendered(admin, authorization, NAMESPACE);
  for (const [name, node] of [
    ['pod-a', 'node-a'],
    ['pod-b', 'node-b'],
  ] as const) {
    await admin.create(resourceTypes.pod, pod(name, node), { namespace: WORKLOADS });
  }
  driverA = await podBoundClient('dra-driver-sriov', 'driver-a');
  daemonA = await podBoundClient('multus-live-read-proxy', 'daemon-a');
  driverUnbound = cp.clientWithToken(await serviceAccountToken(admin, { namespace: NAMESPACE, name: 'dra-driver-sriov' }));
  const policies = authorization
    .filter((object) => object['kind'] === 'ValidatingAdmissionPolicy')
    .map((object) => (object['metadata'] as { name: string }).name);
  expect(policies.sort()).toEqual(POLICY_PROBES.map(({ policy }) => `${RELEASE}-${policy}`).sort());
  // Until the API server has compiled a policy with its binding, what it refuses is admitted.
  for (const { policy, write } of POLICY_PROBES) {
    const named = `ValidatingAdmissionPolicy '${RELEASE}-${policy}'`;
    await waitFor(
      `policy ${policy} enforced`,
      async () => {
        const answer = await refusal(write);
        return answer !== 'allowed' && answer.message.includes(named);
      },
      { timeoutMs: 30_000 },
    );
  }
}, 120_000);

afterAll(async () => {
  await cp.stop();
});

describe('the tokens the kubelet mounts', () => {
  it('carry the node of the Pod they are bound to; an unbound token carries none', async () => {
    const review = async (client: KubeClient) =>
      (
        (await client.request({
          method: 'POST',
          path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
          body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
        })) as { status: { userInfo: { username: string; extra?: Record<string, string[]> } } }
      ).status.userInfo;
    const bound = await review(driverA);
    expect({
      username: bound.username,
      node: bound.extra?.['authentication.kubernetes.io/node-name'],
      uid: bound.extra?.['authentication.kubernetes.io/node-uid'],
    }).toEqual({
      username: DRIVER,
      node: ['node-a'],
      uid: [nodeUID.a],
    });
    const unbound = await review(driverUnbound);
    expect({ username: unbound.username, node: unbound.extra?.['authentication.kubernetes.io/node-name'] }).toEqual({ username: DRIVER, node: undefined });
  });
});

describe('the driver, managed networks on', () => {
  it('patches the networks of a Pod on its node, and not of a Pod on node B', async () => {
    const patched = await driverA.patch(resourceTypes.pod, { namespace: WORKLOADS, name: 'pod-a' }, networks('[]'), contentTypes.mergePatch);
    expect(patched.metadata.annotations?.['k8s.v1.cni.cncf.io/networks']).toBe('[]');
    expect(await refusal(() => driverA.patch(resourceTypes.pod, { namespace: WORKLOADS, name: 'pod-b' }, networks('[]'), contentTypes.mergePatch))).toEqual(
      denial(
        'dra-driver-sriov',
        'node-pods',
        'pods "pod-b"',
        `ForeignNodeObject: ${DRIVER} on node node-a may not update Pod ${WORKLOADS}/pod-b, which runs on node node-b; the driver of that Pod's node attaches its networks`,
      ),
    );
    const stored = await cp.adminClient.get(resourceTypes.pod, { namespace: WORKLOADS, name: 'pod-b' });
    expect(stored.metadata.annotations?.['k8s.v1.cni.cncf.io/networks']).toBeUndefined();
  });

  it('creates, finalizes and deletes shadows of its node, and none of node B or of no node', async () => {
    const nads = resourceTypes.networkAttachmentDefinition;
    const own = await driverA.create(nads, shadow('dra-sriov-own', 'a'), { namespace: WORKLOADS });
    await driverA.patch(nads, { namespace: WORKLOADS, name: 'dra-sriov-own' }, { metadata: { finalizers: [] } }, contentTypes.mergePatch);
    await driverA.delete(nads, { namespace: WORKLOADS, name: 'dra-sriov-own' }, { uid: own.metadata.uid });

    const foreign = (name: string, operation: string, which: string) =>
      denial(
        'dra-driver-sriov',
        'node-shadows',
        `network-attachment-definitions.k8s.cni.cncf.io "${name}"`,
        `ForeignNodeObject: ${DRIVER} on node node-a (UID ${nodeUID.a}) may not ${operation} NetworkAttachmentDefinition ${WORKLOADS}/${name}, ${which}; the driver writes only its own node's shadows`,
      );
    expect(await refusal(() => driverA.create(nads, shadow('dra-sriov-b', 'b'), { namespace: WORKLOADS }))).toEqual(
      foreign('dra-sriov-b', 'create', `which is a shadow of node UID ${nodeUID.b}`),
    );
    const unlabelled = { ...shadow('source', 'a'), metadata: { name: 'source' } };
    expect(await refusal(() => driverA.create(nads, unlabelled, { namespace: WORKLOADS }))).toEqual(
      foreign('source', 'create', 'which is no shadow of a node (label sriovnetwork.k8snetworkplumbingwg.io/node-uid)'),
    );
    await cp.adminClient.create(nads, shadow('dra-sriov-b', 'b'), { namespace: WORKLOADS });
    expect(await refusal(() => driverA.delete(nads, { namespace: WORKLOADS, name: 'dra-sriov-b' }))).toEqual(
      foreign('dra-sriov-b', 'delete', `which is a shadow of node UID ${nodeUID.b}`),
    );
    // Relabelling node B's shadow as its own is refused by what it was.
    expect(
      await refusal(() =>
        driverA.patch(nads, { namespace: WORKLOADS, name: 'dra-sriov-b' }, { metadata: { labels: { [labels.nodeUID]: nodeUID.a } } }, contentTypes.mergePatch),
      ),
    ).toEqual(foreign('dra-sriov-b', 'update', `which is a shadow of node UID ${nodeUID.b}`));
  });

  it('writes its own node’s ResourceSlices and cannot create, update or delete node B’s', async () => {
    const slices = resourceTypes.resourceSlice;
    await driverA.create(slices, slice('node-a-slice', 'node-a'));
    await driverA.patch(slices, { name: 'node-a-slice' }, { metadata: { labels: { updated: 'yes' } } }, contentTypes.mergePatch);
    await driverA.delete(slices, { name: 'node-a-slice' });

    const foreign = (operation: string, name: string) =>
      denial(
        'dra-driver-sriov',
        'node-resourceslices',
        `resourceslices.resource.k8s.io "${name}"`,
        `ForeignNodeObject: ${DRIVER} on node node-a may not ${operation} ResourceSlice ${name}, which is node node-b's; each node's driver writes only its own node's slices`,
      );
    expect(await refusal(() => driverA.create(slices, slice('node-b-new', 'node-b')))).toEqual(foreign('create', 'node-b-new'));
    await cp.adminClient.create(slices, slice('node-b-slice', 'node-b'));
    expect(await refusal(() => driverA.patch(slices, { name: 'node-b-slice' }, { metadata: { labels: { updated: 'yes' } } }, contentTypes.mergePatch))).toEqual(
      foreign('update', 'node-b-slice'),
    );
    expect(await refusal(() => driverA.delete(slices, { name: 'node-b-slice' }))).toEqual(foreign('delete', 'node-b-slice'));
  });

  it('writes nothing with a token bound to no Pod', async () => {
    expect(
      await refusal(() => driverUnbound.patch(resourceTypes.pod, { namespace: WORKLOADS, name: 'pod-a' }, networks('[]'), contentTypes.mergePatch)),
    ).toEqual(
      denial(
        'dra-driver-sriov',
        'node-pods',
        'pods "pod-a"',
        `NodeBoundTokenRequired: ${DRIVER} may write Pod ${WORKLOADS}/pod-a only with a token bound to its Pod (authentication.kubernetes.io/node-name); run it in a Pod and use the token the kubelet mounts`,
      ),
    );
    expect(await refusal(() => driverUnbound.create(resourceTypes.resourceSlice, slice('unbound', 'node-a')))).toEqual(
      denial(
        'dra-driver-sriov',
        'node-resourceslices',
        'resourceslices.resource.k8s.io "unbound"',
        `NodeBoundTokenRequired: ${DRIVER} may write ResourceSlice unbound only with a token bound to its Pod (authentication.kubernetes.io/node-name); run it in a Pod and use the token the kubelet mounts`,
      ),
    );
  });
});

describe('the Multus daemon', () => {
  it('reports network-status on Pods of its node, not of node B', async () => {
    const status = { namespace: WORKLOADS, name: 'pod-a', subresource: 'status' };
    const patched = await daemonA.patch(resourceTypes.pod, status, networkStatus('[]'), contentTypes.mergePatch);
    expect(patched.metadata.annotations?.['k8s.v1.cni.cncf.io/network-status']).toBe('[]');
    expect(await refusal(() => daemonA.patch(resourceTypes.pod, { ...status, name: 'pod-b' }, networkStatus('[]'), contentTypes.mergePatch))).toEqual(
      denial(
        'multus-live-read-proxy',
        'node-pods',
        'pods "pod-b"',
        `ForeignNodeObject: ${DAEMON} on node node-a may not write the status of Pod ${WORKLOADS}/pod-b, which runs on node node-b; the Multus daemon of that Pod's node reports its networks`,
      ),
    );
  });
});

describe('managed networks off', () => {
  it('renders no Pod or NAD grant for the driver: the API server refuses by RBAC', async () => {
    const namespace = 'sriov-dra-off';
    await createNamespace(cp.adminClient, namespace);
    const objects = renderAuthorization('unmanaged', namespace);
    const policies = objects.filter((object) => String(object['kind']).startsWith('ValidatingAdmissionPolicy'));
    expect(policies.map((object) => `${String(object['kind'])} ${(object['metadata'] as { name: string }).name}`).sort()).toEqual([
      'ValidatingAdmissionPolicy unmanaged-dra-driver-sriov-node-resourceslices',
      'ValidatingAdmissionPolicy unmanaged-multus-live-read-proxy-node-pods',
      'ValidatingAdmissionPolicyBinding unmanaged-dra-driver-sriov-node-resourceslices',
      'ValidatingAdmissionPolicyBinding unmanaged-multus-live-read-proxy-node-pods',
    ]);
    await createRendered(cp.adminClient, objects, namespace);
    const driver = await podBoundClient('dra-driver-sriov', 'driver-off', namespace);
    const user = `system:serviceaccount:${namespace}:dra-driver-sriov`;
    expect(await refusal(() => driver.patch(resourceTypes.pod, { namespace: WORKLOADS, name: 'pod-a' }, networks('[]'), contentTypes.mergePatch))).toEqual({
      status: 403,
      message: `pods "pod-a" is forbidden: User "${user}" cannot patch resource "pods" in API group "" in the namespace "${WORKLOADS}"`,
    });
    expect(await refusal(() => driver.create(resourceTypes.networkAttachmentDefinition, shadow('dra-sriov-off', 'a'), { namespace: WORKLOADS }))).toEqual({
      status: 403,
      message: `network-attachment-definitions.k8s.cni.cncf.io is forbidden: User "${user}" cannot create resource "network-attachment-definitions" in API group "k8s.cni.cncf.io" in the namespace "${WORKLOADS}"`,
    });
  });
});
