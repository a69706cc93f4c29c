// What the scenario tests do with a workload Pod on the stack: run it to Running, read its network rows,
// check the two-rail outcome of §14.2/§14.3, and delete it checking that nothing is left behind.
import { expect } from '@jest/globals';
import { type KubeClient, type KubeObject, isApiError, resourceTypes } from '@sriov-dra/k8s';
import { waitFor } from '@sriov-dra/k8s/testing';
import { type PodNetworkRow, podNetworkRows } from '../src/report/pod-networks.ts';
import { RAILS } from '../src/scenarios/gpu-nic-pairs.ts';
import { ONE_NETWORK } from '../src/scenarios/one-network.ts';
import { type Leftovers, NOTHING_LEFT, leftoverCount, settledLeftovers } from '../src/stack/leftovers.ts';
import type { SimulatedNode } from '../src/stack/simulated-node.ts';
import { type Stack, WORKLOADS } from '../src/stack/stack.ts';

async function phaseOf(stack: Stack, name: string): Promise<string | undefined> {
  try {
    return (await stack.admin.get<KubeObject & { status?: { phase?: string } }>(resourceTypes.pod, { namespace: WORKLOADS, name })).status?.phase ?? 'Pending';
  } catch (error) {
    if (isApiError(error, 'NotFound')) return undefined;
    throw error;
  }
}

/** Creates the Pod in the workloads namespace and waits for the kubelet to report it Running; returns it with its network rows. */
export async function runPod(stack: Stack, manifest: Record<string, unknown>, timeoutMs = 90_000): Promise<{ pod: KubeObject; rows: PodNetworkRow[] }> {
  const pod = await stack.admin.create(resourceTypes.pod, manifest, { namespace: WORKLOADS });
  await waitFor(`Pod ${pod.metadata.name} to run`, async () => (await phaseOf(stack, pod.metadata.name)) === 'Running', {
    timeoutMs,
    describe: () => stack.logTail(),
  });
  const rows = await podNetworkRows(stack.admin, { namespace: WORKLOADS, name: pod.metadata.name }, stack.kubelet.sandbox(pod.metadata.uid)?.netns);
  return { pod, rows };
}

/** Deletes the Pod as a user does and waits until the kubelet has completed its deletion. */
export async function deletePod(stack: Stack, name: string): Promise<void> {
  await stack.admin.delete(resourceTypes.pod, { namespace: WORKLOADS, name });
  await waitFor(`Pod ${name} to be gone`, async () => (await phaseOf(stack, name)) === undefined, { timeoutMs: 60_000, describe: () => stack.logTail() });
}

/** Waits until nothing is left of any Pod, and asserts it; returns what was left at the last look. */
export async function expectNothingLeft(stack: Stack): Promise<Leftovers> {
  const left = await settledLeftovers(stack);
  expect({ left, log: leftoverCount(left) === 0 ? '' : stack.logTail() }).toEqual({ left: NOTHING_LEFT, log: '' });
  return left;
}

function ipNumber(ip: string): number {
  return ip.split('.').reduce((sum, octet) => sum * 256 + Number(octet), 0);
}

/**
 * The two-rail outcome: nic-0 with gpu-0 and nic-1 with gpu-1, each pair on one nonempty PCIe root, the
 * pairs on the node's two roots; each VF's shadow from the template its PF maps to, on dra0/dra1, with an
 * address from that rail's range, which its interface in the sandbox carries.
 */
export function expectPairsOnTheirRails(stack: Stack, rows: readonly PodNetworkRow[]): void {
  expect(rows.map((row) => `${row.request}+${row.pairedRequest} ${row.interface}`)).toEqual(['nic-0+gpu-0 dra0', 'nic-1+gpu-1 dra1']);
  for (const row of rows) {
    const pfIndex = stack.node.pfs.findIndex((pf) => pf.vfs.some((vf) => vf.pciAddress === row.vfPci));
    const rail = RAILS[pfIndex];
    if (rail === undefined) throw new Error(`${row.request}: VF ${row.vfPci} is on none of the node's rail PFs`);
    const ip = ipNumber(row.ip);
    expect({
      request: row.request,
      sameRoot: row.vfRoot !== '' && row.vfRoot === row.pairedRoot,
      rail: row.rail,
      inRange: ip >= ipNumber(rail.start) && ip <= ipNumber(rail.end),
      sandbox: row.sandboxIps,
    }).toEqual({ request: row.request, sameRoot: true, rail: `${WORKLOADS}/${rail.template}`, inRange: true, sandbox: [row.ip] });
  }
  expect(new Set(rows.map((row) => row.vfRoot)).size).toBe(2);
}

/**
 * §14.1's Pod got one VF of the advertised PF on dra0, with its address on the template's subnet in the
 * sandbox, and a shadow that keeps the template's network name and IPAM with the VF's PCI address injected.
 */
export async function expectOneVfOnTemplate(
  admin: KubeClient,
  rows: readonly PodNetworkRow[],
  node: Pick<SimulatedNode, 'pfs' | 'hostLocalDir'>,
): Promise<void> {
  const [row] = rows;
  if (row === undefined) throw new Error('the Pod got no SR-IOV device');
  const advertised = node.pfs[0]?.vfs.map((vf) => vf.pciAddress) ?? [];
  expect({ rows: rows.length, request: row.request, rail: row.rail, interface: row.interface, advertisedPf: advertised.includes(row.vfPci) }).toEqual({
    rows: 1,
    request: 'vf',
    rail: `${WORKLOADS}/${ONE_NETWORK.template}`,
    interface: 'dra0',
    advertisedPf: true,
  });
  expect(row.ip).toMatch(/^192\.0\.2\.\d+$/);
  expect(row.sandboxIps).toEqual([row.ip]);
  const shadow = await admin.get<KubeObject & { spec: { config: string } }>(resourceTypes.networkAttachmentDefinition, {
    namespace: WORKLOADS,
    name: row.shadow,
  });
  const config = JSON.parse(shadow.spec.config) as { deviceID?: string; name?: string; ipam?: { type?: string; dataDir?: string } };
  // The template's network name and IPAM preserved, the allocated VF's PCI address injected.
  expect({ deviceID: config.deviceID, name: config.name, ipam: config.ipam?.type, dataDir: config.ipam?.dataDir }).toEqual({
    deviceID: row.vfPci,
    name: ONE_NETWORK.network,
    ipam: 'host-local',
    dataDir: node.hostLocalDir,
  });
}
