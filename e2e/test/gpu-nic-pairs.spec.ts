// Scenarios (b) and (d) on the whole stack installed from the chart: §14.2's Pod asks for two GPU/NIC
// pairs by PCIe root and comes up with each VF on its own rail's subnet — no networks annotation, no
// resourceName, no PCI address in anything the workload wrote — and its deletion leaves nothing behind.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ATTACHMENT_PROTECTION_FINALIZER, annotations } from '@sriov-dra/contract';
import { type KubeObject, isApiError, resourceTypes } from '@sriov-dra/k8s';
import { waitFor } from '@sriov-dra/k8s/testing';
import { type PodNetworkRow, podNetworkRows } from '../src/report/pod-networks.ts';
import { RAILS, createDirectRailMapping, createPairsTemplate, createPcieDeviceClasses, pairsPod } from '../src/scenarios/gpu-nic-pairs.ts';
import { NOTHING_LEFT, leftovers } from '../src/stack/leftovers.ts';
import { OPERATOR_NAMESPACE, type Stack, WORKLOADS, startStack } from '../src/stack/stack.ts';

const POD = 'gpu-sriov-pairs-demo';

/** The rail whose PF a VF belongs to, from the node's own inventory. */
function railOfVf(stack: Stack, pci: string): string | undefined {
  const pfIndex = stack.node.pfs.findIndex((pf) => pf.vfs.some((vf) => vf.pciAddress === pci));
  return RAILS[pfIndex]?.template;
}

function inRange(ip: string, rail: (typeof RAILS)[number]): boolean {
  const [address] = ip.split('/');
  const toNumber = (text: string) => text.split('.').reduce((sum, octet) => sum * 256 + Number(octet), 0);
  return toNumber(address ?? '') >= toNumber(rail.start) && toNumber(address ?? '') <= toNumber(rail.end);
}

describe('two GPU/NIC pairs by PCIe root, each VF on its rail (§14.2), and nothing left after (§14.4)', () => {
  let stack: Stack;
  let pod: KubeObject;
  let rows: PodNetworkRow[];
  let passed = true;

  beforeAll(async () => {
    stack = await startStack();
    await createPcieDeviceClasses(stack.admin);
    await createPairsTemplate(stack.admin, WORKLOADS);
    await createDirectRailMapping(stack.admin, { workloads: WORKLOADS, policyNamespace: OPERATOR_NAMESPACE, whereaboutsConfig: stack.node.whereaboutsConfig });
  }, 240_000);

  afterAll(async () => {
    await stack.stop(!passed);
  }, 120_000);

  it('runs the Pod: both drivers prepared, CNI ADD through the upstream shim and the daemon, Running', async () => {
    passed = false;
    pod = await stack.admin.create(resourceTypes.pod, pairsPod(POD), { namespace: WORKLOADS });
    await waitFor(
      'the Pod to run',
      async () =>
        (await stack.admin.get<KubeObject & { status?: { phase?: string } }>(resourceTypes.pod, { namespace: WORKLOADS, name: POD })).status?.phase ===
        'Running',
      { timeoutMs: 90_000, describe: () => stack.logTail() },
    );
    rows = await podNetworkRows(stack.admin, { namespace: WORKLOADS, name: POD }, stack.kubelet.sandbox(pod.metadata.uid)?.netns);
    passed = true;
  }, 120_000);

  it('pairs each NIC with its GPU on one PCIe root, the pairs on the two roots', () => {
    expect(rows.map((row) => `${row.request}+${row.pairedRequest}`)).toEqual(['nic-0+gpu-0', 'nic-1+gpu-1']);
    for (const row of rows) {
      expect(row.vfRoot).not.toBe('');
      expect(row.pairedRoot).toBe(row.vfRoot);
    }
    expect(new Set(rows.map((row) => row.vfRoot)).size).toBe(2);
    // The GPU driver prepared the two GPUs of the same claim; the SR-IOV side never touched them.
    expect([...stack.gpu.prepared().values()].map((devices) => [...devices].sort())).toEqual([['gpu-0', 'gpu-1']]);
    expect(rows.map((row) => row.pairedDevice).sort()).toEqual(['gpu.nvidia.com/gpu-0', 'gpu.nvidia.com/gpu-1']);
  });

  it('binds each VF to a shadow of its own rail’s template, on the interface §6.5 numbers, with an address from that rail', () => {
    expect(rows.map((row) => row.interface)).toEqual(['dra0', 'dra1']);
    for (const row of rows) {
      const rail = RAILS.find((candidate) => `${WORKLOADS}/${candidate.template}` === row.rail);
      if (rail === undefined) throw new Error(`${row.request}: rail ${row.rail} is none of the node's`);
      expect({ request: row.request, railOfPf: railOfVf(stack, row.vfPci) }).toEqual({ request: row.request, railOfPf: rail.template });
      expect({ request: row.request, ip: row.ip, inRange: inRange(row.ip, rail) }).toEqual({ request: row.request, ip: row.ip, inRange: true });
      expect(row.sandboxIps).toEqual([row.ip]);
    }
    expect(new Set(rows.map((row) => row.rail)).size).toBe(2);
  });

  it('writes the shadows the Pod owns, protected by the finalizer, and the networks annotation naming exactly them', async () => {
    const live = await stack.admin.get(resourceTypes.pod, { namespace: WORKLOADS, name: POD });
    const selections = JSON.parse(live.metadata.annotations?.[annotations.networks] ?? '[]') as { name: string; interface: string }[];
    expect(selections.map((selection) => `${selection.name} ${selection.interface}`).sort()).toEqual(
      rows.map((row) => `${row.shadow} ${row.interface}`).sort(),
    );
    for (const row of rows) {
      const shadow = await stack.admin.get(resourceTypes.networkAttachmentDefinition, { namespace: WORKLOADS, name: row.shadow });
      expect(shadow.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Pod', name: POD, uid: pod.metadata.uid, blockOwnerDeletion: false }]);
      expect(shadow.metadata.finalizers).toEqual([ATTACHMENT_PROTECTION_FINALIZER]);
      const config = JSON.parse((shadow as KubeObject & { spec: { config: string } }).spec.config) as { deviceID?: string; name?: string };
      expect({ deviceID: config.deviceID, name: config.name }).toEqual({
        deviceID: row.vfPci,
        name: RAILS.find((rail) => row.rail.endsWith(rail.template))?.network,
      });
    }
  });

  it('tears the Pod down: no shadow, finalizer, lease or Whereabouts allocation left, every VF back on the host and its driver', async () => {
    passed = false;
    const before = await leftovers(stack);
    // Not vacuous: while the Pod runs, each of these holds something.
    expect({
      shadows: before.shadows.length,
      whereabouts: before.whereaboutsAllocations.length,
      leases: before.hostLocalLeases.length,
      away: before.vfsAway.length,
      gpu: before.gpuClaims.length,
      checkpoint: before.driverCheckpointClaims.length,
    }).toEqual({ shadows: 2, whereabouts: 2, leases: 1, away: 2, gpu: 1, checkpoint: 1 });
    await stack.admin.delete(resourceTypes.pod, { namespace: WORKLOADS, name: POD });
    await waitFor(
      'the Pod to be gone',
      async () => {
        try {
          await stack.admin.get(resourceTypes.pod, { namespace: WORKLOADS, name: POD });
          return false;
        } catch (error) {
          if (isApiError(error, 'NotFound')) return true;
          throw error;
        }
      },
      { timeoutMs: 60_000 },
    );
    let left = await leftovers(stack);
    await waitFor(
      'nothing to be left',
      async () => {
        left = await leftovers(stack);
        return JSON.stringify(left) === JSON.stringify(NOTHING_LEFT);
      },
      { timeoutMs: 60_000, describe: () => JSON.stringify(left) },
    );
    expect(left).toEqual(NOTHING_LEFT);
    passed = true;
  }, 120_000);
});
