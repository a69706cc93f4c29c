// Preflight for managed shadows against a real API server, real files and mounts, and the real daemon:
// the node's source templates found through its SriovResourcePolicy, DeviceAttributes and a DeviceClass
// (a policy for other nodes ignored), their plugins looked for where the daemon finds and runs them
// (binDir, and the same path inside chrootDir), a restricted ServiceAccount refused the template reads,
// an upstream Multus DaemonSet and a foreign 00-multus.conf, delegate state on an overlay and on tmpfs,
// and the build and settings the running daemon reports against the preflight's own.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DRIVER_API_VERSION, DRIVER_NAME, attributeKeys } from '@sriov-dra/contract';
import { type KubeClient, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, createRoleBinding, installCrds, serviceAccountToken, startControlPlane } from '@sriov-dra/k8s/testing';
import type { Daemon } from '../../src/daemon.ts';
import type { PreflightCheck } from '../../src/preflight/checks.ts';
import { DAEMON_SET } from '../../src/preflight/dynamic-networks-controller.ts';
import { runPreflight } from '../../src/preflight/preflight.ts';
import { TEST_COMMIT, TEST_ENV, check, installPlugins, startNodeDaemon, testIdentity, writeNodeConfig } from './preflight-node.ts';

const DRIVER_NAMESPACE = 'sriov-dra';
/** A path no machine running this test has outside the test's own root. */
const WHEREABOUTS_KUBECONFIG = '/etc/cni/net.d/whereabouts.d/preflight-test.kubeconfig';
/** Whereabouts' own flat file, and the kubeconfig it names for templates that name none. */
const WHEREABOUTS_FLAT_FILE = '/etc/cni/net.d/whereabouts.d/whereabouts.conf';
const FLAT_KUBECONFIG = '/etc/cni/net.d/whereabouts.d/preflight-test-flat.kubeconfig';
const OTHER_COMMIT = 'fedcba9876543210fedcba9876543210fedcba98';

let cp: ControlPlane;
let root: string;
/** The daemon's view of its bin directory. */
let binDir: string;
/** Where the host's root is mounted for the daemon: its chrootDir. */
let hostRoot: string;
let cniDir: string;
let reader: KubeClient;

const NEEDED = ['multus-shim', 'bridge', 'host-local', 'sriov', 'tuning', 'whereabouts'];

/** A node in auto mode whose delegates run chrooted into `chrootDir` (hostRoot unless told). */
const node = (name: string, chrootDir = hostRoot) => writeNodeConfig(root, name, { binDir, cniDir, chrootDir });

function preflight(config: string, client: KubeClient = reader): Promise<PreflightCheck[]> {
  return runPreflight({ configPath: config, client, env: TEST_ENV, nodeName: 'worker-a', driverNamespace: DRIVER_NAMESPACE });
}

async function withDaemon<T>(daemon: Daemon, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } finally {
    await daemon.stop();
  }
}

function nad(namespace: string, name: string, config: Record<string, unknown>): Promise<unknown> {
  return cp.adminClient.create(
    resourceTypes.networkAttachmentDefinition,
    { apiVersion: 'k8s.cni.cncf.io/v1', kind: 'NetworkAttachmentDefinition', metadata: { name, namespace }, spec: { config: JSON.stringify(config) } },
    { namespace },
  );
}

function policy(name: string, hostname: string, rail: string): Promise<unknown> {
  return cp.adminClient.create(
    resourceTypes.sriovResourcePolicy,
    {
      apiVersion: DRIVER_API_VERSION,
      kind: 'SriovResourcePolicy',
      metadata: { name, namespace: DRIVER_NAMESPACE },
      spec: {
        nodeSelector: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [hostname] }] }] },
        configs: [{ deviceAttributesSelector: { matchLabels: { rail } }, resourceFilters: [{ vendors: ['15b3'] }] }],
      },
    },
    { namespace: DRIVER_NAMESPACE },
  );
}

function deviceAttributes(name: string, rail: string, netAttachDefName: string): Promise<unknown> {
  return cp.adminClient.create(
    resourceTypes.deviceAttributes,
    {
      apiVersion: DRIVER_API_VERSION,
      kind: 'DeviceAttributes',
      metadata: { name, namespace: DRIVER_NAMESPACE, labels: { rail } },
      spec: { attributes: { [attributeKeys.netAttachDefName]: { string: netAttachDefName } } },
    },
    { namespace: DRIVER_NAMESPACE },
  );
}

/** What the chart grants the daemon, plus the reads preflight makes. */
const DAEMON_RULES = [
  { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: [''], resources: ['pods/status'], verbs: ['patch'] },
  { apiGroups: ['k8s.cni.cncf.io'], resources: ['network-attachment-definitions'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['apps'], resources: ['daemonsets'], verbs: ['list'] },
];
const TEMPLATE_READ_RULES = [
  { apiGroups: ['sriovnetwork.k8snetworkplumbingwg.io'], resources: ['sriovresourcepolicies', 'deviceattributes'], verbs: ['list'] },
  { apiGroups: ['resource.k8s.io'], resources: ['deviceclasses'], verbs: ['list'] },
  { apiGroups: [''], resources: ['nodes'], verbs: ['get'] },
];

/** A ServiceAccount bound to `rules`, and a client presenting its token. */
async function serviceAccountClient(name: string, rules: readonly Record<string, unknown>[]): Promise<KubeClient> {
  await cp.adminClient.create(resourceTypes.serviceAccount, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } }, { namespace: DRIVER_NAMESPACE });
  await cp.adminClient.create(resourceTypes.clusterRole, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules });
  await createRoleBinding(cp.adminClient, {
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    subjects: [{ kind: 'ServiceAccount', name, namespace: DRIVER_NAMESPACE }],
  });
  return cp.clientWithToken(await serviceAccountToken(cp.adminClient, { namespace: DRIVER_NAMESPACE, name }));
}

beforeAll(async () => {
  cp = await startControlPlane();
  await installCrds(cp.adminClient);
  root = await mkdtemp(join(tmpdir(), 'mlrp-managed-preflight-'));
  binDir = join(root, 'bin');
  hostRoot = join(root, 'hostroot');
  cniDir = join(root, 'multus-cache');
  await installPlugins(binDir, NEEDED);
  // The host's root as the daemon sees it: the same bin directory, the delegates' state and Whereabouts' files.
  await installPlugins(join(hostRoot, binDir), NEEDED);
  await mkdir(join(hostRoot, 'var/lib/cni'), { recursive: true });
  await mkdir(join(hostRoot, '/etc/cni/net.d/whereabouts.d'), { recursive: true });
  await writeFile(join(hostRoot, WHEREABOUTS_KUBECONFIG), 'apiVersion: v1\nkind: Config\n');
  await writeFile(join(hostRoot, WHEREABOUTS_FLAT_FILE), JSON.stringify({ datastore: 'kubernetes', kubernetes: { kubeconfig: FLAT_KUBECONFIG } }));
  await writeFile(join(hostRoot, FLAT_KUBECONFIG), 'apiVersion: v1\nkind: Config\n');
  // The host's nsenter, and its ip as a link whose absolute target exists only inside the host's root.
  await installPlugins(join(hostRoot, 'usr/bin'), ['nsenter']);
  await installPlugins(join(hostRoot, 'opt/iproute2'), ['ip']);
  await mkdir(join(hostRoot, 'usr/sbin'), { recursive: true });
  await symlink('/opt/iproute2/ip', join(hostRoot, 'usr/sbin/ip'));

  for (const namespace of [DRIVER_NAMESPACE, 'ai-workloads', 'infra']) await createNamespace(cp.adminClient, namespace);
  await cp.adminClient.create(resourceTypes.node, {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'worker-a', labels: { 'kubernetes.io/hostname': 'worker-a' } },
  });
  // This node's rail: a name-only reference, resolved in the consuming Pod's namespace, with host-local.
  await policy('worker-a', 'worker-a', 'a');
  await deviceAttributes('rail-a', 'a', 'rail-a-net');
  await nad('ai-workloads', 'rail-a-net', {
    cniVersion: '1.0.0',
    name: 'rail-a-net',
    type: 'sriov',
    ipam: { type: 'host-local', subnet: '192.0.2.0/24', dataDir: '/var/lib/cni/rail-a' },
  });
  // Another node's rail: its IPAM (static) is not needed here.
  await policy('worker-b', 'worker-b', 'x');
  await deviceAttributes('rail-x', 'x', 'rail-x-net');
  await nad('ai-workloads', 'rail-x-net', { cniVersion: '1.0.0', name: 'rail-x-net', type: 'sriov', ipam: { type: 'static' } });
  // A DeviceClass's VfConfig: an explicit namespace, sriov then tuning, Whereabouts.
  await cp.adminClient.create(resourceTypes.deviceClass, {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'DeviceClass',
    metadata: { name: 'sriov-rail-b' },
    spec: {
      selectors: [{ cel: { expression: `device.driver == "${DRIVER_NAME}"` } }],
      config: [
        {
          opaque: {
            driver: DRIVER_NAME,
            parameters: { apiVersion: DRIVER_API_VERSION, kind: 'VfConfig', netAttachDefName: 'rail-b-net', netAttachDefNamespace: 'infra' },
          },
        },
      ],
    },
  });
  await nad('infra', 'rail-b-net', {
    cniVersion: '1.0.0',
    name: 'rail-b-net',
    plugins: [
      { type: 'sriov', ipam: { type: 'whereabouts', range: '198.51.100.0/24', kubernetes: { kubeconfig: WHEREABOUTS_KUBECONFIG } } },
      { type: 'tuning', sysctl: {} },
    ],
  });
  // Another DeviceClass's template leaves Whereabouts' kubeconfig to its flat file.
  await cp.adminClient.create(resourceTypes.deviceClass, {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'DeviceClass',
    metadata: { name: 'sriov-rail-c' },
    spec: {
      selectors: [{ cel: { expression: `device.driver == "${DRIVER_NAME}"` } }],
      config: [
        {
          opaque: {
            driver: DRIVER_NAME,
            parameters: { apiVersion: DRIVER_API_VERSION, kind: 'VfConfig', netAttachDefName: 'rail-c-net', netAttachDefNamespace: 'infra' },
          },
        },
      ],
    },
  });
  await nad('infra', 'rail-c-net', { cniVersion: '1.0.0', name: 'rail-c-net', type: 'sriov', ipam: { type: 'whereabouts', range: '203.0.113.0/24' } });
  reader = await serviceAccountClient('multus-live-read-proxy', [...DAEMON_RULES, ...TEMPLATE_READ_RULES]);
}, 180_000);

afterAll(async () => {
  await cp.stop();
  await rm(root, { recursive: true, force: true });
});

describe('preflight for managed shadows', () => {
  it('finds the node’s templates and passes when their plugins, state and files are where the daemon runs them', async () => {
    const config = await node('healthy');
    const checks = await withDaemon(await startNodeDaemon(config, cp.kubeconfig), () => preflight(config.config));
    expect(checks.filter((entry) => entry.status !== 'pass')).toEqual([]);
    expect(check(checks, 'source-templates').message).toContain('ai-workloads/rail-a-net (IPAM host-local), infra/rail-b-net (IPAM whereabouts)');
    expect(check(checks, 'source-templates').message).not.toContain('rail-x-net');
    expect(check(checks, 'managed-plugins').message).toContain(`run chrooted into ${hostRoot}: sriov, tuning, host-local, whereabouts`);
    expect(check(checks, 'whereabouts-kubeconfig').message).toContain(`${WHEREABOUTS_KUBECONFIG}, ${FLAT_KUBECONFIG}`);
    const hostLocal = checks.filter((entry) => entry.id === 'host-local-state-storage').map((entry) => entry.message);
    expect(hostLocal).toEqual([
      expect.stringContaining(join(hostRoot, '/var/lib/cni/networks')),
      expect.stringContaining(join(hostRoot, '/var/lib/cni/rail-a')),
    ]);
    expect(check(checks, 'sriov-state-storage').message).toContain(join(hostRoot, '/var/lib/cni/sriov'));
    expect(check(checks, 'default-route-tools').message).toBe(`a default-route change runs /usr/bin/nsenter and /usr/sbin/ip inside ${hostRoot}`);
  });

  it('fails a template’s IPAM plugin missing from binDir, and one missing only inside chrootDir', async () => {
    const config = await node('no-whereabouts');
    await unlink(join(binDir, 'whereabouts'));
    try {
      const missing = check(await preflight(config.config), 'managed-plugins');
      expect(missing.status).toBe('fail');
      expect(missing.message).toContain(`${binDir}/whereabouts (IPAM of infra/rail-b-net, IPAM of infra/rail-c-net)`);
    } finally {
      await installPlugins(binDir, ['whereabouts']);
    }
    await unlink(join(hostRoot, binDir, 'host-local'));
    try {
      const notRunnable = check(await preflight(config.config), 'managed-plugins');
      expect(notRunnable.status).toBe('fail');
      expect(notRunnable.message).toContain(
        `${join(hostRoot, binDir, 'host-local')}, where the daemon runs it chrooted into ${hostRoot} (IPAM of ai-workloads/rail-a-net)`,
      );
    } finally {
      await installPlugins(join(hostRoot, binDir), ['host-local']);
    }
  });

  it('fails a cluster network plugin missing inside chrootDir, and warns when ip is missing there', async () => {
    const config = await node('no-bridge-in-root');
    await unlink(join(hostRoot, binDir, 'bridge'));
    await unlink(join(hostRoot, 'opt/iproute2/ip'));
    try {
      const checks = await preflight(config.config);
      expect(check(checks, 'delegate-plugins')).toEqual({
        id: 'delegate-plugins',
        status: 'fail',
        message: expect.stringContaining(`missing from ${binDir} or from that path inside ${hostRoot}, where delegates run: bridge`),
      });
      expect(check(checks, 'default-route-tools')).toEqual({
        id: 'default-route-tools',
        status: 'warn',
        message: expect.stringContaining(`ip not found in /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin inside ${hostRoot}`),
      });
    } finally {
      await installPlugins(join(hostRoot, binDir), ['bridge']);
      await installPlugins(join(hostRoot, 'opt/iproute2'), ['ip']);
    }
  });

  it('fails a Whereabouts kubeconfig delegates cannot read where they run', async () => {
    // Without chrootDir the delegates run in this root, which has no Whereabouts kubeconfig.
    const checks = await preflight((await node('own-root', '')).config);
    expect(check(checks, 'whereabouts-kubeconfig')).toEqual({
      id: 'whereabouts-kubeconfig',
      status: 'fail',
      message: expect.stringContaining(`${WHEREABOUTS_KUBECONFIG} (named by infra/rail-b-net) cannot be read by delegates running in /`),
    });
  });

  it('fails the kubeconfig Whereabouts’ flat file names when delegates cannot read it, and a template no file names one for', async () => {
    await unlink(join(hostRoot, FLAT_KUBECONFIG));
    try {
      const checks = await preflight((await node('no-flat-kubeconfig')).config);
      expect(check(checks, 'whereabouts-kubeconfig')).toEqual({
        id: 'whereabouts-kubeconfig',
        status: 'fail',
        message: expect.stringContaining(`${FLAT_KUBECONFIG} (${WHEREABOUTS_FLAT_FILE}) cannot be read by delegates running in ${hostRoot}`),
      });
    } finally {
      await writeFile(join(hostRoot, FLAT_KUBECONFIG), 'apiVersion: v1\nkind: Config\n');
    }
    await rm(join(hostRoot, WHEREABOUTS_FLAT_FILE));
    try {
      const checks = await preflight((await node('no-flat-file')).config);
      expect(check(checks, 'whereabouts-kubeconfig')).toEqual({
        id: 'whereabouts-kubeconfig',
        status: 'fail',
        message: expect.stringContaining(`infra/rail-c-net names no kubeconfig and no whereabouts.conf in ${hostRoot} does`),
      });
    } finally {
      await writeFile(join(hostRoot, WHEREABOUTS_FLAT_FILE), JSON.stringify({ datastore: 'kubernetes', kubernetes: { kubeconfig: FLAT_KUBECONFIG } }));
    }
  });

  it('reports the template reads a restricted ServiceAccount is refused as their own failure', async () => {
    const restricted = await serviceAccountClient('restricted', DAEMON_RULES);
    try {
      const checks = await preflight((await node('restricted')).config, restricted);
      const templates = check(checks, 'source-templates');
      expect(templates.status).toBe('fail');
      expect(templates.message).toContain('forbidden to preflight');
      expect(templates.message).toContain(`list sriovresourcepolicies.sriovnetwork.k8snetworkplumbingwg.io in ${DRIVER_NAMESPACE}`);
      expect(templates.message).toContain('list deviceclasses.resource.k8s.io');
      expect(templates.message).toContain('get nodes worker-a');
      // The plugins of templates it could not see are not required: only sriov and the metaplugins are checked.
      expect(check(checks, 'managed-plugins').message).toContain(': sriov, tuning');
      expect(check(checks, 'managed-plugins').message).not.toContain('whereabouts');
    } finally {
      restricted.close();
    }
  });

  it('fails while an upstream Multus DaemonSet runs, with the migration order', async () => {
    const labels = { tier: 'node', app: 'multus', name: 'multus' };
    await cp.adminClient.create(
      DAEMON_SET,
      {
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        metadata: { name: 'kube-multus-ds', namespace: 'kube-system', labels },
        spec: {
          selector: { matchLabels: { name: 'multus' } },
          template: { metadata: { labels }, spec: { containers: [{ name: 'kube-multus', image: 'registry.invalid/multus:thick' }] } },
        },
      },
      { namespace: 'kube-system' },
    );
    try {
      const found = check(await preflight((await node('upstream-ds')).config), 'existing-multus-daemonset');
      expect(found.status).toBe('fail');
      expect(found.message).toContain('an upstream Multus DaemonSet runs (kube-system/kube-multus-ds): two daemons would fight over 00-multus.conf');
      expect(found.message).toContain('migrate one node at a time');
    } finally {
      await cp.adminClient.delete(DAEMON_SET, { namespace: 'kube-system', name: 'kube-multus-ds' });
    }
    expect(check(await preflight((await node('upstream-ds-gone')).config), 'existing-multus-daemonset').status).toBe('pass');
  });

  it('fails a 00-multus.conf another Multus wrote, and passes the one the daemon writes', async () => {
    const config = await node('foreign-entry');
    // What upstream's thick daemon writes: the shim, without liveNetworkConfigOnAdd.
    await writeFile(
      join(config.cniConfigDir, '00-multus.conf'),
      JSON.stringify({
        cniVersion: '1.0.0',
        name: 'multus-cni-network',
        type: 'multus-shim',
        clusterNetwork: '/host/etc/cni/net.d/10-primary.conflist',
        daemonSocketDir: '/run/multus',
      }),
    );
    const foreign = check(await preflight(config.config), 'entry-config-owner');
    expect(foreign.status).toBe('fail');
    expect(foreign.message).toContain('was not written by this daemon (it lacks liveNetworkConfigOnAdd, which this daemon writes');
    expect(foreign.message).toContain('two daemons would fight over 00-multus.conf');
    // The daemon replaces it with its own at start.
    const ours = await withDaemon(await startNodeDaemon(config, cp.kubeconfig), () => preflight(config.config));
    expect(check(ours, 'entry-config-owner')).toEqual({
      id: 'entry-config-owner',
      status: 'pass',
      message: expect.stringContaining('is the file this daemon writes'),
    });
  });

  it('fails delegate state on an overlay or a tmpfs under chrootDir', async () => {
    const layers = join(root, 'layers');
    const merged = join(layers, 'merged');
    for (const dir of ['lower', 'upper', 'work', 'merged']) await mkdir(join(layers, dir), { recursive: true });
    execFileSync('mount', [
      '-t',
      'overlay',
      'overlay',
      '-o',
      `lowerdir=${join(layers, 'lower')},upperdir=${join(layers, 'upper')},workdir=${join(layers, 'work')}`,
      merged,
    ]);
    const shm = await mkdtemp('/dev/shm/mlrp-managed-preflight-');
    try {
      const onOverlay = check(await preflight((await node('overlay-root', merged)).config), 'sriov-state-storage');
      expect(onOverlay.status).toBe('fail');
      expect(onOverlay.message).toContain(`${merged}/var/lib/cni/sriov is on overlay`);
      expect(onOverlay.message).toContain(`mount the host's root filesystem at ${merged}`);
      const onTmpfs = check(await preflight((await node('tmpfs-root', shm)).config), 'sriov-state-storage');
      expect(onTmpfs.status).toBe('fail');
      expect(onTmpfs.message).toContain('tmpfs');
    } finally {
      execFileSync('umount', [merged]);
      await rm(shm, { recursive: true, force: true });
    }
  });

  describe('the running daemon', () => {
    it('fails when the daemon answering is another build than this preflight', async () => {
      const config = await node('other-build');
      const identity = await testIdentity();
      const checks = await withDaemon(await startNodeDaemon(config, cp.kubeconfig, { version: identity.version, commit: OTHER_COMMIT }), () =>
        preflight(config.config),
      );
      const running = check(checks, 'running-daemon');
      expect(running.status).toBe('fail');
      expect(running.message).toContain(`runs version ${identity.version}, commit ${OTHER_COMMIT}`);
      expect(running.message).toContain(`this preflight is version ${identity.version}, commit ${TEST_COMMIT}`);
    });

    it('fails when the daemon started with settings the file no longer has', async () => {
      const config = await node('edited');
      const checks = await withDaemon(await startNodeDaemon(config, cp.kubeconfig), async () => {
        const edited = JSON.parse(await readFile(config.config, 'utf8')) as Record<string, unknown>;
        await writeFile(config.config, JSON.stringify({ ...edited, liveNetworkConfigOnAdd: false }));
        return preflight(config.config);
      });
      expect(check(checks, 'running-daemon')).toEqual({
        id: 'running-daemon',
        status: 'fail',
        message: expect.stringContaining('started with liveNetworkConfigOnAdd true (the file now says false): restart the daemon'),
      });
    });

    it('fails when no daemon answers on the configured socket', async () => {
      const config = await node('stopped');
      // A daemon that ran there and stopped: its socket is gone.
      await (await startNodeDaemon(config, cp.kubeconfig)).stop();
      const running = check(await preflight(config.config), 'running-daemon');
      expect(running.status).toBe('fail');
      expect(running.message).toContain(`no daemon answers on ${join(config.socketDir, 'multus.sock')}`);
    });
  });
});
