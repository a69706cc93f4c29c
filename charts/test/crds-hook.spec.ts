// node-policy-operator.crds.upstreamOwned: the hook that runs `crds apply` before an install or upgrade. Off by
// default; with `apply`, a Job and RBAC of its own as Helm hooks, and that RBAC is what `crds apply` needs on a
// cluster that runs the SR-IOV network operator — and no more than that for updates.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isApiError, resourceTypes } from '@sriov-dra/k8s';
import {
  CHART_CRDS_DIR,
  type ControlPlane,
  UMBRELLA_CHART_DIR,
  createNamespace,
  createRendered,
  helmBinary,
  installCrdObjects,
  readCrds,
  renderChart,
  serviceAccountToken,
  startControlPlane,
  writeKubeconfig,
} from '@sriov-dra/k8s/testing';
import { UPSTREAM_OWNED_CRD_NAMES } from './chart-crds.ts';
import { crdsApply } from './crds-apply.ts';

const NAMESPACE = 'infra';
const UPSTREAM_CRDS = fileURLToPath(new URL('../sriov-dra/test-data/upstream-crds/', import.meta.url));
const HOOK_ANNOTATIONS = { 'helm.sh/hook': 'pre-install,pre-upgrade', 'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded' };

interface Rendered {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly annotations?: Record<string, string> };
  readonly [field: string]: unknown;
}

const render = (upstreamOwned?: string): Rendered[] =>
  renderChart(UMBRELLA_CHART_DIR, {
    namespace: NAMESPACE,
    values: upstreamOwned === undefined ? {} : { 'node-policy-operator': { crds: { upstreamOwned } } },
  }) as unknown as Rendered[];

const hookObjects = (objects: readonly Rendered[]) => objects.filter((object) => object.metadata.annotations?.['helm.sh/hook'] !== undefined);

describe('crds.upstreamOwned', () => {
  it('renders no hook by default (skip)', () => {
    expect(hookObjects(render())).toEqual([]);
    expect(hookObjects(render('skip'))).toEqual([]);
  });

  it('apply: a Job running crds apply as its own ServiceAccount, its RBAC before it, all removed once it succeeds', () => {
    const hook = hookObjects(render('apply'));
    expect(hook.map((object) => `${object.kind} ${object.metadata.name} ${object.metadata.annotations?.['helm.sh/hook-weight'] ?? ''}`)).toEqual([
      'ServiceAccount node-policy-operator-crds -10',
      'ClusterRole release-node-policy-operator-crds -10',
      'ClusterRoleBinding release-node-policy-operator-crds -10',
      'Role node-policy-operator-crds -10',
      'RoleBinding node-policy-operator-crds -10',
      'Job node-policy-operator-crds 0',
    ]);
    for (const object of hook) expect(object.metadata.annotations).toMatchObject(HOOK_ANNOTATIONS);
    const job = hook.find((object) => object.kind === 'Job') as unknown as {
      spec: { template: { metadata: { labels: Record<string, string> }; spec: { serviceAccountName: string; containers: { args: string[] }[] } } };
    };
    expect(job.spec.template.spec.serviceAccountName).toBe('node-policy-operator-crds');
    expect(job.spec.template.spec.containers.map((container) => container.args)).toEqual([['crds', 'apply', '--namespace', NAMESPACE]]);
    // Not the operator's Pod labels: its Deployment's selector and PodDisruptionBudget leave this Pod alone.
    expect(job.spec.template.metadata.labels['app.kubernetes.io/name']).toBe('node-policy-operator-crds');
    const clusterRole = hook.find((object) => object.kind === 'ClusterRole') as unknown as { rules: { verbs: string[]; resourceNames?: string[] }[] };
    expect(clusterRole.rules.map((rule) => ({ verbs: rule.verbs, resourceNames: rule.resourceNames }))).toEqual([
      { verbs: ['get', 'update'], resourceNames: UPSTREAM_OWNED_CRD_NAMES },
      { verbs: ['create'], resourceNames: undefined },
    ]);
  });

  it('has the release notes name the step unless the hook runs it, the operator switched off included', () => {
    const notes = (...set: string[]) => {
      const run = spawnSync(helmBinary(), ['install', 'release', UMBRELLA_CHART_DIR, '--dry-run=client', ...set.flatMap((value) => ['--set', value])], {
        encoding: 'utf8',
      });
      expect(run.stderr).toBe('');
      return run.stdout.slice(run.stdout.indexOf('NOTES:'));
    };
    expect(notes()).toContain('  node-policy-operator crds apply\n');
    expect(notes('node-policy-operator.enabled=false')).toContain('  node-policy-operator crds apply\n');
    expect(notes('node-policy-operator.crds.upstreamOwned=apply')).not.toContain('crds apply');
  });

  it('is refused by the schema for anything but apply or skip, naming the field', () => {
    expect(() => render('always')).toThrow("at '/crds/upstreamOwned': value must be one of 'apply', 'skip'");
  });
});

describe('the hook’s RBAC on a cluster running the SR-IOV network operator', () => {
  let cp: ControlPlane;

  beforeAll(async () => {
    cp = await startControlPlane();
    // Upstream's CRDs where the cluster has them (its policy CRD without spec.dra), and the driver's from the chart.
    const upstream = readCrds(UPSTREAM_CRDS).filter((crd) => (crd['spec'] as { group: string }).group !== 'sriovnetwork.k8snetworkplumbingwg.io');
    await installCrdObjects(cp.adminClient, [...upstream, ...readCrds(CHART_CRDS_DIR)]);
    await createNamespace(cp.adminClient, NAMESPACE);
    const rbac = hookObjects(render('apply')).filter((object) => object.kind !== 'Job');
    await createRendered(cp.adminClient, rbac, NAMESPACE);
  }, 120_000);

  afterAll(async () => {
    await cp.stop();
  });

  it('lets crds apply do its work as the hook’s ServiceAccount', async () => {
    const token = await serviceAccountToken(cp.adminClient, { namespace: NAMESPACE, name: 'node-policy-operator-crds' });
    const kubeconfig = writeKubeconfig(join(cp.dir, 'crds-hook.kubeconfig'), cp.server, cp.caCert, 'crds-hook', { token });
    const applied = crdsApply(kubeconfig, '--namespace', NAMESPACE);
    expect({ status: applied.status, stderr: applied.stderr }).toEqual({ status: 0, stderr: '' });
    expect(applied.stdout).toContain('upgraded      sriovnetworknodepolicies.sriovnetwork.openshift.io (adds v1 spec.dra, v1 status.conditions)');
    expect(applied.stdout).toContain('round trip    sriovnetworknodepolicies.sriovnetwork.openshift.io: spec.dra kept as sent');
    // Update is limited to those four: the driver's own CRD is out of its reach.
    const hook = cp.clientWithToken(token);
    try {
      const driverCrd = await cp.adminClient.get(resourceTypes.customResourceDefinition, {
        name: 'deviceattributes.sriovnetwork.k8snetworkplumbingwg.io',
      });
      const update = hook.request({
        method: 'PUT',
        path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${driverCrd.metadata.name}`,
        body: driverCrd,
      });
      await expect(update.catch((error: unknown) => (isApiError(error, 'Forbidden') ? 'Forbidden' : error))).resolves.toBe('Forbidden');
    } finally {
      hook.close();
    }
  }, 120_000);
});
