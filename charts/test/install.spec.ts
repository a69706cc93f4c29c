// `helm install` and `helm uninstall` of the umbrella chart with Helm v4 against a real API server (RBAC,
// OwnerReferencesPermissionEnforcement): every object the chart renders is accepted as Helm sends it,
// the CRDs become Established, and an uninstall removes the release's objects but keeps the CRDs and
// what users stored in them, as Helm's crds/ semantics promise.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type KubeObject, type ResourceType, resourceTypes } from '@sriov-dra/k8s';
import {
  type ControlPlane,
  containerEnvironment,
  createNamespace,
  helmBinary,
  podSpecOf,
  serviceAccountKubeconfig,
  startControlPlane,
  waitFor,
} from '@sriov-dra/k8s/testing';
import { CHART_CRD_NAMES, UPSTREAM_OWNED_CRD_NAMES } from './chart-crds.ts';
import { crdsApply } from './crds-apply.ts';

const CHART = fileURLToPath(new URL('../sriov-dra/', import.meta.url));
/** The program of the operator's image, from the workspace's sources. */
const OPERATOR_MAIN = fileURLToPath(new URL('../../apps/node-policy-operator/src/main.ts', import.meta.url));
const NAMESPACE = 'sriov-dra';
const CRDS: ResourceType = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  resource: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
};
const DAEMON_SETS: ResourceType = { group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet', namespaced: true };
const DEPLOYMENTS: ResourceType = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true };

interface Crd extends KubeObject {
  readonly status?: { readonly conditions?: readonly { readonly type: string; readonly status: string }[] };
}

let cp: ControlPlane;

function helm(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(helmBinary(), [...args, '--kubeconfig', cp.kubeconfig], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: cp.dir } });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

beforeAll(async () => {
  cp = await startControlPlane();
  // A fresh cluster: the CRDs other projects own come first, from the documented step (docs/install-and-upgrade.md).
  const applied = crdsApply(cp.kubeconfig);
  expect({ status: applied.status, stderr: applied.stderr }).toEqual({ status: 0, stderr: '' });
}, 120_000);

afterAll(async () => {
  await cp.stop();
});

describe('helm install of charts/sriov-dra', () => {
  it('installs every object and CRD, and the CRDs are served', async () => {
    const installed = helm(
      'install',
      'sriov-dra',
      CHART,
      '--namespace',
      NAMESPACE,
      '--create-namespace',
      '--set',
      'global.operatorNamespace=sriov-network-operator',
    );
    // The operator's Role and the generated objects live in the SR-IOV operator's namespace, which the chart does not own.
    expect(installed.status).toBe(1);
    expect(installed.stderr).toContain('namespaces "sriov-network-operator" not found');
    helm('uninstall', 'sriov-dra', '--namespace', NAMESPACE);

    await createNamespace(cp.adminClient, 'sriov-network-operator');
    const second = helm('install', 'sriov-dra', CHART, '--namespace', NAMESPACE, '--set', 'global.operatorNamespace=sriov-network-operator');
    expect({ status: second.status, stderr: second.stderr }).toEqual({ status: 0, stderr: '' });

    const crds = (await cp.adminClient.list<Crd>(CRDS)).items;
    expect(crds.map((crd) => crd.metadata.name).sort()).toEqual([...CHART_CRD_NAMES, ...UPSTREAM_OWNED_CRD_NAMES].sort());
    await waitFor(
      'the CRDs Established',
      async () =>
        (await cp.adminClient.list<Crd>(CRDS)).items.every((crd) =>
          crd.status?.conditions?.some((condition) => condition.type === 'Established' && condition.status === 'True'),
        ),
      { timeoutMs: 30_000 },
    );
    const names = async (type: ResourceType) => (await cp.adminClient.list(type, { namespace: NAMESPACE })).items.map((item) => item.metadata.name).sort();
    expect(await names(DAEMON_SETS)).toEqual(['dra-driver-sriov', 'multus-live-read-proxy']);
    expect(await names(DEPLOYMENTS)).toEqual(['node-policy-operator', 'node-policy-operator-webhook']);
    expect(await names(resourceTypes.serviceAccount)).toEqual(expect.arrayContaining(['dra-driver-sriov', 'multus-live-read-proxy', 'node-policy-operator']));
  }, 120_000);

  it('keeps the webhook’s certificate and caBundle across an upgrade: Helm’s server-side apply leaves the caBundle to its own field manager', async () => {
    const secrets: ResourceType = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };
    const served = async () => {
      const secret = await cp.adminClient.get<KubeObject & { data: Record<string, string> }>(secrets, {
        namespace: NAMESPACE,
        name: 'node-policy-operator-webhook-tls',
      });
      const configuration = await cp.adminClient.get<KubeObject & { webhooks: { clientConfig: { caBundle?: string } }[] }>(
        resourceTypes.validatingWebhookConfiguration,
        { name: 'sriov-dra-node-policy-operator' },
      );
      return {
        secretVersion: secret.metadata.resourceVersion,
        certificate: secret.data['tls.crt'],
        ca: secret.data['ca.crt'],
        caBundles: configuration.webhooks.map((webhook) => webhook.clientConfig.caBundle),
      };
    };
    // No kubelet runs Pods here: the webhook Pod's init container runs as a process, with the installed
    // Deployment's arguments and environment and a token of its ServiceAccount, as a Pod would start.
    const dir = mkdtempSync(join(tmpdir(), 'webhook-pod-'));
    const startWebhookPod = async (): Promise<{ status: number | null; stderr: string }> => {
      const pod = podSpecOf(await cp.adminClient.get(DEPLOYMENTS, { namespace: NAMESPACE, name: 'node-policy-operator-webhook' }));
      const [init] = pod.initContainers ?? [];
      if (init === undefined) throw new Error('the webhook Deployment has no init container');
      const kubeconfig = await serviceAccountKubeconfig(cp, { namespace: NAMESPACE, name: pod.serviceAccountName }, join(dir, 'webhook.kubeconfig'));
      const env = containerEnvironment(pod, init, {}, (volume) => (volume.name === 'certs' ? dir : undefined));
      const run = spawnSync(process.execPath, ['--conditions=@sriov-dra/source', OPERATOR_MAIN, ...(init.args ?? [])], {
        encoding: 'utf8',
        env: { ...env, KUBECONFIG: kubeconfig },
      });
      return { status: run.status, stderr: run.stderr };
    };
    try {
      expect(await startWebhookPod()).toEqual({ status: 0, stderr: '' });
      const before = await served();
      expect(before.caBundles).toEqual([before.ca, before.ca]);
      const upgraded = helm('upgrade', 'sriov-dra', CHART, '--namespace', NAMESPACE, '--set', 'global.operatorNamespace=sriov-network-operator');
      expect({ status: upgraded.status, stderr: upgraded.stderr }).toEqual({ status: 0, stderr: '' });
      expect(await served()).toEqual(before);
      // Helm applied the configuration server-side, the caBundle stayed the step's own.
      const configuration = await cp.adminClient.get<KubeObject & { metadata: { managedFields: { manager: string; operation: string }[] } }>(
        resourceTypes.validatingWebhookConfiguration,
        { name: 'sriov-dra-node-policy-operator' },
      );
      expect(configuration.metadata.managedFields.map((entry) => `${entry.manager} ${entry.operation}`).sort()).toEqual([
        'helm Apply',
        'sriov-dra-webhook-certificates Apply',
      ]);
      // The upgrade's new Pods run the init container again: the Secret is kept, the caBundle re-applied as it was.
      expect(await startWebhookPod()).toEqual({ status: 0, stderr: '' });
      expect(await served()).toEqual(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('uninstalls the release’s objects and keeps the CRDs and the objects stored in them', async () => {
    await cp.adminClient.create(
      resourceTypes.networkAttachmentDefinition,
      {
        apiVersion: 'k8s.cni.cncf.io/v1',
        kind: 'NetworkAttachmentDefinition',
        metadata: { name: 'rail-a' },
        spec: { config: '{"cniVersion":"1.0.0","name":"rail-a","type":"sriov"}' },
      },
      { namespace: NAMESPACE },
    );
    const removed = helm('uninstall', 'sriov-dra', '--namespace', NAMESPACE, '--wait');
    expect({ status: removed.status, stderr: removed.stderr }).toEqual({ status: 0, stderr: '' });
    expect((await cp.adminClient.list(DAEMON_SETS, { namespace: NAMESPACE })).items).toEqual([]);
    expect(
      (await cp.adminClient.list(resourceTypes.clusterRoleBinding)).items.map((item) => item.metadata.name).filter((name) => name.includes('sriov')),
    ).toEqual([]);
    expect((await cp.adminClient.list(CRDS)).items).toHaveLength(6);
    expect((await cp.adminClient.get(resourceTypes.networkAttachmentDefinition, { namespace: NAMESPACE, name: 'rail-a' })).metadata.name).toBe('rail-a');
  }, 120_000);
});
