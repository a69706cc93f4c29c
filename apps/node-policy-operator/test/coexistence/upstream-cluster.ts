// A cluster that already runs the SR-IOV network operator, for the coexistence specs: upstream's CRDs
// (charts/sriov-dra/test-data/upstream-crds) with upstream's published example SriovNetworks and node
// policies (test-data/upstream-samples) stored under them, then `crds apply` (spec.dra merged into
// upstream's policy CRD) and the chart's own CRDs, as installing next to upstream does; and what upstream's
// controllers write, under their field managers, since upstream's operator itself does not run: for a
// SriovNetwork it reconciled, the source NAD with upstream's owner marker, the Ready condition and the
// NAD-cleanup finalizer; for a node, its SriovNetworkNodeState (test-data/upstream-node-states).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { parseAllDocuments } from 'yaml';
import { type KubeClient, type KubeObject, resourcePath, resourceTypes } from '@sriov-dra/k8s';
import {
  type ControlPlane,
  OPERATOR_CHART_DIR,
  CHART_CRDS_DIR,
  containerEnvironment,
  createNamespace,
  createRendered,
  installCrdObjects,
  installCrds,
  podSpecOf,
  renderChartTemplate,
  serviceAccountToken,
} from '@sriov-dra/k8s/testing';
import { parseRunFlags } from '../../src/cli/run-flags.ts';
import { applyUpstreamOwnedCrds, crdsApplySucceeded, formatCrdsReport } from '../../src/crds/apply-crds.ts';
import { type Operator, startOperator } from '../../src/operator.ts';
import { sriovNetworkBody } from '../cluster-objects.ts';

const DATA_DIR = fileURLToPath(new URL('../../../../charts/sriov-dra/test-data/', import.meta.url));
const SAMPLES_DIR = join(DATA_DIR, 'upstream-samples', 'sriov-network-operator');

export const RELEASE_NS = 'sriov-dra';
export const OPERATOR_NS = 'sriov-network-operator';
/** The field manager upstream's controller-runtime client writes with (its binary's name). */
export const UPSTREAM_MANAGER = 'sriov-network-operator';
/** The field manager of upstream's config daemon, which writes a node state's status. */
const CONFIG_DAEMON_MANAGER = 'sriov-network-config-daemon';
export const NAD_CLEANUP_FINALIZER = 'netattdef.finalizers.sriovnetwork.openshift.io';
/** The operator's user at the API server: the chart's ServiceAccount. */
export const OPERATOR_USER = `system:serviceaccount:${RELEASE_NS}:node-policy-operator`;

/** Upstream's CRDs of the SR-IOV network operator and Multus (not the DRA driver's: that one is not installed yet). */
const UPSTREAM_CRD_FILES = [
  'sriovnetwork.openshift.io_sriovnetworks.yaml',
  'sriovnetwork.openshift.io_sriovnetworknodepolicies.yaml',
  'sriovnetwork.openshift.io_sriovnetworknodestates.yaml',
  'k8s.cni.cncf.io_networkattachmentdefinitions_crd.yaml',
];
/** The upstream documents whose SriovNetworks and node policies the cluster holds. */
const SAMPLE_FILES = ['doc_quickstart.yaml', 'doc_basic-examples.yaml', 'doc_advanced-features.yaml'];
/** Namespaces those samples live in or place their NADs in, besides `default`. */
const SAMPLE_NAMESPACES = ['my-app-namespace', 'production'];

export type NetworkObject = KubeObject & {
  spec: { resourceName: string; networkNamespace?: string; ipam?: string; vlan?: number };
  status?: { conditions?: { type: string; status: string; reason: string; observedGeneration?: number }[] };
};
export type NadObject = KubeObject & { spec: { config: string } };

const readYaml = (path: string): Record<string, unknown>[] =>
  parseAllDocuments(readFileSync(path, 'utf8')).map((document) => document.toJS() as Record<string, unknown>);

/** Every SriovNetwork and SriovNetworkNodePolicy of the sample documents, first occurrence of each name. */
function upstreamSamples(): Record<string, unknown>[] {
  const seen = new Set<string>();
  return SAMPLE_FILES.flatMap((file) => readYaml(join(SAMPLES_DIR, file)))
    .filter((object) => object['kind'] === 'SriovNetwork' || object['kind'] === 'SriovNetworkNodePolicy')
    .filter((object) => {
      const metadata = object['metadata'] as { namespace: string; name: string };
      const key = `${String(object['kind'])}/${metadata.namespace}/${metadata.name}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

/**
 * Upstream's CRDs and sample objects, then `crds apply` (upstream's policy CRD gains spec.dra; the stored
 * objects stay) and the chart's CRDs, and the namespaces the operator and the scenarios use.
 */
export async function seedUpstreamCluster(admin: KubeClient): Promise<void> {
  await installCrdObjects(
    admin,
    UPSTREAM_CRD_FILES.flatMap((file) => readYaml(join(DATA_DIR, 'upstream-crds', file))),
  );
  for (const namespace of [OPERATOR_NS, RELEASE_NS, 'ai-workloads', ...SAMPLE_NAMESPACES]) await createNamespace(admin, namespace);
  for (const sample of upstreamSamples()) {
    const namespace = (sample['metadata'] as { namespace: string }).namespace;
    const type = sample['kind'] === 'SriovNetwork' ? resourceTypes.sriovNetwork : resourceTypes.sriovNetworkNodePolicy;
    // As `kubectl create --validate=false` stores them: a few samples spell fields upstream's schema does
    // not declare (nicSelector.pfName), which the API server prunes.
    await admin.request({
      method: 'POST',
      path: resourcePath(type, { namespace }),
      query: { fieldValidation: 'Ignore', fieldManager: 'kubectl-create' },
      body: sample,
    });
  }
  const report = await applyUpstreamOwnedCrds(admin, { dryRun: false, namespace: OPERATOR_NS });
  if (!crdsApplySucceeded(report)) throw new Error(`crds apply: ${formatCrdsReport(report).join('; ')}`);
  await installCrds(admin, [CHART_CRDS_DIR]);
}

/**
 * A Node with `labels`, and its SriovNetworkNodeState from test-data/upstream-node-states written as upstream
 * writes it: created by the policy controller (metadata and spec), its status then merge-patched by the
 * config daemon, under upstream's CRD schema.
 */
export async function seedUpstreamNode(admin: KubeClient, name: string, labels: Readonly<Record<string, string>>): Promise<void> {
  const state = readYaml(join(DATA_DIR, 'upstream-node-states', 'sriovnetworknodestates.yaml')).find(
    (document) => (document['metadata'] as { name: string }).name === name,
  );
  if (state === undefined) throw new Error(`test-data/upstream-node-states has no SriovNetworkNodeState ${name}`);
  const { status, ...created } = state;
  const namespace = (state['metadata'] as { namespace: string }).namespace;
  await admin.create(resourceTypes.node, { apiVersion: 'v1', kind: 'Node', metadata: { name, labels } });
  await admin.create(resourceTypes.sriovNetworkNodeState, created, { namespace, fieldManager: UPSTREAM_MANAGER });
  await admin.patch(resourceTypes.sriovNetworkNodeState, { namespace, name, subresource: 'status' }, { status }, 'application/merge-patch+json', {
    fieldManager: CONFIG_DAEMON_MANAGER,
  });
}

/** The sample SriovNetworks as stored. */
export async function sampleNetworks(admin: KubeClient): Promise<NetworkObject[]> {
  const names = new Set(
    upstreamSamples()
      .filter((object) => object['kind'] === 'SriovNetwork')
      .map((object) => {
        const metadata = object['metadata'] as { namespace: string; name: string };
        return `${metadata.namespace}/${metadata.name}`;
      }),
  );
  return (await admin.list<NetworkObject>(resourceTypes.sriovNetwork)).items.filter((item) =>
    names.has(`${item.metadata.namespace ?? ''}/${item.metadata.name}`),
  );
}

export function nadPlace(network: NetworkObject): { namespace: string; name: string } {
  const target = network.spec.networkNamespace ?? '';
  return { namespace: target === '' ? (network.metadata.namespace ?? '') : target, name: network.metadata.name };
}

/**
 * What upstream's network controller leaves for a SriovNetwork it reconciled: the NAD at its place with
 * upstream's annotations (and an ownerReference in the same namespace) carrying `config`, the
 * NAD-cleanup finalizer when the network lives in the operator namespace, and Ready=True for its
 * generation. Written under upstream's field manager.
 */
export async function writeAsUpstream(admin: KubeClient, network: NetworkObject, config: string): Promise<void> {
  const namespace = network.metadata.namespace ?? '';
  const place = nadPlace(network);
  await admin.create(
    resourceTypes.networkAttachmentDefinition,
    {
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: {
        ...place,
        annotations: {
          'k8s.v1.cni.cncf.io/resourceName': `openshift.io/${network.spec.resourceName}`,
          'sriovnetwork.openshift.io/owner-ref': `SriovNetwork.sriovnetwork.openshift.io/${namespace}/${network.metadata.name}`,
        },
        ...(place.namespace === namespace
          ? { ownerReferences: [{ apiVersion: 'sriovnetwork.openshift.io/v1', kind: 'SriovNetwork', name: network.metadata.name, uid: network.metadata.uid }] }
          : {}),
      },
      spec: { config },
    },
    { namespace: place.namespace, fieldManager: UPSTREAM_MANAGER },
  );
  const at = { namespace, name: network.metadata.name };
  if (namespace === OPERATOR_NS) {
    await admin.patch(resourceTypes.sriovNetwork, at, { metadata: { finalizers: [NAD_CLEANUP_FINALIZER] } }, 'application/merge-patch+json', {
      fieldManager: UPSTREAM_MANAGER,
    });
  }
  await admin.patch(
    resourceTypes.sriovNetwork,
    { ...at, subresource: 'status' },
    {
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'NetworkReady',
            message: 'NetworkAttachmentDefinition is provisioned and ready',
            observedGeneration: network.metadata.generation ?? 1,
            lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          },
        ],
      },
    },
    'application/merge-patch+json',
    { fieldManager: UPSTREAM_MANAGER },
  );
}

/** A NAD config as compact JSON: a rendering of this project's (re-indented, as upstream's) differs in bytes, so any write of it shows. */
export function compactConfig(network: NetworkObject): string {
  const ipam = network.spec.ipam === undefined || network.spec.ipam.trim() === '' ? {} : (JSON.parse(network.spec.ipam) as unknown);
  return JSON.stringify({ cniVersion: '1.0.0', name: network.metadata.name, type: 'sriov', vlan: network.spec.vlan ?? 0, vlanQoS: 0, ipam });
}

/** The chart's node-policy operator objects for `mode`, rendered by Helm. */
export function renderOperator(mode: string, healthPort: number): { rbac: Record<string, unknown>[]; deployment: Record<string, unknown> } {
  const release = { namespace: RELEASE_NS, values: { mode, global: { operatorNamespace: OPERATOR_NS }, healthPort } };
  const rbac = ['serviceaccount.yaml', 'rbac.yaml'].flatMap((template) => renderChartTemplate(OPERATOR_CHART_DIR, template, release));
  const [deployment] = renderChartTemplate(OPERATOR_CHART_DIR, 'deployment.yaml', release);
  if (deployment === undefined) throw new Error('the chart rendered no operator Deployment');
  return { rbac, deployment };
}

/** Creates the rendered ServiceAccount and RBAC, or (an upgrade) replaces the rules of those that exist. */
export async function applyRbac(admin: KubeClient, objects: readonly Record<string, unknown>[]): Promise<void> {
  const existing = await admin.get(resourceTypes.serviceAccount, { namespace: RELEASE_NS, name: 'node-policy-operator' }).catch(() => undefined);
  if (existing === undefined) {
    await createRendered(admin, objects, RELEASE_NS);
    return;
  }
  for (const object of objects.filter((candidate) => candidate['kind'] === 'ClusterRole')) {
    const name = (object['metadata'] as { name: string }).name;
    await admin.patch(resourceTypes.clusterRole, { name }, { rules: object['rules'] }, 'application/merge-patch+json');
  }
}

/**
 * Starts the operator in this process exactly as the rendered Deployment configures it: the container's
 * arguments and environment through the real flag parser, Pod `podName`, authorized by the ServiceAccount's
 * token alone.
 */
export async function startRenderedOperator(cp: ControlPlane, deployment: Record<string, unknown>, podName: string): Promise<Operator> {
  const pod = podSpecOf(deployment);
  const [container] = pod.containers;
  if (container === undefined) throw new Error('the chart rendered no operator container');
  const env = containerEnvironment(pod, container, { 'metadata.name': podName, 'metadata.namespace': RELEASE_NS });
  const [command, ...args] = container.args ?? [];
  if (command !== 'run') throw new Error(`the operator container runs ${String(command)}, not run`);
  const flags = parseRunFlags(args, env);
  if (!flags.ok) throw new Error(flags.error.message);
  const token = await serviceAccountToken(cp.adminClient, { namespace: RELEASE_NS, name: pod.serviceAccountName });
  return startOperator(flags.value, cp.clientWithToken(token), pino({ level: 'silent' }));
}

/** The operator's writes (create, update, patch, delete) on NADs and SriovNetworks, from the API server's audit log, after the first `skip` requests. */
export async function networkWrites(cp: ControlPlane, skip = 0): Promise<string[]> {
  const requests = ((await cp.auditLog?.requests()) ?? []).slice(skip);
  return requests
    .filter((event) => event.user.username === OPERATOR_USER && ['create', 'update', 'patch', 'delete'].includes(event.verb))
    .filter((event) => ['network-attachment-definitions', 'sriovnetworks'].includes(event.objectRef?.resource ?? ''))
    .map(
      (event) =>
        `${event.verb} ${event.objectRef?.resource ?? ''}${event.objectRef?.subresource === undefined ? '' : `/${event.objectRef.subresource}`} ${event.objectRef?.namespace ?? ''}/${event.objectRef?.name ?? ''}`,
    );
}

/**
 * The operator's requests on Namespaces after the first `skip` requests, as `<verb> <status code>`: refused
 * ones too, so a watch opened without the grant shows as much as one the chart allows.
 */
export async function namespaceRequests(cp: ControlPlane, skip = 0): Promise<string[]> {
  const requests = ((await cp.auditLog?.requests()) ?? []).slice(skip);
  return requests
    .filter((event) => event.user.username === OPERATOR_USER && event.objectRef?.resource === 'namespaces' && (event.objectRef.apiGroup ?? '') === '')
    .map((event) => `${event.verb} ${String(event.responseStatus?.code)}`);
}

/** The rail network's NAD as upstream's controller renders it (its template, re-indented by 4 spaces). */
export const RAIL_A_CONFIG = `{
    "cniVersion": "1.0.0",
    "name": "rail-a-net",
    "type": "sriov",
    "vlan": 0,
    "vlanQoS": 0,
    "logLevel": "info",
    "ipam": {
        "type": "host-local",
        "subnet": "192.0.2.0/24"
    }
}`;

/** The rail network the coexistence specs' node policies reference through spec.dra: rail_a, its NAD in ai-workloads. */
export async function createRailNetwork(admin: KubeClient): Promise<NetworkObject> {
  return admin.create<NetworkObject>(
    resourceTypes.sriovNetwork,
    sriovNetworkBody(OPERATOR_NS, 'rail-a-net', {
      resourceName: 'rail_a',
      networkNamespace: 'ai-workloads',
      ipam: '{ "type": "host-local", "subnet": "192.0.2.0/24" }',
    }),
    { namespace: OPERATOR_NS },
  );
}

/** How many requests the audit log holds: a mark for networkWrites and namespaceRequests. */
export async function auditMark(cp: ControlPlane): Promise<number> {
  return ((await cp.auditLog?.requests()) ?? []).length;
}

/** Whether the chart's RBAC lets the operator's ServiceAccount do `verb` on `resource` (a SubjectAccessReview). */
export async function operatorMay(
  admin: KubeClient,
  verb: string,
  resource: { group: string; resource: string; subresource?: string; namespace?: string },
): Promise<boolean> {
  const review = (await admin.request({
    method: 'POST',
    path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: OPERATOR_USER,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${RELEASE_NS}`, 'system:authenticated'],
        resourceAttributes: {
          verb,
          group: resource.group,
          resource: resource.resource,
          subresource: resource.subresource ?? '',
          namespace: resource.namespace ?? '',
        },
      },
    },
  })) as { status: { allowed: boolean } };
  return review.status.allowed;
}
