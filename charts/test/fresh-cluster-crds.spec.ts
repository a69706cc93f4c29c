// A fresh cluster installed as docs/install-and-upgrade.md says: `node-policy-operator crds apply` creates
// the CRDs other projects own, then `helm install` adds the chart's own; a SriovNetworkNodePolicy written with
// spec.dra is stored and read back with it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, helmBinary, startControlPlane } from '@sriov-dra/k8s/testing';
import { CHART_CRD_NAMES, UPSTREAM_OWNED_CRD_NAMES } from './chart-crds.ts';
import { crdsApply } from './crds-apply.ts';

const CHART = fileURLToPath(new URL('../sriov-dra/', import.meta.url));
const OPERATOR_NS = 'sriov-network-operator';

let cp: ControlPlane;

beforeAll(async () => {
  cp = await startControlPlane();
}, 120_000);

afterAll(async () => {
  await cp.stop();
});

describe('a fresh cluster: crds apply, then helm install', () => {
  it('crds apply creates every CRD other projects own and proves spec.dra survives', () => {
    const applied = crdsApply(cp.kubeconfig);
    expect({ status: applied.status, stderr: applied.stderr }).toEqual({ status: 0, stderr: '' });
    expect(applied.stdout.split('\n').filter((line) => line !== '')).toEqual([
      ...UPSTREAM_OWNED_CRD_NAMES.map((name) => `created       ${name}`),
      'round trip    sriovnetworknodepolicies.sriovnetwork.openshift.io: spec.dra kept as sent',
    ]);
  }, 60_000);

  it('helm install then installs the chart’s own CRDs beside them', async () => {
    await createNamespace(cp.adminClient, OPERATOR_NS);
    const installed = spawnSync(
      helmBinary(),
      [
        'install',
        'sriov-dra',
        CHART,
        '--namespace',
        'sriov-dra',
        '--create-namespace',
        '--set',
        `global.operatorNamespace=${OPERATOR_NS}`,
        // Nothing serves the webhook here: the API server alone admits the policy below.
        '--set',
        'node-policy-operator.webhook.enabled=false',
        '--kubeconfig',
        cp.kubeconfig,
      ],
      { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: cp.dir } },
    );
    expect({ status: installed.status, stderr: installed.stderr }).toEqual({ status: 0, stderr: '' });
    const crds = await cp.adminClient.list(resourceTypes.customResourceDefinition);
    expect(crds.items.map((crd) => crd.metadata.name).sort()).toEqual([...CHART_CRD_NAMES, ...UPSTREAM_OWNED_CRD_NAMES].sort());
  }, 120_000);

  it('a policy with spec.dra round-trips', async () => {
    const dra = {
      attributes: {
        'networking.example.com/rail': { string: 'rail-a' },
        'sriovnetwork.openshift.io/sriovNetworkName': { string: 'rail-a-net' },
        'sriovnetwork.openshift.io/sriovNetworkNamespace': { string: 'ai-workloads' },
      },
    };
    await cp.adminClient.create(
      resourceTypes.sriovNetworkNodePolicy,
      {
        apiVersion: 'sriovnetwork.openshift.io/v1',
        kind: 'SriovNetworkNodePolicy',
        metadata: { name: 'rail-a' },
        spec: { resourceName: 'rail_a', nodeSelector: { 'networking.example.com/dual-rail': 'true' }, numVfs: 8, nicSelector: { pfNames: ['ens1f0'] }, dra },
      },
      { namespace: OPERATOR_NS },
    );
    const read = await cp.adminClient.get<KubeObject & { spec: { dra?: unknown } }>(resourceTypes.sriovNetworkNodePolicy, {
      namespace: OPERATOR_NS,
      name: 'rail-a',
    });
    expect(read.spec.dra).toEqual(dra);
  }, 60_000);
});
