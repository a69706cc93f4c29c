// `crds apply` against installed policy CRDs it must not extend — a served version it does not know, a
// spec.dra another project declares — and against a concurrent writer of the CRD it does extend.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ApiRequest, KubeClient, type KubeObject, contentTypes, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, installCrdObjects, readCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import { applyUpstreamOwnedCrds } from '../../src/crds/apply-crds.ts';
import { UPSTREAM_OWNED_CRDS } from '../../src/crds/upstream-owned-crds.ts';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const UPSTREAM_CRDS = fileURLToPath(new URL('../../../../charts/sriov-dra/test-data/upstream-crds/', import.meta.url));
const POLICY_CRD = 'sriovnetworknodepolicies.sriovnetwork.openshift.io';
const POLICY_CRD_ONLY = UPSTREAM_OWNED_CRDS.filter((crd) => crd.metadata.name === POLICY_CRD);

interface Crd extends KubeObject {
  spec: {
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } };
    }[];
  };
}

let cp: ControlPlane;

const upstreamPolicyCrd = (): Crd => {
  const crd = readCrds(join(UPSTREAM_CRDS)).find((candidate) => (candidate['metadata'] as { name: string }).name === POLICY_CRD);
  if (crd === undefined) throw new Error('no upstream policy CRD in test-data');
  return crd as unknown as Crd;
};

const getCrd = () => cp.adminClient.get<Crd>(resourceTypes.customResourceDefinition, { name: POLICY_CRD });

/** Replaces the installed policy CRD's versions with `versions`. */
async function installVersions(versions: Crd['spec']['versions']): Promise<Crd> {
  const live = await getCrd();
  return cp.adminClient.request({
    method: 'PUT',
    path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${POLICY_CRD}`,
    body: { ...live, spec: { ...live.spec, versions } },
  }) as Promise<Crd>;
}

function crdsApply(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child: ChildProcess = spawn(process.execPath, ['--conditions=@sriov-dra/source', MAIN, 'crds', 'apply', '--kubeconfig', cp.kubeconfig], {
    env: { PATH: process.env['PATH'] ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return once(child, 'exit').then(([code]) => ({ code: code as number | null, stdout, stderr }));
}

beforeAll(async () => {
  cp = await startControlPlane();
  await installCrdObjects(cp.adminClient, [upstreamPolicyCrd()]);
}, 120_000);

afterAll(async () => {
  await cp.stop();
});

describe('crds apply refuses what it cannot extend safely', () => {
  it('a served version it does not know: refused with CrdNotMergeable, the CRD left as it was, exit 1', async () => {
    const [v1] = upstreamPolicyCrd().spec.versions;
    if (v1 === undefined) throw new Error('no v1');
    const installed = await installVersions([v1, { ...v1, name: 'v2', storage: false }]);
    const run = await crdsApply();
    expect(run.code).toBe(1);
    const line = run.stdout.split('\n').find((candidate) => candidate.includes(POLICY_CRD));
    expect(line).toBe(
      `refused       ${POLICY_CRD}: CrdNotMergeable: CustomResourceDefinition ${POLICY_CRD}: it serves version v2, which this release does not know (it knows v1) — ` +
        'nothing was changed; install the sriov-dra release whose CRDs know this version, or compare the CRD with `node-policy-operator crds apply --dry-run` and resolve the difference with its owner before running crds apply again',
    );
    expect(run.stdout).not.toContain('round trip');
    expect((await getCrd()).metadata.resourceVersion).toBe(installed.metadata.resourceVersion);
  }, 60_000);

  it('a spec.dra another project declares: refused, not overwritten', async () => {
    const [v1] = upstreamPolicyCrd().spec.versions;
    if (v1 === undefined) throw new Error('no v1');
    const foreignDra = { type: 'object', properties: { deviceClassName: { type: 'string' } } };
    const withForeign = structuredClone(v1);
    withForeign.schema.openAPIV3Schema.properties.spec.properties['dra'] = foreignDra;
    const installed = await installVersions([withForeign]);
    const run = await crdsApply();
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `refused       ${POLICY_CRD}: CrdNotMergeable: CustomResourceDefinition ${POLICY_CRD}: version v1 already declares a spec.dra of its own (no sriovnetwork.k8snetworkplumbingwg.io/dra-schema annotation), which this release would overwrite`,
    );
    const now = await getCrd();
    expect(now.metadata.resourceVersion).toBe(installed.metadata.resourceVersion);
    expect(now.spec.versions[0]?.schema.openAPIV3Schema.properties.spec.properties['dra']).toEqual(foreignDra);
  }, 60_000);
});

describe('crds apply with a concurrent writer', () => {
  it('re-reads after a Conflict and keeps the other writer’s change', async () => {
    const [v1] = upstreamPolicyCrd().spec.versions;
    if (v1 === undefined) throw new Error('no v1');
    await installVersions([v1]);
    const puts: string[] = [];
    // Another writer labels the CRD between this run's read and its write, once.
    class RacedClient extends KubeClient {
      override async request(req: ApiRequest): Promise<unknown> {
        if (req.method === 'PUT') {
          puts.push((req.body as KubeObject).metadata.resourceVersion);
          if (puts.length === 1) {
            await cp.adminClient.patch(
              resourceTypes.customResourceDefinition,
              { name: POLICY_CRD },
              { metadata: { labels: { 'networking.example.com/audited': 'true' } } },
              contentTypes.mergePatch,
            );
          }
        }
        return super.request(req);
      }
    }
    const raced = new RacedClient(cp.adminClient.config);
    try {
      const report = await applyUpstreamOwnedCrds(raced, { dryRun: false, namespace: 'default', crds: POLICY_CRD_ONLY });
      expect(report.results.map(({ action, added }) => ({ action, added }))).toEqual([{ action: 'upgraded', added: ['v1 spec.dra', 'v1 status.conditions'] }]);
      expect(report.roundTrips).toEqual([{ name: POLICY_CRD }]);
    } finally {
      raced.close();
    }
    expect(puts).toHaveLength(2);
    expect(puts[1]).not.toBe(puts[0]);
    const now = await getCrd();
    expect(now.metadata.labels?.['networking.example.com/audited']).toBe('true');
    expect(now.spec.versions[0]?.schema.openAPIV3Schema.properties.spec.properties).toHaveProperty('dra');
  }, 60_000);
});

describe('crds apply where admission refuses the sample policy', () => {
  it('says so and checks the declared spec.dra instead', async () => {
    // As the SR-IOV network operator's webhook refuses a policy that selects no node.
    const policyName = 'policies-need-a-node';
    await cp.adminClient.request({
      method: 'POST',
      path: '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies',
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: policyName },
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: {
            resourceRules: [{ apiGroups: ['sriovnetwork.openshift.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['sriovnetworknodepolicies'] }],
          },
          validations: [{ expression: 'false', message: 'no matched node is selected by the nodeSelector' }],
        },
      },
    });
    await cp.adminClient.request({
      method: 'POST',
      path: '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings',
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name: policyName },
        spec: { policyName, validationActions: ['Deny'] },
      },
    });
    let run = await crdsApply();
    // The policy takes effect once the API server has loaded it.
    for (let attempt = 0; attempt < 20 && !run.stdout.includes('admission refused'); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      run = await crdsApply();
    }
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout.split('\n').find((line) => line.startsWith('round trip'))).toBe(
      `round trip    ${POLICY_CRD}: not run, admission refused the sample policy (ValidatingAdmissionPolicy '${policyName}' with binding '${policyName}' denied request: no matched node is selected by the nodeSelector); every served version declares this release's spec.dra`,
    );
  }, 90_000);

  it('fails when the CRD lost spec.dra again before the round trip (another writer put upstream’s back)', async () => {
    const [v1] = upstreamPolicyCrd().spec.versions;
    if (v1 === undefined) throw new Error('no v1');
    const upstreamVersions = [v1];
    await installVersions(upstreamVersions);
    class RevertingClient extends KubeClient {
      override async request(req: ApiRequest): Promise<unknown> {
        if (req.method === 'POST' && req.path.endsWith('/sriovnetworknodepolicies')) await installVersions(upstreamVersions);
        return super.request(req);
      }
    }
    const reverting = new RevertingClient(cp.adminClient.config);
    try {
      const report = await applyUpstreamOwnedCrds(reverting, { dryRun: false, namespace: 'default', crds: POLICY_CRD_ONLY });
      expect(report.results.map(({ action }) => action)).toEqual(['upgraded']);
      expect(report.roundTrips.map((trip) => trip.error?.message)).toEqual([
        `DraRoundTripFailed: CustomResourceDefinition ${POLICY_CRD}: admission refused the sample policy (ValidatingAdmissionPolicy 'policies-need-a-node' with binding 'policies-need-a-node' denied request: no matched node is selected by the nodeSelector) and the CRD does not declare this release's spec.dra in every served version — ` +
          'check the CRD with `kubectl get crd -o yaml` for a served version without spec.dra and run `node-policy-operator crds apply` again',
      ]);
    } finally {
      reverting.close();
    }
  }, 60_000);
});
