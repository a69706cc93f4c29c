// Preflight against a real API server and real filesystems: identities with and without the daemon's
// RBAC (SelfSubjectAccessReview as each of them), a delegate cache on tmpfs (/dev/shm) and on disk, a
// plugin binary missing from binDir, a multus-dynamic-networks-controller DaemonSet in the cluster, and the
// real daemon answering on its socket.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type KubeClient, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createRoleBinding, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import type { PreflightCheck } from '../../src/preflight/checks.ts';
import { runPreflight } from '../../src/preflight/preflight.ts';
import { TEST_COMMIT, TEST_ENV, installPlugins, startNodeDaemon, writeNodeConfig } from './preflight-node.ts';

// Cases start the component from its TypeScript sources: seconds apiece on a loaded machine. The
// bound guards against a hang, it does not time the start.
jest.setTimeout(60_000);

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const DAEMON_SET = { group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet', namespaced: true };

let cp: ControlPlane;
let root: string;
let shm: string;
let binDir: string;
let diskCniDir: string;
let resultCacheDir: string;
let granted: KubeClient;
let stranger: KubeClient;

/** A daemon-config.json in its own node directory, with a primary network beside it. */
async function nodeConfig(name: string, cniDir: string, live = true): Promise<string> {
  return (await writeNodeConfig(root, name, { binDir, cniDir, live })).config;
}

const installPlugin = (type: string): Promise<void> => installPlugins(binDir, [type]);

const byId = (checks: readonly PreflightCheck[]): Record<string, string> => Object.fromEntries(checks.map((check) => [check.id, check.status]));
const message = (checks: readonly PreflightCheck[], id: string): string => checks.find((check) => check.id === id)?.message ?? '';

beforeAll(async () => {
  cp = await startControlPlane();
  await installCrds(cp.adminClient);
  root = await mkdtemp(join(tmpdir(), 'mlrp-preflight-'));
  shm = await mkdtemp('/dev/shm/mlrp-preflight-');
  binDir = join(root, 'bin');
  diskCniDir = join(root, 'var-lib-cni-multus');
  resultCacheDir = join(root, 'var-lib-cni');
  await mkdir(binDir, { recursive: true });
  await installPlugins(binDir, ['multus-shim', 'bridge', 'host-local', 'sriov', 'tuning']);
  await cp.adminClient.create(
    resourceTypes.networkAttachmentDefinition,
    {
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: { name: 'primary', namespace: 'kube-system' },
      spec: { config: JSON.stringify({ cniVersion: '1.0.0', name: 'primary', plugins: [{ type: 'bridge', ipam: { type: 'host-local' } }] }) },
    },
    { namespace: 'kube-system' },
  );
  // The daemon's role (what it does with the API) plus what preflight itself reads: DaemonSets, the
  // node's source templates and the Node whose labels select them.
  await cp.adminClient.create(resourceTypes.clusterRole, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'multus-live-read-proxy' },
    rules: [
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['pods/status'], verbs: ['patch'] },
      { apiGroups: ['k8s.cni.cncf.io'], resources: ['network-attachment-definitions'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['apps'], resources: ['daemonsets'], verbs: ['list'] },
      { apiGroups: ['sriovnetwork.k8snetworkplumbingwg.io'], resources: ['sriovresourcepolicies', 'deviceattributes'], verbs: ['list'] },
      { apiGroups: ['resource.k8s.io'], resources: ['deviceclasses'], verbs: ['list'] },
      { apiGroups: [''], resources: ['nodes'], verbs: ['get'] },
    ],
  });
  await createRoleBinding(cp.adminClient, {
    metadata: { name: 'multus-live-read-proxy' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'multus-live-read-proxy' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'multus-node' }],
  });
  await cp.adminClient.create(resourceTypes.node, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker-a' } });
  granted = cp.clientFor('multus-node');
  stranger = cp.clientFor('someone-else');
}, 120_000);

afterAll(async () => {
  await cp.stop();
  await rm(root, { recursive: true, force: true });
  await rm(shm, { recursive: true, force: true });
});

describe('preflight', () => {
  it('passes a node whose running daemon has its RBAC, live reads, its binaries and caches on disk', async () => {
    const node = await writeNodeConfig(root, 'healthy', { binDir, cniDir: diskCniDir });
    const daemon = await startNodeDaemon(node, cp.kubeconfig);
    let checks: PreflightCheck[];
    try {
      checks = await runPreflight({ configPath: node.config, client: granted, env: TEST_ENV, resultCacheDir, nodeName: 'worker-a' });
    } finally {
      await daemon.stop();
    }
    expect(byId(checks)).toEqual({
      'daemon-config': 'pass',
      'live-network-config-on-add': 'pass',
      'shim-binary': 'pass',
      'delegate-plugins': 'pass',
      'delegate-cache-storage': 'pass',
      'result-cache-storage': 'pass',
      'sriov-state-storage': 'pass',
      'host-local-state-storage': 'pass',
      rbac: 'pass',
      'dynamic-networks-controller': 'pass',
      'build-identity': 'pass',
      'source-templates': 'pass',
      'managed-plugins': 'pass',
      'default-route-tools': 'pass',
      'existing-multus-daemonset': 'pass',
      'entry-config-owner': 'pass',
      'migration-drained': 'pass',
      'running-daemon': 'pass',
    });
    expect(message(checks, 'entry-config-owner')).toContain('is the file this daemon writes');
    expect(message(checks, 'running-daemon')).toContain(`commit ${TEST_COMMIT}`);
    expect(message(checks, 'delegate-plugins')).toContain('bridge, host-local');
    expect(message(checks, 'rbac')).toContain('no resourceclaims or resourceslices access is needed');
  });

  it('fails an identity without the daemon’s RBAC, naming what is denied', async () => {
    const checks = await runPreflight({ configPath: await nodeConfig('stranger', diskCniDir), client: stranger, env: {}, resultCacheDir });
    expect(byId(checks)['rbac']).toBe('fail');
    expect(message(checks, 'rbac')).toContain('denied: get pods, list pods, watch pods, get network-attachment-definitions.k8s.cni.cncf.io');
    expect(message(checks, 'rbac')).toContain('patch pods/status');
  });

  it('fails a delegate cache on tmpfs and passes the same config on disk', async () => {
    const onShm = await runPreflight({ configPath: await nodeConfig('shm', join(shm, 'multus')), client: granted, env: {}, resultCacheDir });
    expect(byId(onShm)['delegate-cache-storage']).toBe('fail');
    expect(message(onShm, 'delegate-cache-storage')).toContain('tmpfs at /dev/shm');
    const onDisk = await runPreflight({ configPath: await nodeConfig('disk', diskCniDir), client: granted, env: {}, resultCacheDir });
    expect(byId(onDisk)['delegate-cache-storage']).toBe('pass');
    const resultsOnShm = await runPreflight({ configPath: await nodeConfig('disk', diskCniDir), client: granted, env: {}, resultCacheDir: shm });
    expect(byId(resultsOnShm)['result-cache-storage']).toBe('fail');
  });

  it('before the first start of a non-auto daemon, reads the configured multusConfigFile it will install, and fails when that is missing', async () => {
    const dir = join(root, 'user-provided');
    const cniConfigDir = join(dir, 'net.d');
    await mkdir(cniConfigDir, { recursive: true });
    const source = join(dir, 'source', '70-multus.conf');
    const config = join(dir, 'daemon-config.json');
    await writeFile(
      config,
      JSON.stringify({
        cniVersion: '1.0.0',
        cniConfigDir,
        multusConfigFile: source,
        socketDir: join(dir, 'run-multus'),
        binDir,
        cniDir: diskCniDir,
        multusNamespace: 'kube-system',
        liveNetworkConfigOnAdd: true,
      }),
    );
    const missing = await runPreflight({ configPath: config, client: granted, env: {}, resultCacheDir });
    expect(byId(missing)['daemon-config']).toBe('fail');
    expect(message(missing, 'daemon-config')).toContain(`multusConfigFile ${source} does not exist`);

    await mkdir(join(dir, 'source'), { recursive: true });
    await writeFile(source, JSON.stringify({ cniVersion: '1.0.0', name: 'multus-cni-network', type: 'multus-shim', clusterNetwork: 'primary' }));
    const present = await runPreflight({ configPath: config, client: granted, env: {}, resultCacheDir });
    expect(byId(present)['daemon-config']).toBe('pass');
    expect(message(present, 'daemon-config')).toContain(`installed as ${join(cniConfigDir, '70-multus.conf')} when the daemon starts`);
    expect(byId(present)['delegate-plugins']).toBe('pass');
  });

  it('fails live reads switched off in daemon-config', async () => {
    const checks = await runPreflight({ configPath: await nodeConfig('cached', diskCniDir, false), client: granted, env: {}, resultCacheDir });
    expect(byId(checks)['live-network-config-on-add']).toBe('fail');
  });

  it('fails a missing plugin binary of the cluster network', async () => {
    await rm(join(binDir, 'host-local'));
    try {
      const checks = await runPreflight({ configPath: await nodeConfig('no-ipam', diskCniDir), client: granted, env: {}, resultCacheDir });
      expect(byId(checks)['delegate-plugins']).toBe('fail');
      expect(message(checks, 'delegate-plugins')).toContain(`missing from ${binDir}: host-local`);
    } finally {
      await installPlugin('host-local');
    }
  });

  it('warns about a multus-dynamic-networks-controller DaemonSet without failing', async () => {
    const labels = { tier: 'node', app: 'dynamic-networks-controller', name: 'dynamic-networks-controller' };
    await cp.adminClient.create(
      DAEMON_SET,
      {
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        metadata: { name: 'dynamic-networks-controller-ds', namespace: 'kube-system', labels },
        spec: {
          selector: { matchLabels: { name: 'dynamic-networks-controller' } },
          template: { metadata: { labels }, spec: { containers: [{ name: 'dynamic-networks-controller', image: 'registry.invalid/dnc:1' }] } },
        },
      },
      { namespace: 'kube-system' },
    );
    try {
      const checks = await runPreflight({ configPath: await nodeConfig('hotplug', diskCniDir), client: granted, env: {}, resultCacheDir });
      expect(byId(checks)['dynamic-networks-controller']).toBe('warn');
      expect(message(checks, 'dynamic-networks-controller')).toContain('kube-system/dynamic-networks-controller-ds');
      // No daemon runs for this configuration; nothing else fails.
      expect(checks.filter((check) => check.status === 'fail').map((check) => check.id)).toEqual(['running-daemon']);
    } finally {
      await cp.adminClient.delete(DAEMON_SET, { namespace: 'kube-system', name: 'dynamic-networks-controller-ds' });
    }
  });

  it('runs as the daemon’s subcommand: JSON report, exit 0 when only warnings, 1 on a failure', async () => {
    const run = async (config: string): Promise<{ code: number | null; report: { ok: boolean; checks: PreflightCheck[] } }> => {
      const child = spawn(
        process.execPath,
        ['--conditions=@sriov-dra/source', MAIN, 'preflight', '--config', config, '--kubeconfig', cp.kubeconfig, '--output', 'json'],
        {
          env: { PATH: process.env['PATH'] ?? '', ...TEST_ENV },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      const chunks: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      return { code, report: JSON.parse(Buffer.concat(chunks).toString('utf8')) as { ok: boolean; checks: PreflightCheck[] } };
    };
    const goodNode = await writeNodeConfig(root, 'cli-good', { binDir, cniDir: diskCniDir });
    const daemon = await startNodeDaemon(goodNode, cp.kubeconfig);
    const good = await run(goodNode.config).finally(() => daemon.stop());
    expect({ code: good.code, ok: good.report.ok, failed: good.report.checks.filter((check) => check.status === 'fail') }).toEqual({
      code: 0,
      ok: true,
      failed: [],
    });
    // The daemon keeps libcni's results in cniDir too (as upstream), so a cniDir on tmpfs fails both checks;
    // and no daemon runs for this configuration.
    const bad = await run(await nodeConfig('cli-bad', join(shm, 'multus')));
    expect({ code: bad.code, ok: bad.report.ok, failed: bad.report.checks.filter((check) => check.status === 'fail').map((check) => check.id) }).toEqual({
      code: 1,
      ok: false,
      failed: ['delegate-cache-storage', 'result-cache-storage', 'running-daemon'],
    });
  });
});
