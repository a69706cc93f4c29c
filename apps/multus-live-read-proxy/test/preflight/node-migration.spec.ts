// Preflight on one node during the move from an upstream Multus DaemonSet (kube-multus-ds) to this daemon,
// against a real API server, with the identity and RBAC the chart gives the daemon (docs/coexistence.md):
// an upstream Multus Pod on the node fails, and so does one headed there but not yet bound; a DaemonSet
// that keeps off the node passes; and the node must be cordoned and drained of workload Pods while another
// Multus still runs there or its 00-multus.conf is still in place. Upstream's Multus is installed from its
// own thick manifest (charts/sriov-dra/test-data/upstream-multus, v4.2.3): its NetworkAttachmentDefinition
// CRD, ServiceAccount, RBAC, ConfigMap and DaemonSet as upstream ships them, in kube-system.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import {
  type ControlPlane,
  PROXY_CHART_DIR,
  createNamespace,
  createRendered,
  installCrdObjects,
  installCrds,
  renderChartTemplate,
  serviceAccountToken,
  startControlPlane,
} from '@sriov-dra/k8s/testing';
import type { PreflightCheck } from '../../src/preflight/checks.ts';
import { DAEMON_SET } from '../../src/preflight/dynamic-networks-controller.ts';
import { runPreflight } from '../../src/preflight/preflight.ts';
import { UPSTREAM_ENTRY_CONFIG } from '../entry-config/auto-mode-node.ts';
import { TEST_ENV, type NodeConfig, check, installPlugins, writeNodeConfig } from './preflight-node.ts';

const RELEASE_NS = 'sriov-dra';
const NODE = 'worker-a';
/** The label an administrator gives each node in the move, which the upstream DaemonSet's affinity excludes (docs/coexistence.md). */
const MOVED_LABEL = 'example.com/multus';
const UPSTREAM_MANIFEST = fileURLToPath(new URL('../../../../charts/sriov-dra/test-data/upstream-multus/multus-daemonset-thick.yml', import.meta.url));

/** The documents of upstream's thick manifest, its leading comment aside. */
const upstreamManifest = (): Record<string, unknown>[] =>
  parseAllDocuments(readFileSync(UPSTREAM_MANIFEST, 'utf8'))
    .map((document) => document.toJS() as Record<string, unknown> | null)
    .filter((object): object is Record<string, unknown> => object !== null);

let cp: ControlPlane;
let root: string;
let node: NodeConfig;
let daemonIdentity: KubeClient;
let upstream: KubeObject;

/** Preflight as the daemon's Pod on the node runs it; `undefined`: without --node-name. */
async function preflight(nodeName: string | undefined): Promise<PreflightCheck[]> {
  return runPreflight({ configPath: node.config, client: daemonIdentity, env: TEST_ENV, resultCacheDir: join(root, 'var-lib-cni'), nodeName });
}

async function createPod(namespace: string, name: string, spec: Record<string, unknown>, owner?: KubeObject): Promise<void> {
  await cp.adminClient.create(
    resourceTypes.pod,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace,
        ...(owner === undefined
          ? {}
          : { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: owner.metadata.name, uid: owner.metadata.uid, controller: true }] }),
      },
      spec: { containers: [{ name: 'main', image: 'registry.invalid/app:1' }], ...spec },
    },
    { namespace },
  );
}

/** The node affinity the DaemonSet controller gives each of its Pods, naming the Pod's node. */
const headedToNode = {
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [NODE] }] }],
    },
  },
};

/**
 * A Pod of the upstream DaemonSet as its controller creates it: the DaemonSet's Pod template, headed to the
 * node by the affinity the controller puts in place of the template's, until the scheduler binds it.
 */
const upstreamPod = async (namespace: string, name: string, bound: boolean): Promise<void> => {
  const template = (upstream as KubeObject & { spec: { template: { metadata: { labels: Record<string, string> }; spec: Record<string, unknown> } } }).spec
    .template;
  await cp.adminClient.create(
    resourceTypes.pod,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace,
        labels: template.metadata.labels,
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: upstream.metadata.name, uid: upstream.metadata.uid, controller: true }],
      },
      spec: { ...template.spec, ...(bound ? { nodeName: NODE } : {}), affinity: headedToNode },
    },
    { namespace },
  );
};

const deletePod = (namespace: string, name: string): Promise<void> =>
  cp.adminClient.delete(resourceTypes.pod, { namespace, name }, { gracePeriodSeconds: 0 }).then(() => undefined);

beforeAll(async () => {
  cp = await startControlPlane();
  const manifest = upstreamManifest();
  // Upstream's NAD CRD comes with its Multus; then the chart's CRDs and those `crds apply` creates, which
  // leaves an installed NAD CRD as it is.
  await installCrdObjects(
    cp.adminClient,
    manifest.filter((object) => object['kind'] === 'CustomResourceDefinition'),
  );
  await installCrds(cp.adminClient);
  await createNamespace(cp.adminClient, RELEASE_NS);
  await createNamespace(cp.adminClient, 'ai-workloads');
  // kube-system exists already; its Pods need the default ServiceAccount no controller manager creates here.
  await cp.adminClient.create(
    resourceTypes.serviceAccount,
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } },
    { namespace: 'kube-system' },
  );
  root = await mkdtemp(join(tmpdir(), 'mlrp-node-migration-'));
  const binDir = join(root, 'bin');
  await mkdir(binDir, { recursive: true });
  await installPlugins(binDir, ['multus-shim', 'bridge', 'host-local']);
  node = await writeNodeConfig(root, 'node', { binDir, cniDir: join(root, 'var-lib-cni-multus') });
  await writeFile(join(node.cniConfigDir, '00-multus.conf'), UPSTREAM_ENTRY_CONFIG);

  // The daemon's ServiceAccount and RBAC as the chart renders them; preflight runs with its token.
  const objects = ['serviceaccount.yaml', 'rbac.yaml'].flatMap((template) => renderChartTemplate(PROXY_CHART_DIR, template, { namespace: RELEASE_NS }));
  await createRendered(cp.adminClient, objects, RELEASE_NS);
  daemonIdentity = cp.clientWithToken(await serviceAccountToken(cp.adminClient, { namespace: RELEASE_NS, name: 'multus-live-read-proxy' }));

  await cp.adminClient.create(resourceTypes.node, { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE, labels: { 'kubernetes.io/hostname': NODE } } });
  // Upstream's ServiceAccount, ClusterRole and binding, ConfigMap and DaemonSet, each in the namespace the manifest names.
  await createRendered(
    cp.adminClient,
    manifest.filter((object) => object['kind'] !== 'CustomResourceDefinition'),
    'kube-system',
  );
  upstream = await cp.adminClient.get(DAEMON_SET, { namespace: 'kube-system', name: 'kube-multus-ds' });
  const other = await cp.adminClient.create(
    DAEMON_SET,
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'node-agent', namespace: 'kube-system' },
      spec: {
        selector: { matchLabels: { app: 'node-agent' } },
        template: { metadata: { labels: { app: 'node-agent' } }, spec: { containers: [{ name: 'agent', image: 'registry.invalid/agent:1' }] } },
      },
    },
    { namespace: 'kube-system' },
  );
  await upstreamPod('kube-system', 'kube-multus-ds-x7k2p', true);
  // What a drain leaves: another DaemonSet's Pod, and a Pod on the host's network.
  await createPod('kube-system', 'node-agent-5fq9d', { nodeName: NODE }, other);
  await createPod('kube-system', 'host-probe', { nodeName: NODE, hostNetwork: true });
  await createPod('ai-workloads', 'trainer-0', { nodeName: NODE });
}, 120_000);

afterAll(async () => {
  await cp.stop();
  await rm(root, { recursive: true, force: true });
});

describe('preflight during a Multus migration, on one node', () => {
  it('fails while an upstream Multus Pod runs on the node, and while the node is neither cordoned nor drained', async () => {
    const checks = await preflight(NODE);
    expect(check(checks, 'existing-multus-daemonset')).toEqual({
      id: 'existing-multus-daemonset',
      status: 'fail',
      message: expect.stringContaining(
        'a Pod of an upstream Multus DaemonSet (kube-system/kube-multus-ds) is on node worker-a (kube-system/kube-multus-ds-x7k2p)',
      ),
    });
    const drained = check(checks, 'migration-drained');
    expect(drained.status).toBe('fail');
    expect(drained.message).toContain('node worker-a still runs another Multus (upstream Multus Pods kube-system/kube-multus-ds-x7k2p; a ');
    expect(drained.message).toContain(
      'it is not cordoned (kubectl cordon worker-a), and Pods a drain evicts are still on it (ai-workloads/trainer-0; kubectl drain worker-a --ignore-daemonsets)',
    );
  });

  it('passes the drain once the node is cordoned and its workload is gone, while the upstream Pod still fails', async () => {
    await cp.adminClient.patch(resourceTypes.node, { name: NODE }, { spec: { unschedulable: true } }, 'application/merge-patch+json');
    await deletePod('ai-workloads', 'trainer-0');
    const checks = await preflight(NODE);
    expect(check(checks, 'migration-drained')).toEqual({
      id: 'migration-drained',
      status: 'pass',
      message: `node worker-a is cordoned and drained: the other Multus (upstream Multus Pods kube-system/kube-multus-ds-x7k2p; a ${join(node.cniConfigDir, '00-multus.conf')} another Multus wrote) can be removed from it`,
    });
    expect(check(checks, 'existing-multus-daemonset').status).toBe('fail');
  });

  it('fails a DaemonSet that selects the node even with no Pod there, and passes one whose affinity keeps off the node', async () => {
    await deletePod('kube-system', 'kube-multus-ds-x7k2p');
    const selects = {
      id: 'existing-multus-daemonset',
      status: 'fail',
      message: expect.stringContaining('kube-system/kube-multus-ds selects node worker-a (its nodeSelector and node affinity), so a Pod of it runs here again'),
    };
    expect(check(await preflight(NODE), 'existing-multus-daemonset')).toEqual(selects);
    // Upstream's manifest gives its DaemonSet no affinity; the move adds the one docs/coexistence.md tells administrators to.
    expect((upstream as KubeObject & { spec: { template: { spec: Record<string, unknown> } } }).spec.template.spec).not.toHaveProperty('affinity');
    await cp.adminClient.patch(
      DAEMON_SET,
      { namespace: 'kube-system', name: 'kube-multus-ds' },
      {
        spec: {
          template: {
            spec: {
              affinity: {
                nodeAffinity: {
                  requiredDuringSchedulingIgnoredDuringExecution: {
                    nodeSelectorTerms: [{ matchExpressions: [{ key: MOVED_LABEL, operator: 'NotIn', values: ['none', 'sriov-dra'] }] }],
                  },
                },
              },
            },
          },
        },
      },
      'application/merge-patch+json',
    );
    // A node without the label is still upstream's.
    expect(check(await preflight(NODE), 'existing-multus-daemonset')).toEqual(selects);
    const passes = {
      id: 'existing-multus-daemonset',
      status: 'pass',
      message: 'the upstream Multus DaemonSet kube-system/kube-multus-ds has no Pod on node worker-a and does not select it (nodeSelector, node affinity)',
    };
    // The per-node move: the node leaves upstream's DaemonSet (none), then is given to this daemon (sriov-dra).
    for (const value of ['none', 'sriov-dra']) {
      await cp.adminClient.patch(resourceTypes.node, { name: NODE }, { metadata: { labels: { [MOVED_LABEL]: value } } }, 'application/merge-patch+json');
      const kept = await preflight(NODE);
      expect([value, check(kept, 'existing-multus-daemonset')]).toEqual([value, passes]);
      expect([value, check(kept, 'migration-drained').status]).toEqual([value, 'pass']);
    }
    // Without the node, the DaemonSet anywhere in the cluster still fails.
    expect(check(await preflight(undefined), 'existing-multus-daemonset').status).toBe('fail');
  });

  it('fails an upstream Pod still headed to the node and not yet bound', async () => {
    await upstreamPod('kube-system', 'kube-multus-ds-q4w8z', false);
    try {
      expect(check(await preflight(NODE), 'existing-multus-daemonset').message).toContain('is on node worker-a (kube-system/kube-multus-ds-q4w8z)');
    } finally {
      await deletePod('kube-system', 'kube-multus-ds-q4w8z');
    }
    expect(check(await preflight(NODE), 'existing-multus-daemonset').status).toBe('pass');
  });

  it('has nothing to migrate once the other Multus’s 00-multus.conf is gone', async () => {
    await unlink(join(node.cniConfigDir, '00-multus.conf'));
    expect(check(await preflight(NODE), 'migration-drained')).toEqual({
      id: 'migration-drained',
      status: 'pass',
      message: 'no other Multus on node worker-a: nothing to migrate',
    });
  });
});
