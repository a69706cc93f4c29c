// The values platform teams set on an install, each followed from values.yaml to the object Helm v4
// renders (`helm template` of the umbrella chart): defaults as docs/chart-values.md states them, overrides,
// and the strict schemas refusing what they do not know. The DeviceClasses and PodDisruptionBudgets the
// chart renders are also created on a real API server, which compiles the classes' CEL.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ResourceType, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, helmBinary, startControlPlane } from '@sriov-dra/k8s/testing';
import { parseAllDocuments } from 'yaml';

const CHART = fileURLToPath(new URL('../sriov-dra/', import.meta.url));
const NAMESPACE = 'infra';
const DRIVER = 'sriovnetwork.k8snetworkplumbingwg.io';

interface Container {
  readonly name: string;
  readonly image: string;
  readonly env?: readonly { readonly name: string; readonly value?: string }[];
  readonly ports?: readonly { readonly name: string; readonly containerPort: number }[];
  readonly resources?: unknown;
}
interface PodTemplate {
  readonly metadata: { readonly labels: Record<string, string>; readonly annotations?: Record<string, string> };
  readonly spec: {
    readonly initContainers?: readonly Container[];
    readonly containers: readonly Container[];
    readonly volumes?: readonly { readonly name: string; readonly configMap?: { readonly name: string } }[];
    readonly [field: string]: unknown;
  };
}
interface Rendered {
  readonly [field: string]: unknown;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly labels?: Record<string, string> };
  readonly spec?: Record<string, unknown>;
  readonly data?: Record<string, string>;
}

/** Each workload, the component whose values place it, and its main container. */
const WORKLOADS = [
  { kind: 'DaemonSet', name: 'dra-driver-sriov', component: 'dra-driver', container: 'driver' },
  { kind: 'DaemonSet', name: 'multus-live-read-proxy', component: 'multus-live-read-proxy', container: 'daemon' },
  { kind: 'Deployment', name: 'node-policy-operator', component: 'node-policy-operator', container: 'operator' },
  { kind: 'Deployment', name: 'node-policy-operator-webhook', component: 'node-policy-operator', container: 'webhook' },
] as const;
const COMPONENTS = ['dra-driver', 'multus-live-read-proxy', 'node-policy-operator'] as const;

function helm(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(helmBinary(), args, { encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** `helm template` with `values` as a values file (JSON is YAML) plus `args`; the run as it ended. */
function run(values: Record<string, unknown>, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'knobs-'));
  try {
    const file = join(dir, 'values.json');
    writeFileSync(file, JSON.stringify(values));
    return helm('template', 'sriov-dra', CHART, '--namespace', NAMESPACE, '--values', file, ...args);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The rendered objects; fails the test on any Helm error. */
function render(values: Record<string, unknown> = {}, ...args: string[]): Rendered[] {
  const result = run(values, ...args);
  expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
  return parseAllDocuments(result.stdout)
    .map((document) => document.toJS() as Rendered | null)
    .filter((object) => object !== null);
}

function find(objects: readonly Rendered[], kind: string, name: string): Rendered {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (found === undefined) throw new Error(`no ${kind} ${name} rendered`);
  return found;
}

function pod(objects: readonly Rendered[], workload: { readonly kind: string; readonly name: string }): PodTemplate {
  return find(objects, workload.kind, workload.name).spec?.['template'] as PodTemplate;
}

function container(objects: readonly Rendered[], workload: (typeof WORKLOADS)[number]): Container {
  const found = pod(objects, workload).spec.containers.find((candidate) => candidate.name === workload.container);
  if (found === undefined) throw new Error(`${workload.name} has no container ${workload.container}`);
  return found;
}

function env(objects: readonly Rendered[], workload: (typeof WORKLOADS)[number], name: string): string | undefined {
  return container(objects, workload).env?.find((variable) => variable.name === name)?.value;
}

/** `field` of each workload's Pod spec, by workload name. */
function podField(objects: readonly Rendered[], field: string): Record<string, unknown> {
  return Object.fromEntries(WORKLOADS.map((workload) => [workload.name, pod(objects, workload).spec[field]]));
}

/** `value` under `key` of every component. */
function everyComponent(key: string, value: (component: string) => unknown): Record<string, unknown> {
  return Object.fromEntries(COMPONENTS.map((component) => [component, { [key]: value(component) }]));
}

/** The images each workload runs, init containers too, each once. */
function images(objects: readonly Rendered[]): Record<string, string[]> {
  return Object.fromEntries(
    WORKLOADS.map((workload) => {
      const spec = pod(objects, workload).spec;
      return [workload.name, [...new Set([...(spec.initContainers ?? []), ...spec.containers].map((each) => each.image))]];
    }),
  );
}

describe('image', () => {
  it('is ghcr.io/sriov-dra/<component>:<appVersion> by default, in every container', () => {
    expect(images(render())).toEqual({
      'dra-driver-sriov': ['ghcr.io/sriov-dra/dra-driver:0.1.0'],
      'multus-live-read-proxy': ['ghcr.io/sriov-dra/multus-live-read-proxy:0.1.0'],
      'node-policy-operator': ['ghcr.io/sriov-dra/node-policy-operator:0.1.0'],
      'node-policy-operator-webhook': ['ghcr.io/sriov-dra/node-policy-operator:0.1.0'],
    });
  });

  it('is registry/repository:tag@digest with a digest, an empty registry leaving the repository whole, and a pull policy', () => {
    const digest = 'sha256:0f3a2d5c9b7e61f48a20c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718';
    const objects = render({
      'dra-driver': { image: { registry: 'mirror.example.com:5000', repository: 'net/driver', tag: 'v2', digest, pullPolicy: 'Always' } },
      'multus-live-read-proxy': { image: { registry: '', repository: 'docker.io/library/multus', tag: '9' } },
      'node-policy-operator': { image: { tag: 'rc1' } },
    });
    expect(images(objects)).toEqual({
      'dra-driver-sriov': [`mirror.example.com:5000/net/driver:v2@${digest}`],
      'multus-live-read-proxy': ['docker.io/library/multus:9'],
      'node-policy-operator': ['ghcr.io/sriov-dra/node-policy-operator:rc1'],
      'node-policy-operator-webhook': ['ghcr.io/sriov-dra/node-policy-operator:rc1'],
    });
    expect(container(objects, WORKLOADS[0])).toMatchObject({ imagePullPolicy: 'Always' });
    expect(container(objects, WORKLOADS[2])).toMatchObject({ imagePullPolicy: 'IfNotPresent' });
  });

  it('pins every container by its component’s digest: init containers, the webhook’s and the crds hook Job’s included', () => {
    const digest = (hex: string) => `sha256:${hex.repeat(64)}`;
    const objects = render({
      'dra-driver': { image: { digest: digest('a') } },
      'multus-live-read-proxy': { image: { digest: digest('b') } },
      'node-policy-operator': { image: { digest: digest('c') }, crds: { upstreamOwned: 'apply' } },
    });
    const containers = Object.fromEntries(
      objects
        .filter((object) => ['DaemonSet', 'Deployment', 'Job'].includes(object.kind))
        .flatMap((object) => {
          const spec = (object.spec?.['template'] as PodTemplate).spec;
          return [...(spec.initContainers ?? []), ...spec.containers].map((each) => [`${object.kind} ${object.metadata.name} ${each.name}`, each.image]);
        }),
    );
    expect(containers).toEqual({
      'DaemonSet dra-driver-sriov driver': `ghcr.io/sriov-dra/dra-driver:0.1.0@${digest('a')}`,
      'DaemonSet multus-live-read-proxy install-multus-shim': `ghcr.io/sriov-dra/multus-live-read-proxy:0.1.0@${digest('b')}`,
      'DaemonSet multus-live-read-proxy daemon': `ghcr.io/sriov-dra/multus-live-read-proxy:0.1.0@${digest('b')}`,
      'Deployment node-policy-operator operator': `ghcr.io/sriov-dra/node-policy-operator:0.1.0@${digest('c')}`,
      'Deployment node-policy-operator-webhook certificates': `ghcr.io/sriov-dra/node-policy-operator:0.1.0@${digest('c')}`,
      'Deployment node-policy-operator-webhook webhook': `ghcr.io/sriov-dra/node-policy-operator:0.1.0@${digest('c')}`,
      'Job node-policy-operator-crds crds-apply': `ghcr.io/sriov-dra/node-policy-operator:0.1.0@${digest('c')}`,
    });
  });

  it('takes its registry from global.imageRegistry in every component, over each one’s own', () => {
    const objects = render({ global: { imageRegistry: 'registry.corp.example' }, 'dra-driver': { image: { registry: 'ignored.example' } } });
    expect(images(objects)).toEqual({
      'dra-driver-sriov': ['registry.corp.example/sriov-dra/dra-driver:0.1.0'],
      'multus-live-read-proxy': ['registry.corp.example/sriov-dra/multus-live-read-proxy:0.1.0'],
      'node-policy-operator': ['registry.corp.example/sriov-dra/node-policy-operator:0.1.0'],
      'node-policy-operator-webhook': ['registry.corp.example/sriov-dra/node-policy-operator:0.1.0'],
    });
  });
});

describe('Pod placement and metadata', () => {
  it('pulls with global.imagePullSecrets then each component’s own, the webhook with the operator’s; none by default', () => {
    expect(podField(render(), 'imagePullSecrets')).toEqual({
      'dra-driver-sriov': undefined,
      'multus-live-read-proxy': undefined,
      'node-policy-operator': undefined,
      'node-policy-operator-webhook': undefined,
    });
    const objects = render({
      global: { imagePullSecrets: [{ name: 'corp' }] },
      ...everyComponent('imagePullSecrets', (component) => [{ name: `${component}-pull` }]),
    });
    expect(podField(objects, 'imagePullSecrets')).toEqual({
      'dra-driver-sriov': [{ name: 'corp' }, { name: 'dra-driver-pull' }],
      'multus-live-read-proxy': [{ name: 'corp' }, { name: 'multus-live-read-proxy-pull' }],
      'node-policy-operator': [{ name: 'corp' }, { name: 'node-policy-operator-pull' }],
      'node-policy-operator-webhook': [{ name: 'corp' }, { name: 'node-policy-operator-pull' }],
    });
  });

  it('adds podLabels and podAnnotations to each Pod, keeping the selector’s labels and the Multus config checksum', () => {
    // Other app.kubernetes.io/ keys are the platform team's; only the selector's two are refused (the values schemas below).
    const objects = render({
      ...Object.fromEntries(
        COMPONENTS.map((component) => [
          component,
          { podLabels: { team: component, 'app.kubernetes.io/component': 'network' }, podAnnotations: { 'example.com/owner': component } },
        ]),
      ),
    });
    const metadata = Object.fromEntries(WORKLOADS.map((workload) => [workload.name, pod(objects, workload).metadata]));
    expect(metadata).toEqual({
      'dra-driver-sriov': {
        labels: {
          'app.kubernetes.io/name': 'dra-driver-sriov',
          'app.kubernetes.io/instance': 'sriov-dra',
          'app.kubernetes.io/component': 'network',
          team: 'dra-driver',
        },
        annotations: { 'example.com/owner': 'dra-driver' },
      },
      'multus-live-read-proxy': {
        labels: {
          'app.kubernetes.io/name': 'multus-live-read-proxy',
          'app.kubernetes.io/instance': 'sriov-dra',
          'app.kubernetes.io/component': 'network',
          team: 'multus-live-read-proxy',
        },
        annotations: { 'example.com/owner': 'multus-live-read-proxy', 'checksum/config': expect.stringMatching(/^[0-9a-f]{64}$/) },
      },
      'node-policy-operator': {
        labels: {
          'app.kubernetes.io/name': 'node-policy-operator',
          'app.kubernetes.io/instance': 'sriov-dra',
          'app.kubernetes.io/component': 'network',
          team: 'node-policy-operator',
        },
        annotations: { 'example.com/owner': 'node-policy-operator' },
      },
      'node-policy-operator-webhook': {
        labels: {
          'app.kubernetes.io/name': 'node-policy-operator-webhook',
          'app.kubernetes.io/instance': 'sriov-dra',
          'app.kubernetes.io/component': 'network',
          team: 'node-policy-operator',
        },
        annotations: { 'example.com/owner': 'node-policy-operator' },
      },
    });
  });

  it('gives the DaemonSets system-node-critical and the Deployments no priority by default; priorityClassName sets or clears it', () => {
    expect(podField(render(), 'priorityClassName')).toEqual({
      'dra-driver-sriov': 'system-node-critical',
      'multus-live-read-proxy': 'system-node-critical',
      'node-policy-operator': undefined,
      'node-policy-operator-webhook': undefined,
    });
    expect(podField(render(everyComponent('priorityClassName', (component) => `${component}-tier`)), 'priorityClassName')).toEqual({
      'dra-driver-sriov': 'dra-driver-tier',
      'multus-live-read-proxy': 'multus-live-read-proxy-tier',
      'node-policy-operator': 'node-policy-operator-tier',
      'node-policy-operator-webhook': 'node-policy-operator-tier',
    });
    expect(podField(render(everyComponent('priorityClassName', () => '')), 'priorityClassName')).toEqual({
      'dra-driver-sriov': undefined,
      'multus-live-read-proxy': undefined,
      'node-policy-operator': undefined,
      'node-policy-operator-webhook': undefined,
    });
  });

  it.each([
    ['nodeSelector', (component: string) => ({ 'example.com/pool': component })],
    ['tolerations', (component: string) => [{ key: component, operator: 'Exists', effect: 'NoSchedule' }]],
    [
      'affinity',
      (component: string) => ({
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: component, operator: 'Exists' }] }] },
        },
      }),
    ],
  ])('places each Pod by its component’s %s, the webhook by the operator’s', (field, value) => {
    expect(podField(render(everyComponent(field, value)), field)).toEqual({
      'dra-driver-sriov': value('dra-driver'),
      'multus-live-read-proxy': value('multus-live-read-proxy'),
      'node-policy-operator': value('node-policy-operator'),
      'node-policy-operator-webhook': value('node-policy-operator'),
    });
  });

  it('spreads the operator’s and the webhook’s replicas over nodes by default, each selecting its own Pods; one replica, none', () => {
    const spread = (name: string) => ({
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          {
            weight: 100,
            podAffinityTerm: {
              topologyKey: 'kubernetes.io/hostname',
              labelSelector: { matchLabels: { 'app.kubernetes.io/name': name, 'app.kubernetes.io/instance': 'sriov-dra' } },
            },
          },
        ],
      },
    });
    expect(podField(render(), 'affinity')).toEqual({
      'dra-driver-sriov': undefined,
      'multus-live-read-proxy': undefined,
      'node-policy-operator': spread('node-policy-operator'),
      'node-policy-operator-webhook': spread('node-policy-operator-webhook'),
    });
    expect(podField(render({ 'node-policy-operator': { replicas: 1, webhook: { replicas: 1 } } }), 'affinity')).toEqual({
      'dra-driver-sriov': undefined,
      'multus-live-read-proxy': undefined,
      'node-policy-operator': undefined,
      'node-policy-operator-webhook': undefined,
    });
    expect(podField(render({ 'node-policy-operator': { replicas: 3, webhook: { replicas: 1 } } }), 'affinity')).toMatchObject({
      'node-policy-operator': spread('node-policy-operator'),
      'node-policy-operator-webhook': undefined,
    });
  });

  it('gives each container its component’s resources, the webhook its own webhook.resources; none by default', () => {
    const resources = (objects: readonly Rendered[]) =>
      Object.fromEntries(WORKLOADS.map((workload) => [workload.name, container(objects, workload).resources]));
    expect(resources(render())).toEqual({
      'dra-driver-sriov': undefined,
      'multus-live-read-proxy': undefined,
      'node-policy-operator': undefined,
      'node-policy-operator-webhook': undefined,
    });
    const sized = (cpu: string) => ({ requests: { cpu, memory: '64Mi' }, limits: { memory: '256Mi' } });
    const objects = render({
      'dra-driver': { resources: sized('10m') },
      'multus-live-read-proxy': { resources: sized('20m') },
      'node-policy-operator': { resources: sized('30m'), webhook: { resources: sized('40m') } },
    });
    expect(resources(objects)).toEqual({
      'dra-driver-sriov': sized('10m'),
      'multus-live-read-proxy': sized('20m'),
      'node-policy-operator': sized('30m'),
      'node-policy-operator-webhook': sized('40m'),
    });
  });
});

describe('logLevel', () => {
  it('is LOG_LEVEL info in every component’s container by default, and each component’s value when set', () => {
    const levels = (objects: readonly Rendered[]) => Object.fromEntries(WORKLOADS.map((workload) => [workload.name, env(objects, workload, 'LOG_LEVEL')]));
    expect(levels(render())).toEqual({
      'dra-driver-sriov': 'info',
      'multus-live-read-proxy': 'info',
      'node-policy-operator': 'info',
      'node-policy-operator-webhook': 'info',
    });
    expect(
      levels(render({ 'dra-driver': { logLevel: 'trace' }, 'multus-live-read-proxy': { logLevel: 'warn' }, 'node-policy-operator': { logLevel: 'fatal' } })),
    ).toEqual({
      'dra-driver-sriov': 'trace',
      'multus-live-read-proxy': 'warn',
      'node-policy-operator': 'fatal',
      'node-policy-operator-webhook': 'fatal',
    });
  });

  it('leaves daemon-config.json’s logLevel (the shim’s, upstream levels) to shimLogLevel', () => {
    const shim = (objects: readonly Rendered[]) =>
      (JSON.parse(find(objects, 'ConfigMap', 'multus-live-read-proxy-config').data?.['daemon-config.json'] ?? '{}') as { logLevel?: string }).logLevel;
    expect(shim(render({ 'multus-live-read-proxy': { logLevel: 'debug' } }))).toBe('info');
    const verbose = render({ 'multus-live-read-proxy': { shimLogLevel: 'verbose' } });
    expect({ shim: shim(verbose), daemon: env(verbose, WORKLOADS[1], 'LOG_LEVEL') }).toEqual({ shim: 'verbose', daemon: 'info' });
  });
});

describe('names and labels', () => {
  it('names every namespaced object of a component by its fullnameOverride, references included; the defaults are today’s names', () => {
    const names = (objects: readonly Rendered[]) =>
      objects
        .filter((object) => ['DaemonSet', 'Deployment', 'ConfigMap', 'Service', 'PodDisruptionBudget'].includes(object.kind))
        .map((object) => `${object.kind} ${object.metadata.name}`)
        .sort();
    expect(names(render())).toEqual([
      'ConfigMap multus-live-read-proxy-config',
      'DaemonSet dra-driver-sriov',
      'DaemonSet multus-live-read-proxy',
      'Deployment node-policy-operator',
      'Deployment node-policy-operator-webhook',
      'PodDisruptionBudget node-policy-operator',
      'PodDisruptionBudget node-policy-operator-webhook',
      'Service dra-driver-sriov-metrics',
      'Service multus-live-read-proxy-metrics',
      'Service node-policy-operator-metrics',
      'Service node-policy-operator-webhook',
    ]);
    const objects = render(
      everyComponent(
        'fullnameOverride',
        (component) => ({ 'dra-driver': 'nic-driver', 'multus-live-read-proxy': 'cni', 'node-policy-operator': 'policies' })[component],
      ),
    );
    expect(names(objects)).toEqual([
      'ConfigMap cni-config',
      'DaemonSet cni',
      'DaemonSet nic-driver',
      'Deployment policies',
      'Deployment policies-webhook',
      'PodDisruptionBudget policies',
      'PodDisruptionBudget policies-webhook',
      'Service cni-metrics',
      'Service nic-driver-metrics',
      'Service policies-metrics',
      'Service policies-webhook',
    ]);
    expect(pod(objects, { ...WORKLOADS[1], name: 'cni' }).spec.volumes?.find((volume) => volume.name === 'config')?.configMap).toEqual({ name: 'cni-config' });
  });

  it('labels every object of a component with its name, instance, version, part-of, managed-by and chart', () => {
    const objects = render({ 'dra-driver': { deviceClasses: [{ name: 'sriov-any' }] } });
    const common = {
      'app.kubernetes.io/instance': 'sriov-dra',
      'app.kubernetes.io/version': '0.1.0',
      'app.kubernetes.io/part-of': 'sriov-dra',
      'app.kubernetes.io/managed-by': 'Helm',
    };
    const labelled = (kind: string, name: string) => find(objects, kind, name).metadata.labels;
    expect({
      driver: labelled('DaemonSet', 'dra-driver-sriov'),
      driverAccount: labelled('ServiceAccount', 'dra-driver-sriov'),
      deviceClass: labelled('DeviceClass', 'sriov-any'),
      daemon: labelled('DaemonSet', 'multus-live-read-proxy'),
      daemonConfig: labelled('ConfigMap', 'multus-live-read-proxy-config'),
      operator: labelled('Deployment', 'node-policy-operator'),
      webhook: labelled('Deployment', 'node-policy-operator-webhook'),
    }).toEqual({
      driver: { ...common, 'app.kubernetes.io/name': 'dra-driver-sriov', 'helm.sh/chart': 'dra-driver-0.1.0' },
      driverAccount: { ...common, 'app.kubernetes.io/name': 'dra-driver-sriov', 'helm.sh/chart': 'dra-driver-0.1.0' },
      deviceClass: { ...common, 'app.kubernetes.io/name': 'dra-driver-sriov', 'helm.sh/chart': 'dra-driver-0.1.0' },
      daemon: { ...common, 'app.kubernetes.io/name': 'multus-live-read-proxy', 'helm.sh/chart': 'multus-live-read-proxy-0.1.0' },
      daemonConfig: { ...common, 'app.kubernetes.io/name': 'multus-live-read-proxy', 'helm.sh/chart': 'multus-live-read-proxy-0.1.0' },
      operator: { ...common, 'app.kubernetes.io/name': 'node-policy-operator', 'helm.sh/chart': 'node-policy-operator-0.1.0' },
      webhook: { ...common, 'app.kubernetes.io/name': 'node-policy-operator-webhook', 'helm.sh/chart': 'node-policy-operator-0.1.0' },
    });
  });
});

describe('global.operatorNamespace', () => {
  // The operator's own Role (its Lease, the objects it generates) and the driver's read of policies.
  const FOLLOWING_ROLES = ['sriov-dra-node-policy-operator', 'sriov-dra-dra-driver-sriov-policies'];
  const followers = (objects: readonly Rendered[]) => ({
    operator: env(objects, WORKLOADS[2], 'OPERATOR_NAMESPACE'),
    webhook: env(objects, WORKLOADS[3], 'OPERATOR_NAMESPACE'),
    roles: objects
      .filter((object) => (object.kind === 'Role' || object.kind === 'RoleBinding') && FOLLOWING_ROLES.includes(object.metadata.name))
      .map((object) => `${object.kind} ${object.metadata.name} ${String(object.metadata.namespace)}`)
      .sort(),
  });

  it('is the release namespace by default for the operator, its webhook and its Role, and the driver’s policies Role', () => {
    expect(followers(render())).toEqual({
      operator: NAMESPACE,
      webhook: NAMESPACE,
      roles: [
        `Role sriov-dra-dra-driver-sriov-policies ${NAMESPACE}`,
        `Role sriov-dra-node-policy-operator ${NAMESPACE}`,
        `RoleBinding sriov-dra-dra-driver-sriov-policies ${NAMESPACE}`,
        `RoleBinding sriov-dra-node-policy-operator ${NAMESPACE}`,
      ],
    });
  });

  it('moves the operator, its webhook, its Role and the driver’s NAMESPACE and policies Role together', () => {
    const objects = render({ global: { operatorNamespace: 'sriov-network-operator' } });
    expect({ ...followers(objects), driver: env(objects, WORKLOADS[0], 'NAMESPACE') }).toEqual({
      operator: 'sriov-network-operator',
      webhook: 'sriov-network-operator',
      roles: [
        'Role sriov-dra-dra-driver-sriov-policies sriov-network-operator',
        'Role sriov-dra-node-policy-operator sriov-network-operator',
        'RoleBinding sriov-dra-dra-driver-sriov-policies sriov-network-operator',
        'RoleBinding sriov-dra-node-policy-operator sriov-network-operator',
      ],
      driver: 'sriov-network-operator',
    });
  });
});

describe('node-policy-operator.draEnabled', () => {
  it('is DRA_ENABLED true by default and false when the DRA provider is not deployed', () => {
    expect(env(render(), WORKLOADS[2], 'DRA_ENABLED')).toBe('true');
    expect(env(render({ 'node-policy-operator': { draEnabled: false } }), WORKLOADS[2], 'DRA_ENABLED')).toBe('false');
  });

  it('stays true without this release’s driver: a driver of another release may read what the operator generates', () => {
    const objects = render({ 'dra-driver': { enabled: false } });
    expect({
      drivers: objects.filter((object) => object.kind === 'DaemonSet' && object.metadata.name === 'dra-driver-sriov').length,
      draEnabled: env(objects, WORKLOADS[2], 'DRA_ENABLED'),
    }).toEqual({ drivers: 0, draEnabled: 'true' });
  });
});

describe('kubeVersion', () => {
  it.each([
    ['the umbrella chart', CHART],
    ['dra-driver', join(CHART, 'charts/dra-driver')],
    ['multus-live-read-proxy', join(CHART, 'charts/multus-live-read-proxy')],
    ['node-policy-operator', join(CHART, 'charts/node-policy-operator')],
  ])('of %s refuses Kubernetes 1.33 and takes 1.34, whose resource.k8s.io/v1 it uses', (_chart, dir) => {
    const older = helm('template', 'release', dir, '--kube-version', 'v1.33.9');
    expect({ status: older.status, stderr: older.stderr.split('\n')[0] }).toEqual({
      status: 1,
      stderr: 'Error: chart requires kubeVersion: >= 1.34.0-0 which is incompatible with Kubernetes v1.33.9',
    });
    expect(helm('template', 'release', dir, '--kube-version', 'v1.34.0').status).toBe(0);
  });
});

describe('metrics', () => {
  it('serves each component’s /metrics port through a headless Service selecting exactly its Pods', () => {
    const objects = render({
      'dra-driver': { healthcheckPort: 52000 },
      'multus-live-read-proxy': { metricsPort: 9300 },
      'node-policy-operator': { healthPort: 8181 },
    });
    const served = (service: string, workload: (typeof WORKLOADS)[number]) => {
      const spec = find(objects, 'Service', service).spec as {
        clusterIP: string;
        selector?: Record<string, string>;
        ports: { name: string; port: number; targetPort: string }[];
      };
      const [port] = spec.ports;
      return {
        clusterIP: spec.clusterIP,
        selectsPods:
          spec.selector === undefined ? false : Object.entries(spec.selector).every(([key, value]) => pod(objects, workload).metadata.labels[key] === value),
        port: port?.port,
        containerPort: container(objects, workload).ports?.find((candidate) => candidate.name === port?.targetPort)?.containerPort,
      };
    };
    expect({
      driver: served('dra-driver-sriov-metrics', WORKLOADS[0]),
      daemon: served('multus-live-read-proxy-metrics', WORKLOADS[1]),
      operator: served('node-policy-operator-metrics', WORKLOADS[2]),
      operatorSelectsWebhook: served('node-policy-operator-metrics', WORKLOADS[3]).selectsPods,
    }).toEqual({
      driver: { clusterIP: 'None', selectsPods: true, port: 52000, containerPort: 52000 },
      daemon: { clusterIP: 'None', selectsPods: true, port: 9300, containerPort: 9300 },
      operator: { clusterIP: 'None', selectsPods: true, port: 8181, containerPort: 8181 },
      operatorSelectsWebhook: false,
    });
  });

  it('renders no ServiceMonitor by default, and one per component scraping its metrics port when enabled', () => {
    expect(render().filter((object) => object.kind === 'ServiceMonitor')).toEqual([]);
    const objects = render(everyComponent('metrics', () => ({ serviceMonitor: { enabled: true, interval: '15s', labels: { release: 'prometheus' } } })));
    const monitors = objects.filter((object) => object.kind === 'ServiceMonitor');
    expect(monitors.map((monitor) => [monitor.metadata.name, monitor.metadata.labels?.['release'], monitor.spec])).toEqual(
      ['dra-driver-sriov', 'multus-live-read-proxy', 'node-policy-operator'].map((name) => [
        name,
        'prometheus',
        {
          selector: { matchLabels: { 'app.kubernetes.io/name': name, 'app.kubernetes.io/instance': 'sriov-dra' } },
          endpoints: [{ port: 'metrics', path: '/metrics', interval: '15s' }],
        },
      ]),
    );
    // The monitor selects the metrics Service alone among the component's Services.
    const selected = objects.filter((object) => object.kind === 'Service' && object.metadata.labels?.['app.kubernetes.io/name'] === 'node-policy-operator');
    expect(selected.map((service) => service.metadata.name)).toEqual(['node-policy-operator-metrics']);
  });
});

describe('PodDisruptionBudgets', () => {
  it('keep all but one operator and webhook Pod through a drain above one replica, and are absent at one', () => {
    const budgets = (objects: readonly Rendered[]) =>
      Object.fromEntries(objects.filter((object) => object.kind === 'PodDisruptionBudget').map((budget) => [budget.metadata.name, budget.spec]));
    expect(budgets(render())).toEqual({
      'node-policy-operator': {
        maxUnavailable: 1,
        selector: { matchLabels: { 'app.kubernetes.io/name': 'node-policy-operator', 'app.kubernetes.io/instance': 'sriov-dra' } },
      },
      'node-policy-operator-webhook': {
        maxUnavailable: 1,
        selector: { matchLabels: { 'app.kubernetes.io/name': 'node-policy-operator-webhook', 'app.kubernetes.io/instance': 'sriov-dra' } },
      },
    });
    expect(Object.keys(budgets(render({ 'node-policy-operator': { replicas: 1 } })))).toEqual(['node-policy-operator-webhook']);
    expect(Object.keys(budgets(render({ 'node-policy-operator': { webhook: { replicas: 1 } } })))).toEqual(['node-policy-operator']);
    expect(Object.keys(budgets(render({ 'node-policy-operator': { webhook: { enabled: false } } })))).toEqual(['node-policy-operator']);
  });
});

// §14.1 (one NAD for a class) and §14.2 (a VF with a discovered PCIe root), as the specification writes them.
const SECTION_14_CLASSES = [
  { name: 'sriov-one-network', vfConfig: { netAttachDefName: 'rail-a-net', netAttachDefNamespace: 'ai-workloads' } },
  { name: 'sriov-pcie-netdevice', requirePcieRoot: true },
];

describe('deviceClasses', () => {
  it('renders none by default', () => {
    expect(render().filter((object) => object.kind === 'DeviceClass')).toEqual([]);
  });

  it('renders §14.1’s and §14.2’s classes of the driver as the specification writes them', () => {
    const classes = render({ 'dra-driver': { deviceClasses: SECTION_14_CLASSES } })
      .filter((object) => object.kind === 'DeviceClass')
      .map((object) => ({ apiVersion: (object as unknown as { apiVersion: string }).apiVersion, name: object.metadata.name, spec: object.spec }));
    expect(classes).toEqual([
      {
        apiVersion: 'resource.k8s.io/v1',
        name: 'sriov-one-network',
        spec: {
          selectors: [{ cel: { expression: 'device.driver == "sriovnetwork.k8snetworkplumbingwg.io"' } }],
          config: [
            {
              opaque: {
                driver: 'sriovnetwork.k8snetworkplumbingwg.io',
                parameters: {
                  apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1',
                  kind: 'VfConfig',
                  netAttachDefName: 'rail-a-net',
                  netAttachDefNamespace: 'ai-workloads',
                },
              },
            },
          ],
        },
      },
      {
        apiVersion: 'resource.k8s.io/v1',
        name: 'sriov-pcie-netdevice',
        spec: {
          selectors: [
            {
              cel: {
                expression:
                  'device.driver == "sriovnetwork.k8snetworkplumbingwg.io" && "resource.kubernetes.io" in device.attributes && "pcieRoot" in device.attributes["resource.kubernetes.io"] && device.attributes["resource.kubernetes.io"].pcieRoot != ""',
              },
            },
          ],
        },
      },
    ]);
  });

  it('narrows a class by an administrator’s CEL selector, ANDed with the driver match', () => {
    const [narrowed] = render({ 'dra-driver': { deviceClasses: [{ name: 'rail-b', selector: `device.attributes["${DRIVER}"].pfName == "ens2f0"` }] } }).filter(
      (object) => object.kind === 'DeviceClass',
    );
    expect(narrowed?.spec).toEqual({
      selectors: [
        {
          cel: {
            expression:
              'device.driver == "sriovnetwork.k8snetworkplumbingwg.io" && (device.attributes["sriovnetwork.k8snetworkplumbingwg.io"].pfName == "ens2f0")',
          },
        },
      ],
    });
  });
});

describe('the values schemas', () => {
  // Each refusal is the named chart's own schema's, as Helm reports it under that chart.
  it.each([
    [
      'the umbrella’s global: an unknown key',
      { global: { operatorNamesapce: 'x' } },
      'sriov-dra',
      "/global': additional properties 'operatorNamesapce' not allowed",
    ],
    ['the umbrella’s global: a wrong type', { global: { imagePullSecrets: 'corp' } }, 'sriov-dra', "/global/imagePullSecrets': got string, want array"],
    ['dra-driver: an unknown key', { 'dra-driver': { policyNamespace: 'x' } }, 'dra-driver', "': additional properties 'policyNamespace' not allowed"],
    ['dra-driver: a wrong type', { 'dra-driver': { podLabels: { team: 5 } } }, 'dra-driver', "/podLabels/team': got number, want string"],
    [
      'dra-driver: a DeviceClass with an unknown VfConfig field',
      { 'dra-driver': { deviceClasses: [{ name: 'c', vfConfig: { netAttachDefNam: 'x' } }] } },
      'dra-driver',
      "/deviceClasses/0/vfConfig': additional properties 'netAttachDefNam' not allowed",
    ],
    [
      'multus-live-read-proxy: an unknown key',
      { 'multus-live-read-proxy': { image: { name: 'x' } } },
      'multus-live-read-proxy',
      "/image': additional properties 'name' not allowed",
    ],
    [
      'multus-live-read-proxy: a wrong type',
      { 'multus-live-read-proxy': { logLevel: 'verbose' } },
      'multus-live-read-proxy',
      "/logLevel': value must be one of",
    ],
    [
      'node-policy-operator: an unknown key',
      { 'node-policy-operator': { operatorNamespace: 'x' } },
      'node-policy-operator',
      "': additional properties 'operatorNamespace' not allowed",
    ],
    ['node-policy-operator: a wrong type', { 'node-policy-operator': { draEnabled: 'yes' } }, 'node-policy-operator', "/draEnabled': got string, want boolean"],
    [
      'node-policy-operator: a digest that is not one',
      { 'node-policy-operator': { image: { digest: 'latest' } } },
      'node-policy-operator',
      "/image/digest': 'latest' does not match pattern",
    ],
    [
      'dra-driver: a podLabels key of the Pod selector',
      { 'dra-driver': { podLabels: { 'app.kubernetes.io/name': 'x', team: 'a' } } },
      'dra-driver',
      "/podLabels/app.kubernetes.io~1name': false schema",
    ],
    [
      'multus-live-read-proxy: a podLabels key of the Pod selector',
      { 'multus-live-read-proxy': { podLabels: { 'app.kubernetes.io/instance': 'x' } } },
      'multus-live-read-proxy',
      "/podLabels/app.kubernetes.io~1instance': false schema",
    ],
    [
      'node-policy-operator: a podLabels key of the Pod selector (the operator’s and the webhook’s)',
      { 'node-policy-operator': { podLabels: { 'app.kubernetes.io/name': 'x' } } },
      'node-policy-operator',
      "/podLabels/app.kubernetes.io~1name': false schema",
    ],
    [
      'dra-driver: a digest that is not one',
      { 'dra-driver': { image: { digest: 'sha256:short' } } },
      'dra-driver',
      "/image/digest': 'sha256:short' does not match pattern",
    ],
    [
      'multus-live-read-proxy: a digest that is not one',
      { 'multus-live-read-proxy': { image: { digest: 'v1' } } },
      'multus-live-read-proxy',
      "/image/digest': 'v1' does not match pattern",
    ],
  ])('refuses %s, naming it', (_case, values, chart, message) => {
    const result = run(values);
    expect({ status: result.status, names: result.stderr.includes(`${chart}:\n- at '${message}`) }).toEqual({ status: 1, names: true });
  });
});

describe('what the knobs render, on a real API server', () => {
  let cp: ControlPlane;
  const budgets: ResourceType = { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true };

  beforeAll(async () => {
    cp = await startControlPlane();
    await createNamespace(cp.adminClient, NAMESPACE);
  }, 120_000);

  afterAll(async () => {
    await cp.stop();
  });

  it('accepts §14’s DeviceClasses, their CEL compiled, and the PodDisruptionBudgets', async () => {
    const objects = render({
      'dra-driver': { deviceClasses: [...SECTION_14_CLASSES, { name: 'rail-a', selector: `device.attributes["${DRIVER}"].pfName == "ens1f0"` }] },
    });
    for (const object of objects.filter((candidate) => candidate.kind === 'DeviceClass')) await cp.adminClient.create(resourceTypes.deviceClass, object);
    for (const object of objects.filter((candidate) => candidate.kind === 'PodDisruptionBudget'))
      await cp.adminClient.create(budgets, object, { namespace: NAMESPACE });
    const stored = await cp.adminClient.list(resourceTypes.deviceClass);
    expect(stored.items.map((item) => item.metadata.name).sort()).toEqual(['rail-a', 'sriov-one-network', 'sriov-pcie-netdevice']);
    expect((await cp.adminClient.list(budgets, { namespace: NAMESPACE })).items.map((item) => item.metadata.name).sort()).toEqual([
      'node-policy-operator',
      'node-policy-operator-webhook',
    ]);
    // A class whose CEL does not compile is refused by the API server, as the rendered ones were not.
    await expect(
      cp.adminClient.create(resourceTypes.deviceClass, {
        apiVersion: 'resource.k8s.io/v1',
        kind: 'DeviceClass',
        metadata: { name: 'broken' },
        spec: { selectors: [{ cel: { expression: 'device.driver ==' } }] },
      }),
    ).rejects.toThrow(/compilation failed|Syntax error/);
  }, 60_000);
});
