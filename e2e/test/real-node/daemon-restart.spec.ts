// The Multus daemon Pod deleted while Pods run, then those Pods deleted: the replacement daemon releases
// every IP lease the delegates took (host-local's lease files, Whereabouts' allocations), because the
// delegates keep their state on the host, not in the container that went; and afterwards 20 new Pods get
// 20 distinct addresses on each network.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { annotations } from '@sriov-dra/contract';
import { resourceTypes } from '@sriov-dra/k8s';
import { type RealStack, startRealStack } from '../../src/real-node/real-stack.ts';
import { SLEEPER, containerAddresses, deletePodAndWait, replaceComponentPod, waitRunning } from '../../src/real-node/workload.ts';
import { leftovers } from '../../src/stack/leftovers.ts';
import { DUAL_RAIL_LABEL, RELEASE_NAMESPACE, WORKLOADS } from '../../src/stack/stack.ts';

const HOST_LOCAL_NET = 'hl-net';
const WHEREABOUTS_NET = 'wa-net';
const NEW_PODS = 20;

describe('the Multus daemon Pod restarted while Pods run: every lease released, none handed out twice', () => {
  let stack: RealStack;
  let leaseDir: string;
  const bridge = `sdrab${String(process.pid % 100_000)}`;
  let passed = true;

  const nad = async (name: string, ipam: Record<string, unknown>): Promise<void> => {
    await stack.admin.create(
      resourceTypes.networkAttachmentDefinition,
      {
        apiVersion: 'k8s.cni.cncf.io/v1',
        kind: 'NetworkAttachmentDefinition',
        metadata: { name },
        spec: { config: JSON.stringify({ cniVersion: '1.0.0', name, type: 'bridge', bridge, ipMasq: false, ipam }) },
      },
      { namespace: WORKLOADS },
    );
  };
  const pod = (name: string): Record<string, unknown> => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, annotations: { [annotations.networks]: `${HOST_LOCAL_NET},${WHEREABOUTS_NET}` } },
    spec: {
      nodeSelector: { [DUAL_RAIL_LABEL]: 'true' },
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'c', image: stack.images.busybox.image, imagePullPolicy: 'Never', command: ['/bin/sh', '-c', SLEEPER] }],
    },
  });
  const leases = (): string[] => {
    const dir = path.join(leaseDir, HOST_LOCAL_NET);
    return fs.existsSync(dir) ? fs.readdirSync(dir).filter((file) => /^\d+\.\d+\.\d+\.\d+$/.test(file)) : [];
  };
  /** The Pods holding Whereabouts allocations (leftovers name each as `<range> <offset> <podref>`). */
  const allocations = async (): Promise<string[]> =>
    (await leftovers(stack.leftoverSource)).whereaboutsAllocations.map((allocation) => allocation.split(' ').at(-1) ?? '');

  beforeAll(async () => {
    stack = await startRealStack({ log: (line) => process.stderr.write(`${line}\n`) });
    // host-local's leases in the node's tree: a host path the daemon's container does not mount.
    leaseDir = stack.hardware.hostLocalDir;
    await nad(HOST_LOCAL_NET, { type: 'host-local', dataDir: leaseDir, ranges: [[{ subnet: '10.250.0.0/24' }]] });
    await nad(WHEREABOUTS_NET, { type: 'whereabouts', range: '10.251.0.0/24', configuration_path: stack.hardware.whereaboutsConfig });
  }, 600_000);

  afterAll(async () => {
    await stack.stop(!passed);
    spawnSync('ip', ['link', 'del', bridge]);
  }, 300_000);

  it('releases the leases of Pods deleted after the daemon Pod was replaced', async () => {
    passed = false;
    for (const name of ['before-0', 'before-1']) await stack.admin.create(resourceTypes.pod, pod(name), { namespace: WORKLOADS });
    for (const name of ['before-0', 'before-1']) await waitRunning(stack, WORKLOADS, name);
    expect(leases()).toHaveLength(2);
    expect((await allocations()).sort()).toEqual([`${WORKLOADS}/before-0`, `${WORKLOADS}/before-1`]);

    await replaceComponentPod(stack, RELEASE_NAMESPACE, 'multus-live-read-proxy');

    for (const name of ['before-0', 'before-1']) await deletePodAndWait(stack.admin, WORKLOADS, name);
    expect(leases()).toEqual([]);
    expect(await allocations()).toEqual([]);
    passed = true;
  }, 400_000);

  it(`gives ${String(NEW_PODS)} new Pods ${String(NEW_PODS)} distinct addresses on each network`, async () => {
    passed = false;
    const names = Array.from({ length: NEW_PODS }, (_, index) => `after-${String(index)}`);
    for (const name of names) await stack.admin.create(resourceTypes.pod, pod(name), { namespace: WORKLOADS });
    for (const name of names) await waitRunning(stack, WORKLOADS, name, 300_000);
    const addresses = names.map((name) => containerAddresses(stack, WORKLOADS, name));
    const net1 = addresses.flatMap((byInterface) => byInterface.get('net1') ?? []);
    const net2 = addresses.flatMap((byInterface) => byInterface.get('net2') ?? []);
    expect(net1).toHaveLength(NEW_PODS);
    expect(new Set(net1).size).toBe(NEW_PODS);
    expect(net2).toHaveLength(NEW_PODS);
    expect(new Set(net2).size).toBe(NEW_PODS);
    expect(leases().sort()).toEqual([...net1].sort());
    passed = true;
  }, 600_000);
});
