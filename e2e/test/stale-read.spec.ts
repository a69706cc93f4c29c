// Scenario (f): the stale-read race on the whole stack, the same Pod run through three Multus daemons on
// the node side by side — upstream multus-daemon v4.2.3, this daemon reading its informers, and the
// chart's daemon reading live — each behind the same upstream multus-shim. The real driver writes the
// Pod's networks annotation inside NodePrepareResources, and the kubelet's CNI ADD follows at once.
//
// How an informer is kept stale, by causality rather than by a delay: once the Pod is bound and its
// informers have had a second to cache it, the daemon's API traffic is held at its own TcpProxy from just
// before the prepare; the hold ends when the audit log shows the daemon's first request about the Pod. A
// daemon reading its informers makes that request only for network-status, after it chose the networks
// from its cache; a live-reading daemon makes it first. All three daemons are held alike. The audit log
// is the local control plane's: against a target cluster this scenario does not run.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { annotations } from '@sriov-dra/contract';
import { type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { type AuditEvent, type TcpProxy, freePort, startTcpProxy, terminateChild, waitFor } from '@sriov-dra/k8s/testing';
import type { NodeFixture } from '../../apps/multus-live-read-proxy/test/pipeline/node-fixture.ts';
import {
  UPSTREAM_USER,
  type UpstreamDaemon,
  grantUpstreamMultus,
  startUpstreamDaemon,
  upstreamNetnsPath,
} from '../../apps/multus-live-read-proxy/test/upstream/upstream-daemon.ts';
import { ONE_VF_TEMPLATE, createOneVfTemplate } from '../src/scenarios/churn.ts';
import { createDirectRailMapping, createPcieDeviceClasses, waitForPublishedRails } from '../src/scenarios/gpu-nic-pairs.ts';
import type { SimulatedPod } from '../src/stack/kubelet-simulator.ts';
import { targetsLocalControlPlane } from '../src/stack/cluster.ts';
import { type Stack, WORKLOADS, startStack } from '../src/stack/stack.ts';
import { deletePod, expectNothingLeft } from './pod-lifecycle.ts';

const DAEMON_MAIN = fileURLToPath(new URL('../../apps/multus-live-read-proxy/src/main.ts', import.meta.url));
const SIDE_LABEL = 'e2e.sriov-dra.io/multus';
const INFORMER_AGENT = 'multus-informer';

type SideName = 'upstream' | 'informer' | 'live';

interface Side {
  readonly user: string;
  /** The daemon's entry configuration (its daemonSocketDir), for the kubelet's CNI calls. */
  readonly config: Buffer;
  readonly proxy: TcpProxy;
  readonly netnsPath: (netns: string) => string;
}

(targetsLocalControlPlane() ? describe : describe.skip)('the stale-read race with the real driver, three daemons side by side (§17.3)', () => {
  let stack: Stack;
  let upstream: UpstreamDaemon | undefined;
  let informer: ChildProcess | undefined;
  const sides = new Map<SideName, Side>();
  const holds: (() => void)[] = [];
  let passed = true;

  /** A directory holding only the node's primary network, for a daemon whose entry configuration must not land in the node's. */
  const confDirOf = (dir: string): string => {
    const confDir = path.join(dir, 'net.d');
    fs.mkdirSync(confDir, { recursive: true });
    fs.copyFileSync(path.join(stack.node.cni.cniConfDir, '10-primary.conflist'), path.join(confDir, '10-primary.conflist'));
    return confDir;
  };

  beforeAll(async () => {
    stack = await startStack({ target: { kind: 'local', audit: true } });
    await createPcieDeviceClasses(stack.admin);
    await createOneVfTemplate(stack.admin);
    await createDirectRailMapping(stack.admin, { whereaboutsConfig: stack.node.whereaboutsConfig });
    await waitForPublishedRails(stack.admin);
    const apiPort = Number(new URL(stack.cluster.server).port);
    const { cni } = stack.node;

    // Upstream multus-daemon v4.2.3 with upstream's own RBAC, the node's plugins, its API traffic through its proxy.
    const upstreamProxy = await startTcpProxy({ host: '127.0.0.1', port: apiPort });
    const upstreamDir = path.join(stack.logDir, 'upstream-multus');
    const fixture: NodeFixture = {
      root: upstreamDir,
      binDirs: [cni.cniBinDir, cni.cniBinDir],
      confDir: confDirOf(upstreamDir),
      cniDir: path.join(upstreamDir, 'cache'),
      resultCacheDir: path.join(upstreamDir, 'results'),
      hostLocalDir: stack.node.hostLocalDir,
      sriovCalls: () => Promise.resolve([]),
    };
    upstream = await startUpstreamDaemon({
      dir: upstreamDir,
      node: fixture,
      nodeName: stack.node.name,
      apiServer: upstreamProxy.via(stack.cluster.server),
      caCert: stack.cluster.caFile ?? '',
      token: await grantUpstreamMultus(stack.admin),
    });
    sides.set('upstream', {
      user: UPSTREAM_USER,
      config: Buffer.from(JSON.stringify({ cniVersion: '1.0.0', name: 'multus-cni-network', type: 'multus-shim', daemonSocketDir: upstream.socketDir })),
      proxy: upstreamProxy,
      netnsPath: upstreamNetnsPath,
    });

    // This daemon with liveNetworkConfigOnAdd false: the chart's configuration and environment, its own directories and port.
    const informerProxy = await startTcpProxy({ host: '127.0.0.1', port: apiPort });
    const informerDir = path.join(stack.logDir, 'informer-multus');
    const confDir = confDirOf(informerDir);
    const chartConfig = JSON.parse(fs.readFileSync(path.join(stack.logDir, 'multus-config', 'daemon-config.json'), 'utf8')) as Record<string, unknown>;
    const socketDir = path.join(informerDir, 'run');
    const configFile = path.join(informerDir, 'daemon-config.json');
    fs.writeFileSync(
      configFile,
      JSON.stringify({
        ...chartConfig,
        cniConfigDir: confDir,
        multusAutoconfigDir: confDir,
        cniDir: path.join(informerDir, 'cache'),
        socketDir,
        daemonSocketDir: socketDir,
        liveNetworkConfigOnAdd: false,
      }),
    );
    const metricsPort = await freePort();
    const informerAgent = await stack.agent(INFORMER_AGENT);
    const log = fs.openSync(path.join(informerDir, 'daemon.log'), 'a');
    informer = spawn(process.execPath, ['--conditions=@sriov-dra/source', DAEMON_MAIN], {
      env: {
        ...stack.daemon.environment,
        MULTUS_DAEMON_CONFIG: configFile,
        METRICS_PORT: String(metricsPort),
        KUBECONFIG: stack.cluster.tokenKubeconfig(path.join(informerDir, 'kubeconfig'), informerAgent.user, informerAgent.token, {
          server: informerProxy.via(stack.cluster.server),
        }),
      },
      stdio: ['ignore', log, log],
    });
    fs.closeSync(log);
    const entry = path.join(confDir, '00-multus.conf');
    await waitFor(
      'the informer-mode daemon ready',
      async () => (await fetch(`http://127.0.0.1:${String(metricsPort)}/readyz`).catch(() => undefined))?.status === 200 && fs.existsSync(entry),
      { timeoutMs: 60_000, describe: () => fs.readFileSync(path.join(informerDir, 'daemon.log'), 'utf8') },
    );
    sides.set('informer', { user: informerAgent.user, config: fs.readFileSync(entry), proxy: informerProxy, netnsPath: (netns) => `/var/run/netns/${netns}` });
    sides.set('live', {
      user: `system:serviceaccount:${stack.release.namespace}:${stack.daemon.podSpec.serviceAccountName}`,
      config: fs.readFileSync(path.join(cni.cniConfDir, '00-multus.conf')),
      proxy: stack.daemonApi,
      netnsPath: (netns) => `/var/run/netns/${netns}`,
    });

    const sideOf = (pod: SimulatedPod): Side | undefined => sides.get(pod.metadata.labels?.[SIDE_LABEL] as SideName);
    stack.kubelet.setPodHooks({
      beforePrepare: async (pod) => {
        const side = sideOf(pod);
        const audit = stack.cluster.auditLog;
        if (side === undefined || audit === undefined) return;
        // The daemon's Pod informer (spec.nodeName) got the Pod when it was bound: let it cache it, then hold.
        await sleep(1_000);
        const seen = new Set((await audit.events()).map((event) => event.auditID));
        const release = side.proxy.hold();
        holds.push(release);
        const asksForItsPod = (event: AuditEvent) =>
          !seen.has(event.auditID) && event.user.username === side.user && event.objectRef?.resource === 'pods' && event.objectRef.name === pod.metadata.name;
        void (async () => {
          while (!(await audit.events()).some(asksForItsPod)) await sleep(50);
          release();
        })();
      },
      cniFor: (pod) => {
        const side = sideOf(pod);
        return side === undefined ? undefined : { config: side.config, netnsPath: side.netnsPath };
      },
    });
  }, 300_000);

  afterAll(async () => {
    for (const release of holds) release();
    if (informer !== undefined) await terminateChild(informer);
    await upstream?.stop();
    // The live side's proxy is the stack's own, closed with it.
    for (const [name, side] of sides) if (name !== 'live') await side.proxy.close();
    await stack.stop(!passed);
  }, 120_000);

  /** Runs one Pod asking for one VF through `side`; what Multus reported, what the sandbox holds, and how many VFs left the host. */
  async function runThrough(side: SideName): Promise<{ statuses: string[]; sandbox: string[]; vfsInSandboxes: number; shadows: number }> {
    const name = `stale-read-${side}`;
    const pod = await stack.admin.create(
      resourceTypes.pod,
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, labels: { [SIDE_LABEL]: side } },
        spec: {
          containers: [{ name: 'workload', image: 'registry.example.com/app:1', resources: { claims: [{ name: 'nic' }] } }],
          resourceClaims: [{ name: 'nic', resourceClaimTemplateName: ONE_VF_TEMPLATE }],
        },
      },
      { namespace: WORKLOADS },
    );
    await waitFor(
      `${name} to run`,
      async () =>
        (await stack.admin.get<KubeObject & { status?: { phase?: string } }>(resourceTypes.pod, { namespace: WORKLOADS, name })).status?.phase === 'Running',
      { timeoutMs: 90_000, describe: () => stack.logTail() },
    );
    const live = await stack.admin.get(resourceTypes.pod, { namespace: WORKLOADS, name });
    const statuses = (JSON.parse(live.metadata.annotations?.[annotations.networkStatus] ?? '[]') as { interface?: string }[]).map(
      (status) => status.interface ?? '',
    );
    const netns = stack.kubelet.sandbox(pod.metadata.uid)?.netns ?? '';
    const sandbox = (JSON.parse(execFileSync('ip', ['-n', netns, '-j', 'link', 'show'], { encoding: 'utf8' })) as { ifname: string }[])
      .map((link) => link.ifname)
      .filter((ifname) => ifname !== 'lo')
      .sort();
    const vfs = stack.node.pfs.flatMap((pf) => pf.vfs).length;
    const shadows = (await stack.admin.list(resourceTypes.networkAttachmentDefinition, { namespace: WORKLOADS })).items.filter((nad) =>
      nad.metadata.name.startsWith('dra-sriov-'),
    ).length;
    const result = { statuses, sandbox, vfsInSandboxes: vfs - stack.node.vfLinksOnHost().length, shadows };
    await deletePod(stack, name);
    return result;
  }

  it('upstream multus-daemon v4.2.3: the Pod runs with the primary network only; its VF never leaves the host', async () => {
    passed = false;
    // The driver bound the VF to a shadow and named it on the Pod; the daemon chose from its stale cache.
    expect(await runThrough('upstream')).toEqual({ statuses: ['eth0'], sandbox: ['eth0'], vfsInSandboxes: 0, shadows: 1 });
    passed = true;
  }, 180_000);

  it('this daemon reading its informers: the same stale outcome', async () => {
    passed = false;
    expect(await runThrough('informer')).toEqual({ statuses: ['eth0'], sandbox: ['eth0'], vfsInSandboxes: 0, shadows: 1 });
    passed = true;
  }, 180_000);

  it('this daemon reading live (the chart’s): the VF is in the sandbox as dra0', async () => {
    passed = false;
    expect(await runThrough('live')).toEqual({ statuses: ['eth0', 'dra0'], sandbox: ['dra0', 'eth0'], vfsInSandboxes: 1, shadows: 1 });
    passed = true;
  }, 180_000);

  it('leaves nothing behind after the three Pods', async () => {
    passed = false;
    await expectNothingLeft(stack);
    passed = true;
  }, 120_000);
});
