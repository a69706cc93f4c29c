import { describe, expect, it } from '@jest/globals';
import { DRIVER_NAME, MANAGED_BY_VALUE, annotations, labels, serializeBindingAnnotation, serializeRegistry, shadowNameFor } from '@sriov-dra/contract';
import type { KubeObject } from '@sriov-dra/k8s';
import { ORPHANS_FOOTNOTE, statusOverview, statusTable } from './status-overview.ts';

const NS = 'ai-workloads';
const uid = (digit: string): string => `${digit.repeat(8)}-${digit.repeat(4)}-4${digit.repeat(3)}-8${digit.repeat(3)}-${digit.repeat(12)}`;
const NODE_A = { name: 'worker-a', uid: uid('a') };
const NODE_B = { name: 'worker-b', uid: uid('b') };

function node(at: { name: string; uid: string }, ready: boolean): KubeObject {
  return {
    metadata: { resourceVersion: '1', name: at.name, uid: at.uid },
    status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

function slice(nodeName: string, generation: number, devices: number, driver = DRIVER_NAME): KubeObject {
  return {
    metadata: { resourceVersion: '1', name: `${nodeName}-${driver}-${generation}`, uid: uid('5') },
    spec: {
      driver,
      nodeName,
      pool: { name: nodeName, generation, resourceSliceCount: 1 },
      devices: Array.from({ length: devices }, (_, i) => ({ name: `vf-${i}` })),
    },
  };
}

function claim(name: string, claimUID: string, results: { pool: string; device: string; driver?: string }[], podUID?: string): KubeObject {
  return {
    metadata: { resourceVersion: '1', name, namespace: NS, uid: claimUID },
    status: {
      allocation: { devices: { results: results.map((result) => ({ request: 'nic', driver: DRIVER_NAME, ...result })) } },
      ...(podUID === undefined ? {} : { reservedFor: [{ resource: 'pods', name: 'p', uid: podUID }] }),
    },
  };
}

function pod(name: string, podUID: string, nodeName: string, podAnnotations: Record<string, string> = {}): KubeObject {
  return { metadata: { resourceVersion: '1', name, namespace: NS, uid: podUID, annotations: podAnnotations }, spec: { nodeName } };
}

function shadow(digit: string, at: { uid: string }, owner: { name: string; uid: string }, claimUID: string, pci: string): KubeObject {
  return {
    metadata: {
      resourceVersion: '1',
      name: shadowNameFor(digit.repeat(64)),
      namespace: NS,
      uid: uid(digit),
      labels: { [labels.managedBy]: MANAGED_BY_VALUE, [labels.nodeUID]: at.uid },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: owner.name, uid: owner.uid }],
      annotations: {
        [annotations.binding]: serializeBindingAnnotation({
          version: 1,
          attachmentID: digit.repeat(64),
          podUID: owner.uid,
          claimUID,
          nodeName: 'worker-a',
          nodeUID: at.uid,
          source: { namespace: NS, name: 'rail-a', uid: uid('9'), resourceVersion: '1' },
          pciAddress: pci,
          interface: 'net1',
          configSHA256: 'f'.repeat(64),
        }),
      },
    },
    spec: { config: '{"cniVersion":"1.0.0","name":"rail-a","type":"sriov"}' },
  };
}

/**
 * worker-a: Ready, 3 VFs in its newest slice (an older generation's 5 are on their way out), a claim of
 * 2 VFs reserved for trainer (one attached, one not prepared), a second claim of 1 VF, and besides the
 * attached shadow one whose Pod is gone and one whose Pod was replaced. worker-b: published but not Ready.
 */
function cluster(): Parameters<typeof statusOverview>[0] {
  const trainer = { name: 'trainer', uid: uid('1') };
  const claimUID = uid('c');
  const attached = shadow('a', NODE_A, trainer, claimUID, '0000:3b:00.2');
  const registry = serializeRegistry({
    version: 1,
    podUID: trainer.uid,
    entries: [
      {
        attachmentID: 'a'.repeat(64),
        claimUID,
        namespace: NS,
        name: attached.metadata.name,
        uid: attached.metadata.uid,
        interface: 'net1',
        configSHA256: 'f'.repeat(64),
      },
    ],
  });
  return {
    nodes: [node(NODE_B, false), node(NODE_A, true)],
    slices: [slice('worker-a', 2, 3), slice('worker-a', 1, 5), slice('worker-b', 1, 4), slice('worker-a', 1, 7, 'gpu.nvidia.com')],
    claims: [
      claim(
        'nics',
        claimUID,
        [
          { pool: 'worker-a', device: '0000-3b-00-2' },
          { pool: 'worker-a', device: '0000-3b-00-3' },
          { pool: 'worker-a', device: 'gpu-0', driver: 'gpu.nvidia.com' },
        ],
        trainer.uid,
      ),
      claim('spare', uid('d'), [{ pool: 'worker-a', device: '0000-3b-00-4' }]),
    ],
    pods: [
      pod(trainer.name, trainer.uid, 'worker-a', {
        [annotations.managedNetworks]: registry,
        [annotations.networkStatus]: JSON.stringify([{ name: `${NS}/${attached.metadata.name}`, interface: 'net1', ips: ['192.0.2.10'] }]),
      }),
      pod('replaced', uid('3'), 'worker-b'),
    ],
    shadows: [
      attached,
      shadow('b', NODE_A, { name: 'deleted', uid: uid('2') }, claimUID, '0000:3b:00.5'),
      shadow('c', NODE_A, { name: 'replaced', uid: uid('4') }, claimUID, '0000:3b:00.6'),
    ],
  };
}

describe('statusOverview', () => {
  it('counts each node’s published, allocated and managed VFs, its bindings by state and its API orphans', () => {
    const overview = statusOverview(cluster());
    expect(overview.nodes).toEqual([
      {
        node: 'worker-a',
        nodeReady: true,
        driverReady: true,
        vfsPublished: 3,
        vfsAllocated: 3,
        vfsManaged: 1,
        bindings: {
          attached: 1,
          'pending-cni': 0,
          'not-prepared': 1,
          'shadow-missing': 0,
          'shadow-terminating': 0,
          'shadow-replaced': 0,
          'shadow-unreadable': 0,
        },
        orphans: [
          { shadow: `${NS}/${shadowNameFor('b'.repeat(64))}`, reason: 'pod-gone', podUID: uid('2') },
          { shadow: `${NS}/${shadowNameFor('c'.repeat(64))}`, reason: 'pod-replaced', podUID: uid('4') },
        ],
        unreadableRegistries: [],
      },
      {
        node: 'worker-b',
        nodeReady: false,
        driverReady: false,
        vfsPublished: 4,
        vfsAllocated: 0,
        vfsManaged: 0,
        bindings: {
          attached: 0,
          'pending-cni': 0,
          'not-prepared': 0,
          'shadow-missing': 0,
          'shadow-terminating': 0,
          'shadow-replaced': 0,
          'shadow-unreadable': 0,
        },
        orphans: [],
        unreadableRegistries: [],
      },
    ]);
    expect(overview.totals).toEqual({
      nodes: 2,
      driversReady: 1,
      vfsPublished: 7,
      vfsAllocated: 3,
      vfsManaged: 1,
      bindings: {
        attached: 1,
        'pending-cni': 0,
        'not-prepared': 1,
        'shadow-missing': 0,
        'shadow-terminating': 0,
        'shadow-replaced': 0,
        'shadow-unreadable': 0,
      },
      orphans: 2,
    });
  });

  it('a Ready node without a slice of this driver is not served', () => {
    const overview = statusOverview({ nodes: [node(NODE_A, true)], slices: [slice('worker-a', 1, 2, 'gpu.nvidia.com')], claims: [], pods: [], shadows: [] });
    expect([overview.nodes[0]?.driverReady, overview.nodes[0]?.vfsPublished]).toEqual([false, 0]);
  });

  it('counts the checkpoint’s phases for the node it was read on only, and names a Pod whose registry is unreadable', () => {
    const input = cluster();
    const phases = new Map([
      ['a'.repeat(64), 'Ready'],
      ['b'.repeat(64), 'Deleting'],
      ['c'.repeat(64), 'Ready'],
    ]);
    const broken = pod('broken', uid('6'), 'worker-b', { [annotations.managedNetworks]: '{"version":1' });
    const overview = statusOverview({ ...input, pods: [...input.pods, broken], checkpoint: { node: 'worker-a', phases } });
    expect(overview.nodes.map((status) => status.checkpointPhases)).toEqual([{ Ready: 2, Deleting: 1 }, undefined]);
    expect(overview.nodes.map((status) => status.unreadableRegistries)).toEqual([[], [`${NS}/broken`]]);
  });

  it('shows a row per node, a total row, each orphan and the footnote naming sriov-dra orphans', () => {
    const lines = statusTable(statusOverview(cluster()), false).split('\n');
    expect(lines.slice(0, 4).map((line) => line.split(/ {2,}/))).toEqual([
      ['NODE', 'READY', 'DRIVER', 'VFS', 'ALLOCATED', 'MANAGED', 'BINDINGS', 'ORPHANS'],
      ['worker-a', 'yes', 'ready', '3', '3', '1', 'attached=1 not-prepared=1', '2'],
      ['worker-b', 'no', 'no', '4', '0', '0', '-', '0'],
      ['TOTAL', '2 nodes', '1 ready', '7', '3', '1', 'attached=1 not-prepared=1', '2'],
    ]);
    expect(lines.slice(4)).toEqual([
      `orphan on worker-a: ${NS}/${shadowNameFor('b'.repeat(64))} pod-gone pod=${uid('2')}`,
      `orphan on worker-a: ${NS}/${shadowNameFor('c'.repeat(64))} pod-replaced pod=${uid('4')}`,
      ORPHANS_FOOTNOTE,
      '',
    ]);
    expect(ORPHANS_FOOTNOTE).toContain('sriov-dra orphans --node-name NODE');
  });
});
