// ADD and DEL through the daemon's request handler on a real API server, with real CNI plugins in real
// network namespaces and a recording stand-in for sriov-cni (§10, §11, §17.3). The decisive case: a Pod
// annotation and a shadow written after the informers last saw them — the informer mode shows upstream's
// stale outcome, the live mode hands the sriov delegate the allocated PCI and the rail IPAM.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { annotations, isSriovDraError } from '@sriov-dra/contract';
import { type ApiRequest, KubeClient, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import { DaemonMetrics } from '../../src/metrics.ts';
import { type RequestSettings, createCniHandler } from '../../src/pipeline/cni-handler.ts';
import { type SharedPodNetworkInformers, createSharedPodNetworkInformers, runSharedPodNetworkInformers } from '../../src/reads/shared-informers.ts';
import type { CniRequestHandler } from '../../src/server/cni-request.ts';
import { NODE, type NodeFixture, bindShadow, cniRequest, createNodeFixture, createPod, createSandbox, removeNodeFixture } from './node-fixture.ts';

const NS = 'ai-workloads';

class RecordingClient extends KubeClient {
  readonly sent: string[] = [];
  override request(req: ApiRequest): Promise<unknown> {
    this.sent.push(`${req.method} ${req.path}`);
    return super.request(req);
  }
}

let cp: ControlPlane;
let node: NodeFixture;
let client: RecordingClient;
let shared: SharedPodNetworkInformers;
let stopInformers: () => Promise<void>;
const metrics = new DaemonMetrics();

/** A counter's value, or a histogram's observation count, for one labelled series. */
async function observed(
  metric: { get(): Promise<{ values: { labels: Record<string, unknown>; value: number; metricName?: string }[] }> },
  labels: Record<string, string>,
): Promise<number> {
  const { values } = await metric.get();
  const series = values.filter((entry) => entry.metricName === undefined || entry.metricName.endsWith('_count'));
  return series.find((entry) => Object.entries(labels).every(([key, value]) => entry.labels[key] === value))?.value ?? 0;
}

function settings(liveNetworkConfigOnAdd: boolean): RequestSettings {
  return {
    plan: {
      clusterNetwork: 'primary',
      defaultNetworks: [],
      multusNamespace: 'kube-system',
      systemNamespaces: ['kube-system'],
      namespaceIsolation: false,
      nonIsolatedNamespaces: ['default'],
    },
    confDir: node.confDir,
    binDirs: node.binDirs,
    chrootDir: '',
    resultCacheDir: node.resultCacheDir,
    delegateTimeoutMs: 20_000,
    cniDir: node.cniDir,
    liveNetworkConfigOnAdd,
  };
}

function handler(live: boolean, extra: Partial<RequestSettings> = {}): CniRequestHandler {
  return createCniHandler({ settingsFor: () => ({ ...settings(live), ...extra }), shared, client, logger: pino({ level: 'silent' }), metrics });
}

/** A CNI result reduced to what lands in the sandbox: its interfaces there and its addresses. */
function sandboxed(result: unknown): { cniVersion: unknown; interfaces: string[]; ips: string[] } {
  const {
    cniVersion,
    interfaces = [],
    ips = [],
  } = result as { cniVersion: unknown; interfaces?: { name: string; sandbox?: string }[]; ips?: { address: string }[] };
  return {
    cniVersion,
    interfaces: interfaces.filter((entry) => entry.sandbox !== undefined).map((entry) => `${entry.name} ${entry.sandbox ?? ''}`),
    ips: ips.map((ip) => ip.address),
  };
}

function leases(): string[] {
  const dir = join(node.hostLocalDir);
  return existsSync(dir)
    ? readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .filter((entry) => /\d+\.\d+\.\d+\.\d+$/.test(entry))
        .sort()
    : [];
}

beforeAll(async () => {
  cp = await startControlPlane();
  await installCrds(cp.adminClient);
  await createNamespace(cp.adminClient, NS);
  node = await createNodeFixture();
  client = new RecordingClient(cp.adminClient.config);
  shared = createSharedPodNetworkInformers(client, NODE);
  const controller = new AbortController();
  const running = runSharedPodNetworkInformers(shared, controller.signal);
  await Promise.all([shared.pods.waitForSync(), shared.networkAttachmentDefinitions.waitForSync()]);
  stopInformers = async () => {
    controller.abort();
    await running;
  };
}, 120_000);

afterAll(async () => {
  await stopInformers();
  client.close();
  await cp.stop();
  await removeNodeFixture(node);
});

describe('ADD and DEL', () => {
  it('runs the primary network from confDir, reports network-status, and DEL replays the cache after every object is gone', async () => {
    const pod = await createPod(cp.adminClient, NS, 'plain');
    const sandbox = createSandbox();
    try {
      const response = await handler(true).handle(
        cniRequest('ADD', 'c-plain', sandbox.path, { namespace: NS, name: 'plain', uid: pod.metadata.uid }),
        AbortSignal.timeout(60_000),
      );
      expect(sandboxed(response.result)).toEqual({ cniVersion: '1.1.0', interfaces: [`eth0 ${sandbox.path}`], ips: ['10.244.7.2/24'] });
      expect(sandbox.links()).toEqual(['eth0 10.244.7.2']);
      expect(leases()).toEqual(['primary/10.244.7.2']);
      const live = await cp.adminClient.get(resourceTypes.pod, { namespace: NS, name: 'plain' });
      expect(JSON.parse(live.metadata.annotations?.[annotations.networkStatus] ?? '[]')).toMatchObject([
        { name: 'primary', interface: 'eth0', ips: ['10.244.7.2'], default: true },
      ]);

      await cp.adminClient.delete(resourceTypes.pod, { namespace: NS, name: 'plain' }, { gracePeriodSeconds: 0 });
      await handler(true).handle(cniRequest('DEL', 'c-plain', sandbox.path, { namespace: NS, name: 'plain' }), AbortSignal.timeout(60_000));
      expect(sandbox.links()).toEqual([]);
      expect(leases()).toEqual([]);
      expect(existsSync(join(node.cniDir, 'c-plain'))).toBe(false);
    } finally {
      sandbox.remove();
    }
  });

  it('shows the stale read in informer mode and the allocated VF with its rail IPAM in live mode, with no claim or slice read', async () => {
    const pod = await createPod(cp.adminClient, NS, 'trainer');
    // The informers have seen the Pod without networks; then they stop, so everything after is news to them.
    await waitFor('the informer sees the Pod', () => Promise.resolve(shared.pods.get(`${NS}/trainer`) !== undefined), { timeoutMs: 30_000 });
    const podInformer = shared.pods;
    await stopInformers();
    const shadow = await bindShadow(cp.adminClient, pod, node.hostLocalDir, '0000:03:00.1');
    const stale = createSandbox();
    const fresh = createSandbox();
    try {
      const informerAdd = await handler(false).handle(
        cniRequest('ADD', 'c-stale', stale.path, { namespace: NS, name: 'trainer', uid: pod.metadata.uid }),
        AbortSignal.timeout(60_000),
      );
      // Upstream's outcome: success with the primary network only.
      expect(sandboxed(informerAdd.result)).toEqual({ cniVersion: '1.1.0', interfaces: [`eth0 ${stale.path}`], ips: ['10.244.7.3/24'] });
      expect(stale.links()).toEqual(['eth0 10.244.7.3']);
      expect(await node.sriovCalls()).toEqual([]);

      client.sent.length = 0;
      await handler(true).handle(
        cniRequest('ADD', 'c-fresh', fresh.path, { namespace: NS, name: 'trainer', uid: pod.metadata.uid }),
        AbortSignal.timeout(60_000),
      );
      const calls = await node.sriovCalls();
      expect(calls.map(({ command, ifName, stdin }) => ({ command, ifName, deviceID: stdin['deviceID'], ipam: stdin['ipam'] }))).toEqual([
        {
          command: 'ADD',
          ifName: 'dra0',
          deviceID: '0000:03:00.1',
          ipam: { type: 'host-local', dataDir: node.hostLocalDir, ranges: [[{ subnet: '192.0.2.0/24' }]] },
        },
      ]);
      expect(fresh.links()).toEqual(['eth0 10.244.7.4']);
      const live = await cp.adminClient.get(resourceTypes.pod, { namespace: NS, name: 'trainer' });
      expect(JSON.parse(live.metadata.annotations?.[annotations.networkStatus] ?? '[]')).toMatchObject([
        { name: 'primary', interface: 'eth0', default: true },
        { name: `${NS}/${shadow}`, interface: 'dra0', ips: ['192.0.2.10'] },
      ]);
      expect(client.sent.filter((line) => /resourceclaims|resourceslices/.test(line))).toEqual([]);
      // The shadow; the cluster network's NAD lookups (404, then confDir) of this ADD and the first one are errors.
      expect(await observed(metrics.liveReadDuration, { object: 'network-attachment-definition', result: 'ok' })).toBe(1);
      expect(await observed(metrics.liveReadDuration, { object: 'network-attachment-definition', result: 'error' })).toBe(2);
      expect(await observed(metrics.delegateDuration, { plugin_type: 'sriov', command: 'ADD', result: 'ok' })).toBe(1);
      // The cluster network is looked up as a NAD first (404 here) before confDir, as Multus does.
      expect(client.sent).toEqual([
        `GET /api/v1/namespaces/${NS}/pods/trainer`,
        'GET /apis/k8s.cni.cncf.io/v1/namespaces/kube-system/network-attachment-definitions/primary',
        `GET /apis/k8s.cni.cncf.io/v1/namespaces/${NS}/network-attachment-definitions/${shadow}`,
        `PATCH /api/v1/namespaces/${NS}/pods/trainer/status`,
      ]);
      // The request-local live view left the shared informers as they were.
      expect(shared.pods).toBe(podInformer);
      expect(shared.pods.get(`${NS}/trainer`)?.metadata.annotations?.[annotations.networks]).toBeUndefined();
    } finally {
      stale.remove();
      fresh.remove();
    }
  });
});

describe('the readiness indicator file', () => {
  it('holds ADD back until the cluster network writes it, and fails the ADD when it never does', async () => {
    const pod = await createPod(cp.adminClient, NS, 'early');
    const indicator = join(node.root, 'primary-ready');
    const wait = { readinessIndicatorFile: indicator, readinessWait: { pollMs: 50, timeoutMs: 400 } };
    const sandbox = createSandbox();
    try {
      const refused = await handler(true, wait)
        .handle(cniRequest('ADD', 'c-early', sandbox.path, { namespace: NS, name: 'early', uid: pod.metadata.uid }), AbortSignal.timeout(60_000))
        .catch((error: unknown) => error);
      expect((refused as { code?: string }).code).toBe('ReadinessIndicatorMissing');
      expect(sandbox.links()).toEqual([]);

      // Written while the ADD waits (after its first look): the ADD then proceeds.
      const adding = handler(true, { ...wait, readinessWait: { pollMs: 50, timeoutMs: 30_000 } }).handle(
        cniRequest('ADD', 'c-early', sandbox.path, { namespace: NS, name: 'early', uid: pod.metadata.uid }),
        AbortSignal.timeout(60_000),
      );
      await new Promise((resolve) => setTimeout(resolve, 120));
      await writeFile(indicator, '');
      await adding;
      expect(sandbox.links()).toHaveLength(1);
      await handler(true).handle(cniRequest('DEL', 'c-early', sandbox.path, { namespace: NS, name: 'early' }), AbortSignal.timeout(60_000));
    } finally {
      sandbox.remove();
    }
  });
});

describe('the guard runs before any delegate', () => {
  it('refuses a deleting shadow and runs nothing, not even the primary network', async () => {
    const pod = await createPod(cp.adminClient, NS, 'deleting');
    const shadow = await bindShadow(cp.adminClient, pod, node.hostLocalDir, '0000:03:00.2');
    // The protection finalizer holds the object: deleting it only sets deletionTimestamp.
    await cp.adminClient.delete(resourceTypes.networkAttachmentDefinition, { namespace: NS, name: shadow });
    const before = (await node.sriovCalls()).length;
    const failedAddsBefore = await observed(metrics.requestDuration, { command: 'ADD', result: 'error' });
    const sandbox = createSandbox();
    try {
      const outcome = await handler(true)
        .handle(cniRequest('ADD', 'c-deleting', sandbox.path, { namespace: NS, name: 'deleting', uid: pod.metadata.uid }), AbortSignal.timeout(60_000))
        .catch((error: unknown) => error);
      expect(isSriovDraError(outcome, 'ManagedShadowNotReady')).toBe(true);
      expect(await observed(metrics.guardRejections, { reason: 'ManagedShadowNotReady' })).toBe(1);
      expect(await observed(metrics.requestDuration, { command: 'ADD', result: 'error' })).toBe(failedAddsBefore + 1);
      expect(sandbox.links()).toEqual([]);
      expect((await node.sriovCalls()).length).toBe(before);
      expect(existsSync(join(node.cniDir, 'c-deleting'))).toBe(false);
    } finally {
      sandbox.remove();
    }
  });
});
