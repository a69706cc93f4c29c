// What the real-node scenarios do with a workload Pod: run it with the node's own busybox image and read its
// network rows with the addresses its container shows; check each VF against the rail its PF maps to;
// capture what must stay as it is while the Pod runs (its attachments); and, once it is gone, wait until
// nothing of it is left on the cluster or the node.
import { expect } from '@jest/globals';
import { annotations, labels } from '@sriov-dra/contract';
import { type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { waitFor } from '@sriov-dra/k8s/testing';
import { type PodNetworkRow, podNetworkRows } from '../../src/report/pod-networks.ts';
import type { RealStack } from '../../src/real-node/real-stack.ts';
import { containerAddresses, deleteNamespacePods, onRealNode, waitRunning } from '../../src/real-node/workload.ts';
import { RAILS } from '../../src/scenarios/gpu-nic-pairs.ts';
import { type Leftovers, NOTHING_LEFT, leftoverCount, leftovers } from '../../src/stack/leftovers.ts';
import { WORKLOADS } from '../../src/stack/stack.ts';

/** Creates the Pod in the workloads namespace on the real node, waits for Running and returns its rows as the container sees them. */
export async function runOnRealNode(stack: RealStack, manifest: Record<string, unknown>, timeoutMs = 120_000): Promise<PodNetworkRow[]> {
  const pod = await stack.admin.create(resourceTypes.pod, onRealNode(manifest, stack.images.busybox.image), { namespace: WORKLOADS });
  await waitRunning(stack, WORKLOADS, pod.metadata.name, timeoutMs);
  return rowsOf(stack, pod.metadata.name);
}

/** The Pod's network rows, the sandbox's addresses read inside its container. */
export async function rowsOf(stack: RealStack, name: string): Promise<PodNetworkRow[]> {
  return podNetworkRows(stack.admin, { namespace: WORKLOADS, name }, containerAddresses(stack, WORKLOADS, name));
}

function ipNumber(ip: string): number {
  return ip.split('.').reduce((sum, octet) => sum * 256 + Number(octet), 0);
}

/**
 * Each VF's shadow comes from the template its PF maps to, its address (network-status) is in that rail's
 * range and is what the container shows on the interface; a VF paired with a GPU is on the GPU's root.
 */
export function expectVfsOnTheirRails(stack: RealStack, rows: readonly PodNetworkRow[]): void {
  expect(rows.length).toBeGreaterThan(0);
  for (const row of rows) {
    const rail = RAILS[stack.hardware.pfs.findIndex((pf) => pf.vfs.some((vf) => vf.pciAddress === row.vfPci))];
    if (rail === undefined) throw new Error(`${row.request}: VF ${row.vfPci} is on none of the node's rail PFs`);
    const ip = ipNumber(row.ip);
    expect({
      request: row.request,
      rail: row.rail,
      inRange: ip >= ipNumber(rail.start) && ip <= ipNumber(rail.end),
      container: row.sandboxIps,
      sameRootAsPair: row.pairedRequest === '' || (row.vfRoot !== '' && row.vfRoot === row.pairedRoot),
    }).toEqual({ request: row.request, rail: `${WORKLOADS}/${rail.template}`, inRange: true, container: [row.ip], sameRootAsPair: true });
  }
}

/** §14.2's outcome: nic-0 with gpu-0 on dra0 and nic-1 with gpu-1 on dra1, the pairs on the node's two roots, each VF on its rail. */
export function expectPairsOnTheirRails(stack: RealStack, rows: readonly PodNetworkRow[]): void {
  expect(rows.map((row) => `${row.request}+${row.pairedRequest} ${row.interface}`)).toEqual(['nic-0+gpu-0 dra0', 'nic-1+gpu-1 dra1']);
  expectVfsOnTheirRails(stack, rows);
  expect(new Set(rows.map((row) => row.vfRoot)).size).toBe(2);
}

/** The Pod's (single) container as the kubelet reports it. */
export interface ContainerState {
  readonly id: string;
  readonly restartCount: number;
  readonly ready: boolean;
}

export async function containerOf(stack: RealStack, name: string): Promise<ContainerState> {
  const pod = await stack.admin.get<KubeObject & { status?: { containerStatuses?: { containerID?: string; restartCount?: number; ready?: boolean }[] } }>(
    resourceTypes.pod,
    { namespace: WORKLOADS, name },
  );
  const [status, ...more] = pod.status?.containerStatuses ?? [];
  if (status === undefined || more.length > 0) throw new Error(`${name}: ${String(more.length + (status === undefined ? 0 : 1))} container statuses`);
  return { id: status.containerID ?? '', restartCount: status.restartCount ?? 0, ready: status.ready === true };
}

/**
 * What a running Pod is attached with: its networks annotation, the shadows it owns (name, UID, whether
 * Terminating), and the addresses the container shows on its secondary interfaces (the primary network's
 * eth0 is the node's own business: its host-local hands out the next address when a sandbox is recreated).
 */
export interface Attachments {
  readonly networks: string;
  readonly shadows: readonly string[];
  readonly addresses: Readonly<Record<string, readonly string[]>>;
}

const NOT_SECONDARY = new Set(['lo', 'eth0']);

export async function attachmentsOf(stack: RealStack, name: string): Promise<Attachments> {
  const pod = await stack.admin.get(resourceTypes.pod, { namespace: WORKLOADS, name });
  const shadows = (await stack.admin.list(resourceTypes.networkAttachmentDefinition, { namespace: WORKLOADS, labelSelector: labels.managedBy })).items
    .filter((nad) => nad.metadata.ownerReferences?.some((owner) => owner.uid === pod.metadata.uid) === true)
    .map((nad) => `${nad.metadata.name} ${nad.metadata.uid}${nad.metadata.deletionTimestamp === undefined ? '' : ' Terminating'}`)
    .sort();
  return {
    networks: pod.metadata.annotations?.[annotations.networks] ?? '',
    shadows,
    addresses: Object.fromEntries(
      [...containerAddresses(stack, WORKLOADS, name)].filter(([link]) => !NOT_SECONDARY.has(link)).sort(([a], [b]) => a.localeCompare(b)),
    ),
  };
}

/** The reasons of the Events recorded about the Pod (by the kubelet, the scheduler), oldest first. */
export async function podEventReasons(stack: RealStack, name: string): Promise<string[]> {
  const pod = await stack.admin.get(resourceTypes.pod, { namespace: WORKLOADS, name });
  const events = await stack.admin.list<KubeObject & { regarding?: { uid?: string }; reason?: string; eventTime?: string; deprecatedLastTimestamp?: string }>(
    resourceTypes.event,
    { namespace: WORKLOADS },
  );
  return events.items
    .filter((event) => event.regarding?.uid === pod.metadata.uid)
    .map((event) => ({ reason: event.reason ?? '', at: event.eventTime ?? event.deprecatedLastTimestamp ?? '' }))
    .sort((a, b) => a.at.localeCompare(b.at))
    .map((event) => event.reason);
}

/** Deletes every workload Pod left by a failed test and waits until the kubelet has run them down, so the next test finds the node free. */
export async function deleteWorkloadPods(stack: RealStack): Promise<void> {
  await deleteNamespacePods(stack.admin, WORKLOADS);
}

/**
 * Waits (bounded) until nothing of any workload Pod is left, and asserts it: shadows, IP allocations and
 * leases, VFs away, preparations. A read the API server refuses for a moment (a CRD's storage still
 * initializing answers 429) is read again.
 */
export async function expectNothingLeft(stack: RealStack, timeoutMs = 90_000): Promise<void> {
  let left: Leftovers | undefined;
  await waitFor(
    'nothing to be left of the workload Pods',
    async () => {
      left = await leftovers(stack.leftoverSource);
      return leftoverCount(left) === 0;
    },
    { timeoutMs },
  ).catch(() => undefined);
  expect(left).toEqual(NOTHING_LEFT);
}
