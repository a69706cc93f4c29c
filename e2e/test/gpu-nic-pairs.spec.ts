// Scenarios (b) and (d) on the whole stack installed from the chart: §14.2's Pod asks for two GPU/NIC
// pairs by PCIe root and comes up with each VF on its own rail's subnet — no networks annotation, no
// resourceName, no PCI address in anything the workload wrote — and its deletion leaves nothing behind.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ATTACHMENT_PROTECTION_FINALIZER, annotations } from '@sriov-dra/contract';
import { type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import type { PodNetworkRow } from '../src/report/pod-networks.ts';
import { RAILS, createDirectRailMapping, createPairsTemplate, createPcieDeviceClasses, pairsPod } from '../src/scenarios/gpu-nic-pairs.ts';
import { leftovers } from '../src/stack/leftovers.ts';
import { type Stack, WORKLOADS, startStack } from '../src/stack/stack.ts';
import { deletePod, expectNothingLeft, expectPairsOnTheirRails, runPod } from './pod-lifecycle.ts';

const POD = 'gpu-sriov-pairs-demo';

describe('two GPU/NIC pairs by PCIe root, each VF on its rail (§14.2), and nothing left after (§14.4)', () => {
  let stack: Stack;
  let pod: KubeObject;
  let rows: PodNetworkRow[];
  let passed = true;

  beforeAll(async () => {
    stack = await startStack();
    await createPcieDeviceClasses(stack.admin);
    await createPairsTemplate(stack.admin);
    await createDirectRailMapping(stack.admin, { whereaboutsConfig: stack.node.whereaboutsConfig });
  }, 240_000);

  afterAll(async () => {
    await stack.stop(!passed);
  }, 120_000);

  it('runs the Pod: both drivers prepared, CNI ADD through the upstream shim and the daemon, Running', async () => {
    passed = false;
    ({ pod, rows } = await runPod(stack, pairsPod(POD)));
    passed = true;
  }, 120_000);

  it('pairs each NIC with its GPU on one PCIe root and binds each VF to its rail’s template, interface and subnet', () => {
    expectPairsOnTheirRails(stack, rows);
    // The GPU driver prepared the two GPUs of the same claim; the SR-IOV side never touched them.
    expect([...stack.gpu.prepared().values()].map((devices) => [...devices].sort())).toEqual([['gpu-0', 'gpu-1']]);
    expect(rows.map((row) => row.pairedDevice).sort()).toEqual(['gpu.nvidia.com/gpu-0', 'gpu.nvidia.com/gpu-1']);
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
    await deletePod(stack, POD);
    await expectNothingLeft(stack);
    passed = true;
  }, 120_000);
});
