// §17.3's concurrent requests with live reads enabled and disabled: two daemons on one node, one with
// liveNetworkConfigOnAdd and one reading its informers, each driven by the unchanged upstream multus-shim
// (v4.2.3). One burst of ADDs mixes Pods with a managed shadow (the recording sriov stand-in must get
// each Pod's own bound VF) and Pods with an ordinary NAD (a second veth on its own bridge with a
// host-local address). Every Pod must get exactly its networks; the burst of DELs must leave no address
// lease, no delegate cache and no libcni result behind.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { annotations } from '@sriov-dra/contract';
import { type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import type { Daemon } from '../../src/daemon.ts';
import { type NodeFixture, bindShadow, createNodeFixture, createPod, createSandbox, removeNodeFixture } from '../pipeline/node-fixture.ts';
import { runShim } from '../server/multus-shim.ts';
import { shimConfig, shimEnv, startFixtureDaemon } from './daemon-fixture.ts';

const NS = 'mixed';
/** Per daemon: half the Pods with a managed shadow, half with the ordinary NAD. */
const PODS_PER_DAEMON = 8;
const ORDINARY_NAD = 'ordinary-net';
/** The ordinary network's own host bridge; afterAll deletes it. */
const ORDINARY_BRIDGE = `mlro${String(process.pid % 1_000_000)}`;

type Mode = 'live' | 'informer';

interface Subject {
  readonly mode: Mode;
  readonly pod: KubeObject;
  readonly containerID: string;
  readonly sandbox: ReturnType<typeof createSandbox>;
  /** The bound VF and its shadow, for a managed Pod. */
  readonly managed?: { readonly pci: string; readonly shadow: string };
}

let cp: ControlPlane;
let node: NodeFixture;
const daemons = new Map<Mode, Daemon>();
const socketDirs = new Map<Mode, string>();
const subjects: Subject[] = [];

function cniDir(mode: Mode): string {
  return join(node.root, mode, 'multus-cache');
}

function leases(network: string): string[] {
  const dir = join(node.hostLocalDir, network);
  return existsSync(dir) ? readdirSync(dir).filter((entry) => /^\d+\.\d+\.\d+\.\d+$/.test(entry)) : [];
}

/** Every file (not directory) under a daemon's cniDir: delegate caches, libcni's results and anything else kept per attachment. */
function cacheFiles(mode: Mode): string[] {
  const dir = cniDir(mode);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

function run(subject: Subject, command: 'ADD' | 'DEL'): ReturnType<typeof runShim> {
  const { pod } = subject;
  const env = shimEnv(node, command, subject.containerID, subject.sandbox.path, { namespace: NS, name: pod.metadata.name, uid: pod.metadata.uid });
  return runShim(env, shimConfig(socketDirs.get(subject.mode) ?? ''));
}

/** How many live Pod GETs a daemon's ADDs made (its liveNetworkConfigOnAdd reads). */
async function livePodReads(mode: Mode): Promise<number> {
  const metric = await daemons.get(mode)?.metrics.liveReadDuration.get();
  return (metric?.values ?? [])
    .filter((value) => value.metricName === 'sriov_dra_multus_live_read_duration_seconds_count' && value.labels['object'] === 'pod')
    .reduce((sum, value) => sum + value.value, 0);
}

/** What the Pod's network-status reports, one line a network. */
async function networkStatus(pod: KubeObject): Promise<string[]> {
  const live = await cp.adminClient.get(resourceTypes.pod, { namespace: NS, name: pod.metadata.name });
  return (JSON.parse(live.metadata.annotations?.[annotations.networkStatus] ?? '[]') as { name: string; interface: string; ips?: string[] }[]).map(
    (status) => `${status.name} ${status.interface} ${(status.ips ?? []).join(',')}`,
  );
}

/** The sriov stand-in's calls, as "<command> <Pod> <ifName> <deviceID>", in no particular order. */
async function sriovCalls(): Promise<string[]> {
  return (await node.sriovCalls())
    .map(({ command, ifName, args, stdin }) => {
      const podName = args.split(';').find((arg) => arg.startsWith('K8S_POD_NAME='));
      return `${command} ${podName?.slice('K8S_POD_NAME='.length) ?? '?'} ${ifName} ${String(stdin['deviceID'])}`;
    })
    .sort();
}

async function startDaemonFor(mode: Mode): Promise<void> {
  const { daemon, socketDir } = await startFixtureDaemon(node, {
    kubeconfig: cp.kubeconfig,
    dir: join(node.root, mode),
    liveNetworkConfigOnAdd: mode === 'live',
  });
  daemons.set(mode, daemon);
  socketDirs.set(mode, socketDir);
  await waitFor(`${mode} daemon ready`, async () => (await fetch(`http://127.0.0.1:${String(daemon.metricsPort)}/readyz`)).ok, { timeoutMs: 60_000 });
}

beforeAll(async () => {
  cp = await startControlPlane();
  await installCrds(cp.adminClient);
  await createNamespace(cp.adminClient, NS);
  node = await createNodeFixture();
  await cp.adminClient.create(
    resourceTypes.networkAttachmentDefinition,
    {
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: { name: ORDINARY_NAD, namespace: NS },
      spec: {
        config: JSON.stringify({
          cniVersion: '1.0.0',
          name: ORDINARY_NAD,
          type: 'bridge',
          bridge: ORDINARY_BRIDGE,
          ipam: { type: 'host-local', dataDir: node.hostLocalDir, ranges: [[{ subnet: '10.77.0.0/24' }]] },
        }),
      },
    },
    { namespace: NS },
  );
  // The live daemon runs while the driver writes; the informer daemon starts after every write, so its
  // informers' first LIST (readiness waits for it) already holds every Pod annotation and shadow.
  await startDaemonFor('live');
  for (const mode of ['live', 'informer'] as const) {
    for (let index = 0; index < PODS_PER_DAEMON; index += 1) {
      const number = subjects.length;
      const pod = await createPod(cp.adminClient, NS, `${mode}-${String(index)}`);
      const base = { mode, pod, containerID: `c-${mode}-${String(index)}`, sandbox: createSandbox() };
      if (index % 2 === 0) {
        // One VF a Pod, each on its own PCI device: 0000:03:00.1, 0000:03:01.1 …
        const pci = `0000:03:${number.toString(16).padStart(2, '0')}.1`;
        subjects.push({ ...base, managed: { pci, shadow: await bindShadow(cp.adminClient, pod, node.hostLocalDir, pci) } });
      } else {
        await cp.adminClient.patch(
          resourceTypes.pod,
          { namespace: NS, name: pod.metadata.name },
          { metadata: { annotations: { [annotations.networks]: JSON.stringify([{ name: ORDINARY_NAD }]) } } },
          'application/merge-patch+json',
        );
        subjects.push(base);
      }
    }
  }
  await startDaemonFor('informer');
}, 180_000);

afterAll(async () => {
  for (const subject of subjects) subject.sandbox.remove();
  for (const daemon of daemons.values()) await daemon.stop();
  await cp.stop();
  try {
    execFileSync('ip', ['link', 'del', ORDINARY_BRIDGE], { stdio: 'ignore' });
  } catch {
    // No ordinary ADD ran, so the bridge was never created.
  }
  await removeNodeFixture(node);
});

describe('concurrent ADDs and DELs with live reads on and off, managed shadows and ordinary NADs in one burst', () => {
  it('gives each Pod exactly its networks, then DEL leaves no lease, cache or result', async () => {
    const adds = await Promise.all(subjects.map((subject) => run(subject, 'ADD')));
    expect(adds.flatMap((add, index) => (add.code === 0 ? [] : [`${subjects[index]?.containerID ?? ''}: ${add.stdout}`]))).toEqual([]);
    // Each daemon read as configured: one live Pod GET an ADD with live reads, none from its informers.
    expect({ live: await livePodReads('live'), informer: await livePodReads('informer') }).toEqual({ live: PODS_PER_DAEMON, informer: 0 });

    const links = subjects.map((subject) => subject.sandbox.links());
    for (const [index, subject] of subjects.entries()) {
      // The managed Pod's VF is the stand-in's (no link); the ordinary Pod has its second veth.
      expect([subject.containerID, links[index]?.map((link) => link.replace(/\d+$/, 'N'))]).toEqual([
        subject.containerID,
        subject.managed === undefined ? ['eth0 10.244.7.N', 'net1 10.77.0.N'] : ['eth0 10.244.7.N'],
      ]);
    }
    const primary = links.map((pod) => pod[0]);
    expect(new Set(primary).size).toBe(subjects.length);
    const ordinary = links.flatMap((pod) => pod.slice(1));
    expect(new Set(ordinary).size).toBe(subjects.filter((subject) => subject.managed === undefined).length);

    // Each managed Pod's sriov ADD got its own bound VF, once; no ordinary Pod reached the sriov plugin.
    const managed = subjects.flatMap((subject) => (subject.managed === undefined ? [] : [{ ...subject.managed, name: subject.pod.metadata.name }]));
    expect(await sriovCalls()).toEqual(managed.map(({ name, pci }) => `ADD ${name} dra0 ${pci}`).sort());

    const statuses = await Promise.all(subjects.map((subject) => networkStatus(subject.pod)));
    expect(statuses).toEqual(
      subjects.map((subject, index) => {
        const [eth0, net1] = (links[index] ?? []).map((link) => link.split(' ')[1] ?? '');
        return subject.managed === undefined
          ? [`primary eth0 ${eth0 ?? ''}`, `${NS}/${ORDINARY_NAD} net1 ${net1 ?? ''}`]
          : [`primary eth0 ${eth0 ?? ''}`, `${NS}/${subject.managed.shadow} dra0 192.0.2.10`];
      }),
    );
    expect(leases('primary')).toHaveLength(subjects.length);
    expect(leases(ORDINARY_NAD)).toHaveLength(ordinary.length);

    const dels = await Promise.all(subjects.map((subject) => run(subject, 'DEL')));
    expect(dels.flatMap((del, index) => (del.code === 0 ? [] : [`${subjects[index]?.containerID ?? ''}: ${del.stdout}`]))).toEqual([]);
    expect(subjects.flatMap((subject) => subject.sandbox.links())).toEqual([]);
    expect(await sriovCalls()).toEqual(
      [...managed.map(({ name, pci }) => `ADD ${name} dra0 ${pci}`), ...managed.map(({ name, pci }) => `DEL ${name} dra0 ${pci}`)].sort(),
    );
    expect([leases('primary'), leases(ORDINARY_NAD)]).toEqual([[], []]);
    expect([cacheFiles('live'), cacheFiles('informer')]).toEqual([[], []]);
  }, 300_000);
});
