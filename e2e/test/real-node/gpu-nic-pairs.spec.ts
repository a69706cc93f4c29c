// §14.2 on a real node: the kubelet prepares both drivers' claims before the sandbox, containerd runs the
// sandbox, CNI ADD goes through the upstream shim the chart's init container installed on the host to the
// Multus daemon Pod, and the container itself shows each VF on its rail's subnet.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { resourceTypes } from '@sriov-dra/k8s';
import { RAILS, pairsPod, setUpPairs } from '../../src/scenarios/gpu-nic-pairs.ts';
import { podNetworkRows } from '../../src/report/pod-networks.ts';
import { type RealStack, startRealStack } from '../../src/real-node/real-stack.ts';
import { containerAddresses, deletePodAndWait, onRealNode, waitRunning } from '../../src/real-node/workload.ts';
import { WORKLOADS } from '../../src/stack/stack.ts';

const POD = 'gpu-sriov-pairs-demo';

describe('§14.2 on a real node: kubelet + containerd run the chart’s images and the workload', () => {
  let stack: RealStack;
  let passed = true;

  beforeAll(async () => {
    stack = await startRealStack({ log: (line) => process.stderr.write(`${line}\n`) });
    await setUpPairs(stack.admin, { whereaboutsConfig: stack.hardware.whereaboutsConfig });
  }, 600_000);

  afterAll(async () => {
    await stack.stop(!passed);
  }, 300_000);

  it('runs the Pod, and the container shows each VF on its rail’s subnet', async () => {
    passed = false;
    await stack.admin.create(resourceTypes.pod, onRealNode(pairsPod(POD), stack.images.busybox.image), { namespace: WORKLOADS });
    await waitRunning(stack, WORKLOADS, POD);
    const inside = containerAddresses(stack, WORKLOADS, POD);
    const rows = await podNetworkRows(stack.admin, { namespace: WORKLOADS, name: POD }, inside);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      const rail = RAILS.find((candidate) => row.rail.endsWith(candidate.template));
      expect(rail).toBeDefined();
      expect(row.vfRoot).toBe(row.pairedRoot);
      expect(row.sandboxIps).toEqual([row.ip]);
      expect(row.ip.startsWith(rail?.range.split('.').slice(0, 3).join('.') ?? 'none')).toBe(true);
    }
    passed = true;
  }, 300_000);

  it('deletes the Pod: the VFs are back on the host and no shadow is left', async () => {
    passed = false;
    await deletePodAndWait(stack.admin, WORKLOADS, POD);
    const shadows = await stack.admin.list(resourceTypes.networkAttachmentDefinition, { namespace: WORKLOADS });
    expect(shadows.items.map((item) => item.metadata.name).filter((name) => name.startsWith('dra-sriov-'))).toEqual([]);
    passed = true;
  }, 180_000);
});
