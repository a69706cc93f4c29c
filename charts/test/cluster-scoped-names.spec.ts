// The names of the chart's cluster-scoped objects (ClusterRoles and their bindings, ValidatingAdmissionPolicies
// and their bindings, the ValidatingWebhookConfiguration) carry the release name, so that two releases never
// write the same object. With the longest release name Helm accepts and every feature on, each object has a
// name of its own, a valid DNS subdomain, and every binding refers to what the release renders; on a real
// API server, two such releases whose names differ only in their last character install theirs side by side.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createRendered, helmBinary, startControlPlane } from '@sriov-dra/k8s/testing';
import { parseAllDocuments } from 'yaml';
import { EVERY_FEATURE, EVERY_FEATURE_RUNTIME_CERTIFICATES } from './every-feature.ts';

const CHART = fileURLToPath(new URL('../sriov-dra/', import.meta.url));
const NAMESPACE = 'infra';
/** 53 characters, the most Helm takes for a release name. */
const RELEASE = 'platform-team-x1-sriov-dra-production-eu-west-3a-0001';
/** RELEASE but for its last character. */
const NEIGHBOUR = 'platform-team-x1-sriov-dra-production-eu-west-3a-0002';
/** Kubernetes' DNS subdomain (IsDNS1123Subdomain), at most 253 characters. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** The cluster-scoped kinds the chart renders. */
const CLUSTER_SCOPED = new Set([
  'ClusterRole',
  'ClusterRoleBinding',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'ValidatingWebhookConfiguration',
  'DeviceClass',
  'CustomResourceDefinition',
]);
/** The cluster-scoped kinds whose names the release chooses (DeviceClasses and CRDs are named by values or by their API). */
const RELEASE_NAMED = ['ClusterRole', 'ClusterRoleBinding', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding', 'ValidatingWebhookConfiguration'];

interface Rendered {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly subjects?: readonly { readonly kind: string; readonly name: string; readonly namespace?: string }[];
  readonly roleRef?: { readonly kind: string; readonly name: string };
  readonly rules?: readonly { readonly resources?: readonly string[]; readonly resourceNames?: readonly string[] }[];
  readonly spec?: { readonly policyName?: string };
}

function helm(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(helmBinary(), args, { encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** `helm template` of the umbrella chart, CRDs included, as release `release`; fails the test on any Helm error. */
function render(release: string, values: Record<string, unknown>): Rendered[] {
  const dir = mkdtempSync(join(tmpdir(), 'cluster-scoped-names-'));
  try {
    const file = join(dir, 'values.json');
    writeFileSync(file, JSON.stringify(values));
    const run = helm('template', release, CHART, '--namespace', NAMESPACE, '--include-crds', '--values', file);
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    return parseAllDocuments(run.stdout)
      .map((document) => document.toJS() as Rendered | null)
      .filter((object) => object !== null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const key = (object: Rendered) => `${object.kind} ${object.metadata.name}`;
const clusterScoped = (objects: readonly Rendered[]) => objects.filter((object) => object.metadata.namespace === undefined);

/** The longest fullnameOverride each component's schema takes (53 characters), different for each. */
const LONGEST_FULLNAMES = Object.fromEntries(
  ['dra-driver', 'multus-live-read-proxy', 'node-policy-operator'].map((component) => [component, { fullnameOverride: `${component}-`.padEnd(53, 'x') }]),
);

const CONFIGURATIONS: [string, Record<string, unknown>][] = [
  ['every feature on, the webhook’s certificate from cert-manager', EVERY_FEATURE],
  ['every feature on, the webhook’s certificate set up at runtime', EVERY_FEATURE_RUNTIME_CERTIFICATES],
  [
    'every feature on and the longest fullnameOverrides',
    Object.fromEntries(
      Object.entries(EVERY_FEATURE_RUNTIME_CERTIFICATES).map(([component, values]) => [component, { ...values, ...LONGEST_FULLNAMES[component] }]),
    ),
  ],
];

describe('cluster-scoped names of a release with the longest name Helm takes', () => {
  it('is a release name of 53 characters; Helm refuses one more', () => {
    expect(RELEASE.length).toBe(53);
    const longer = helm('template', `${RELEASE}x`, CHART);
    expect({ status: longer.status, refused: longer.stderr.includes('release name') }).toEqual({ status: 1, refused: true });
    expect(helm('template', RELEASE, CHART).status).toBe(0);
  });

  it('keeps today’s names, release name first, each object its own', () => {
    const names = clusterScoped(render(RELEASE, EVERY_FEATURE_RUNTIME_CERTIFICATES))
      .filter((object) => RELEASE_NAMED.includes(object.kind))
      .map(key)
      .sort();
    const release = (suffix: string) => `${RELEASE}-${suffix}`;
    expect(names).toEqual(
      [
        ...['ClusterRole', 'ClusterRoleBinding'].flatMap((kind) =>
          [
            'dra-driver-sriov',
            'dra-driver-sriov-managed-networks',
            'multus-live-read-proxy',
            'node-policy-operator',
            'node-policy-operator-crds',
            'node-policy-operator-webhook-certificates',
          ].map((suffix) => `${kind} ${release(suffix)}`),
        ),
        ...['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding'].flatMap((kind) =>
          ['dra-driver-sriov-node-resourceslices', 'dra-driver-sriov-node-pods', 'dra-driver-sriov-node-shadows', 'multus-live-read-proxy-node-pods'].map(
            (suffix) => `${kind} ${release(suffix)}`,
          ),
        ),
        `ValidatingWebhookConfiguration ${release('node-policy-operator')}`,
      ].sort(),
    );
  });

  it.each(CONFIGURATIONS)('names every cluster-scoped object uniquely and as a valid DNS subdomain with %s', (_title, values) => {
    const objects = clusterScoped(render(RELEASE, values));
    const counts = new Map<string, number>();
    for (const object of objects) counts.set(key(object), (counts.get(key(object)) ?? 0) + 1);
    expect({
      unknownKinds: objects.filter((object) => !CLUSTER_SCOPED.has(object.kind)).map(key),
      repeated: [...counts].filter(([, count]) => count > 1).map(([name]) => name),
      invalid: objects.filter((object) => object.metadata.name.length > 253 || !DNS_SUBDOMAIN.test(object.metadata.name)).map(key),
    }).toEqual({ unknownKinds: [], repeated: [], invalid: [] });
    // Every kind the release names is there: a render that lost objects would be unique too.
    expect(new Set(objects.map((object) => object.kind))).toEqual(CLUSTER_SCOPED);
  });

  it.each(CONFIGURATIONS)('binds only what the release renders with %s: roles, policies, ServiceAccounts, the webhook configuration', (_title, values) => {
    const objects = render(RELEASE, values);
    const rendered = new Set(objects.map((object) => `${object.kind} ${object.metadata.namespace ?? ''}/${object.metadata.name}`));
    const missing: string[] = [];
    const expectRendered = (from: Rendered, kind: string, namespace: string, name: string) => {
      if (!rendered.has(`${kind} ${namespace}/${name}`)) missing.push(`${key(from)} refers to ${kind} ${namespace}/${name}`);
    };
    for (const object of objects) {
      const namespace = object.metadata.namespace ?? '';
      if (object.kind === 'RoleBinding' || object.kind === 'ClusterRoleBinding') {
        const ref = object.roleRef ?? { kind: '', name: '' };
        expectRendered(object, ref.kind, ref.kind === 'Role' ? namespace : '', ref.name);
        for (const subject of object.subjects ?? []) expectRendered(object, subject.kind, subject.namespace ?? '', subject.name);
      }
      if (object.kind === 'ValidatingAdmissionPolicyBinding') expectRendered(object, 'ValidatingAdmissionPolicy', '', object.spec?.policyName ?? '');
      for (const rule of object.kind === 'ClusterRole' ? (object.rules ?? []) : [])
        if (rule.resources?.includes('validatingwebhookconfigurations'))
          for (const name of rule.resourceNames ?? []) expectRendered(object, 'ValidatingWebhookConfiguration', '', name);
    }
    expect(missing).toEqual([]);
    expect(objects.filter((object) => object.kind.endsWith('Binding')).length).toBeGreaterThan(10);
  });
});

describe('two releases whose 53-character names differ in their last character, on a real API server', () => {
  let cp: ControlPlane;

  beforeAll(async () => {
    cp = await startControlPlane();
  }, 120_000);

  afterAll(async () => {
    await cp.stop();
  });

  it('create their cluster-scoped objects side by side, each binding granting its own role', async () => {
    const releases = [RELEASE, NEIGHBOUR].map((release) =>
      clusterScoped(render(release, EVERY_FEATURE_RUNTIME_CERTIFICATES)).filter((object) => RELEASE_NAMED.includes(object.kind)),
    );
    // Each release's bindings are awaited until the API server authorizes their subjects by their roles.
    for (const objects of releases) await createRendered(cp.adminClient, objects as unknown as Record<string, unknown>[], NAMESPACE);
    const stored = await Promise.all(
      [
        resourceTypes.clusterRole,
        resourceTypes.clusterRoleBinding,
        resourceTypes.validatingAdmissionPolicy,
        resourceTypes.validatingAdmissionPolicyBinding,
        resourceTypes.validatingWebhookConfiguration,
      ].map(async (type) =>
        (await cp.adminClient.list(type)).items
          .map((item) => `${type.kind} ${item.metadata.name}`)
          .filter((name) => name.includes(RELEASE) || name.includes(NEIGHBOUR)),
      ),
    );
    expect(stored.flat().sort()).toEqual(releases.flat().map(key).sort());
    expect(releases.map((objects) => objects.length)).toEqual([21, 21]);
  }, 90_000);
});
