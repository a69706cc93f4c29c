// The umbrella chart as Helm v4 itself reads it (built from the Go module proxy by
// tools/control-plane/build-binaries.sh helm): lint, the values schema, and what an install renders.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { helmBinary } from '@sriov-dra/k8s/testing';
import { parseAllDocuments } from 'yaml';
import { CHART_CRD_NAMES } from './chart-crds.ts';

const CHART = fileURLToPath(new URL('../sriov-dra/', import.meta.url));

interface Rendered {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly subjects?: readonly Record<string, unknown>[];
}

function helm(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(helmBinary(), args, { encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** `helm template` of the umbrella chart into `namespace`, as objects; fails the test on any Helm error. */
function template(namespace: string, ...args: string[]): Rendered[] {
  const run = helm('template', 'sriov-dra', CHART, '--namespace', namespace, ...args);
  expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
  return parseAllDocuments(run.stdout)
    .map((document) => document.toJS() as Rendered | null)
    .filter((object) => object !== null);
}

describe('charts/sriov-dra under Helm v4', () => {
  it('is the Helm release tools/ pins', () => {
    expect(helm('version', '--template', '{{.Version}}').stdout).toBe('v4.3.1');
  });

  it('passes helm lint --strict, subcharts included', () => {
    const run = helm('lint', '--strict', '--with-subcharts', CHART);
    expect({ status: run.status, failed: run.stdout.split('\n').filter((line) => /\[(WARNING|ERROR)\]/.test(line)) }).toEqual({ status: 0, failed: [] });
  });

  it('installs the CRDs from crds/ and binds the driver roles to its ServiceAccount in the release namespace', () => {
    const objects = template(
      'infra',
      '--include-crds',
      '--set',
      'dra-driver.serviceAccount.name=node-driver',
      '--set',
      'multus-live-read-proxy.serviceAccount.name=node-multus',
    );
    expect(
      objects
        .filter((object) => object.kind === 'CustomResourceDefinition')
        .map((object) => object.metadata.name)
        .sort(),
    ).toEqual(CHART_CRD_NAMES);
    const subjects = Object.fromEntries(
      objects.filter((object) => object.kind === 'ClusterRoleBinding').map((binding) => [binding.metadata.name, binding.subjects]),
    );
    // Managed networks are off by default: the driver's Pod/NAD grant is not rendered.
    expect(subjects).toEqual({
      'sriov-dra-dra-driver-sriov': [{ kind: 'ServiceAccount', name: 'node-driver', namespace: 'infra' }],
      'sriov-dra-multus-live-read-proxy': [{ kind: 'ServiceAccount', name: 'node-multus', namespace: 'infra' }],
      'sriov-dra-node-policy-operator': [{ kind: 'ServiceAccount', name: 'node-policy-operator', namespace: 'infra' }],
      // The webhook's init container applies its caBundle (docs/webhook-certificates.md).
      'sriov-dra-node-policy-operator-webhook-certificates': [{ kind: 'ServiceAccount', name: 'node-policy-operator-webhook', namespace: 'infra' }],
    });
    expect(
      objects
        .filter((object) => object.kind === 'DaemonSet' || object.kind === 'Deployment' || object.kind === 'ServiceAccount')
        .map((object) => `${object.kind} ${object.metadata.namespace ?? ''}/${object.metadata.name}`)
        .sort(),
    ).toEqual([
      'DaemonSet infra/dra-driver-sriov',
      'DaemonSet infra/multus-live-read-proxy',
      'Deployment infra/node-policy-operator',
      'Deployment infra/node-policy-operator-webhook',
      'ServiceAccount infra/node-driver',
      'ServiceAccount infra/node-multus',
      'ServiceAccount infra/node-policy-operator',
      'ServiceAccount infra/node-policy-operator-webhook',
    ]);
  });

  it('refuses managed shadow networks without Multus running the networks', () => {
    const run = helm('template', 'sriov-dra', CHART, '--set', 'dra-driver.multusAutoAttach=true');
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('multusAutoAttach needs configurationMode MULTUS');
    expect(
      template('infra', '--set', 'dra-driver.multusAutoAttach=true', '--set', 'dra-driver.configurationMode=MULTUS').map((object) => object.kind),
    ).toContain('DaemonSet');
  });

  it('points the driver at global.operatorNamespace for policies when told to, reading them there alone', () => {
    const driverPolicies = (...args: string[]) => {
      const objects = template('infra', ...args);
      const env = (
        objects.find((object) => object.kind === 'DaemonSet' && object.metadata.name === 'dra-driver-sriov') as
          { spec: { template: { spec: { containers: { env: { name: string; value?: string; valueFrom?: unknown }[] }[] } } } } | undefined
      )?.spec.template.spec.containers[0]?.env.find((variable) => variable.name === 'NAMESPACE');
      const grants = objects
        .filter((object) => object.metadata.name === 'sriov-dra-dra-driver-sriov-policies')
        .map((object) => `${object.kind} ${String(object.metadata.namespace)}`);
      return { env, grants };
    };
    expect(driverPolicies()).toEqual({
      env: { name: 'NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      grants: ['Role infra', 'RoleBinding infra'],
    });
    expect(driverPolicies('--set', 'global.operatorNamespace=sriov-network-operator')).toEqual({
      env: { name: 'NAMESPACE', value: 'sriov-network-operator' },
      grants: ['Role sriov-network-operator', 'RoleBinding sriov-network-operator'],
    });
    const bad = helm('template', 'sriov-dra', CHART, '--set', 'global.operatorNamespace=Not_A_Namespace');
    expect({ status: bad.status, names: bad.stderr.includes('/global/operatorNamespace') }).toEqual({ status: 1, names: true });
  });

  it('places every workload by its component’s nodeSelector and tolerations, the webhook with its operator', () => {
    const placement = (...args: string[]) =>
      Object.fromEntries(
        template('infra', ...args)
          .filter((object) => object.kind === 'DaemonSet' || object.kind === 'Deployment')
          .map((object) => {
            const spec = (object as unknown as { spec: { template: { spec: { nodeSelector?: unknown; tolerations?: unknown } } } }).spec.template.spec;
            return [object.metadata.name, { nodeSelector: spec.nodeSelector, tolerations: spec.tolerations }];
          }),
      );
    const pinned = { nodeSelector: { 'kubernetes.io/hostname': 'n1' }, tolerations: [{ key: 'lab', operator: 'Exists' }] };
    const set = (component: string) => [
      '--set',
      `${component}.nodeSelector.kubernetes\\.io/hostname=n1`,
      '--set',
      `${component}.tolerations[0].key=lab`,
      '--set',
      `${component}.tolerations[0].operator=Exists`,
    ];
    expect(placement(...set('dra-driver'), ...set('multus-live-read-proxy'), ...set('node-policy-operator'))).toEqual({
      'dra-driver-sriov': pinned,
      'multus-live-read-proxy': pinned,
      'node-policy-operator': pinned,
      'node-policy-operator-webhook': pinned,
    });
    // By default only CNI goes everywhere Pods do.
    expect(placement()).toEqual({
      'dra-driver-sriov': { nodeSelector: undefined, tolerations: undefined },
      'multus-live-read-proxy': { nodeSelector: undefined, tolerations: [{ operator: 'Exists' }] },
      'node-policy-operator': { nodeSelector: undefined, tolerations: undefined },
      'node-policy-operator-webhook': { nodeSelector: undefined, tolerations: undefined },
    });
  });

  it('runs the Multus daemon’s delegates chrooted into the host’s root, mounted at chrootDir, unless chrootDir is empty', () => {
    const hostRoot = (...args: string[]) => {
      const objects = template('infra', ...args);
      const config = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name === 'multus-live-read-proxy-config') as
        | { data: Record<string, string> }
        | undefined;
      const pod = (
        objects.find((object) => object.kind === 'DaemonSet' && object.metadata.name === 'multus-live-read-proxy') as
          | { spec: { template: { spec: { containers: { volumeMounts: { name: string }[] }[]; volumes: { name: string; hostPath?: { path: string } }[] } } } }
          | undefined
      )?.spec.template.spec;
      const volume = pod?.volumes.find((candidate) => candidate.hostPath?.path === '/');
      return {
        chrootDir: (JSON.parse(config?.data['daemon-config.json'] ?? '{}') as { chrootDir?: string }).chrootDir,
        volume,
        mount: pod?.containers[0]?.volumeMounts.find((mount) => mount.name === volume?.name),
      };
    };
    // Read-write: delegates write their state there. HostToContainer: namespaces the host mounts later show.
    expect(hostRoot()).toEqual({
      chrootDir: '/hostroot',
      volume: { name: 'hostroot', hostPath: { path: '/', type: 'Directory' } },
      mount: { name: 'hostroot', mountPath: '/hostroot', mountPropagation: 'HostToContainer' },
    });
    expect(hostRoot('--set', 'multus-live-read-proxy.chrootDir=/host')).toMatchObject({ chrootDir: '/host', mount: { mountPath: '/host' } });
    expect(hostRoot('--set', 'multus-live-read-proxy.chrootDir=')).toEqual({ chrootDir: undefined, volume: undefined, mount: undefined });
  });

  it('mounts the kubelet’s pod-resources directory read-only into the Multus daemon and names its socket in daemon-config.json', () => {
    const podResources = (...args: string[]) => {
      const objects = template('infra', ...args);
      const config = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name === 'multus-live-read-proxy-config') as
        | { data: Record<string, string> }
        | undefined;
      const pod = (
        objects.find((object) => object.kind === 'DaemonSet' && object.metadata.name === 'multus-live-read-proxy') as
          | { spec: { template: { spec: { containers: { volumeMounts: { name: string }[] }[]; volumes: { name: string }[] } } } }
          | undefined
      )?.spec.template.spec;
      return {
        socket: (JSON.parse(config?.data['daemon-config.json'] ?? '{}') as { podResourcesSocket?: string }).podResourcesSocket,
        volume: pod?.volumes.find((candidate) => candidate.name === 'pod-resources'),
        mount: pod?.containers[0]?.volumeMounts.find((mount) => mount.name === 'pod-resources'),
      };
    };
    expect(podResources()).toEqual({
      socket: '/var/lib/kubelet/pod-resources/kubelet.sock',
      volume: { name: 'pod-resources', hostPath: { path: '/var/lib/kubelet/pod-resources', type: 'DirectoryOrCreate' } },
      mount: { name: 'pod-resources', mountPath: '/var/lib/kubelet/pod-resources', readOnly: true },
    });
    expect(podResources('--set', 'multus-live-read-proxy.host.podResourcesDir=/run/kubelet/pod-resources')).toMatchObject({
      socket: '/run/kubelet/pod-resources/kubelet.sock',
      volume: { hostPath: { path: '/run/kubelet/pod-resources' } },
      mount: { mountPath: '/run/kubelet/pod-resources', readOnly: true },
    });
  });

  it('renders nothing of a component switched off', () => {
    const components = ['dra-driver', 'multus-live-read-proxy', 'node-policy-operator'];
    const workloads = (...off: string[]) =>
      template('infra', ...off.flatMap((component) => ['--set', `${component}.enabled=false`]))
        .filter((object) => object.kind === 'DaemonSet' || object.kind === 'Deployment')
        .map((object) => object.metadata.name)
        .sort();
    expect(workloads()).toEqual(['dra-driver-sriov', 'multus-live-read-proxy', 'node-policy-operator', 'node-policy-operator-webhook']);
    expect(workloads('dra-driver')).toEqual(['multus-live-read-proxy', 'node-policy-operator', 'node-policy-operator-webhook']);
    expect(workloads('multus-live-read-proxy')).toEqual(['dra-driver-sriov', 'node-policy-operator', 'node-policy-operator-webhook']);
    expect(workloads('node-policy-operator')).toEqual(['dra-driver-sriov', 'multus-live-read-proxy']);
    expect(template('infra', ...components.flatMap((component) => ['--set', `${component}.enabled=false`]))).toEqual([]);
  });

  it.each([
    ['a ServiceAccount name that is not a string', 'dra-driver.serviceAccount.name=5', "at '/serviceAccount/name': got number, want string"],
    ['a ServiceAccount name Kubernetes would refuse', 'dra-driver.serviceAccount.name=Node_Driver', "at '/serviceAccount/name'"],
    ['a misspelt key', 'dra-driver.serviceAccount.nmae=x', "additional properties 'nmae' not allowed"],
    ['a misspelt component', 'dra-drivr.enabled=false', "additional properties 'dra-drivr' not allowed"],
    ['a configuration mode the driver does not know', 'dra-driver.configurationMode=multus', "at '/configurationMode'"],
    ['a relative host path', 'dra-driver.host.kubeletDir=var/lib/kubelet', "at '/host/kubeletDir'"],
    ['a delegate cache on a relative path', 'multus-live-read-proxy.host.cacheDir=cache', "at '/host/cacheDir'"],
    ['a relative chroot directory', 'multus-live-read-proxy.chrootDir=hostroot', "at '/chrootDir'"],
    ['a relative pod-resources directory', 'multus-live-read-proxy.host.podResourcesDir=pod-resources', "at '/host/podResourcesDir'"],
    ['an operator namespace Kubernetes would refuse', 'global.operatorNamespace=SRIOV', "at '/global/operatorNamespace'"],
  ])('refuses %s through the values schema, naming the field', (_case, value, message) => {
    const run = helm('template', 'sriov-dra', CHART, '--set', value);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(message);
  });
});
