// Scenario (g): Pods created and deleted continuously, a bounded number at a time, through the whole
// stack. In managed mode each Pod asks for one VF by DeviceClass and gets its rail's network from the
// administrator's mapping; the baseline is the same Pods on plain Multus, each naming a hand-written NAD
// with a static deviceID (one per VF) in its networks annotation and asking DRA for nothing. Readiness is
// creation to CNI ADD done, on one clock (the kubelet simulator runs in this process).
import { performance } from 'node:perf_hooks';
import { annotations } from '@sriov-dra/contract';
import { type KubeClient, resourceTypes } from '@sriov-dra/k8s';
import { waitFor } from '@sriov-dra/k8s/testing';
import type { SimulatedNode } from '../stack/simulated-node.ts';
import { type Stack, WORKLOADS } from '../stack/stack.ts';
import { createClaimTemplate } from './claim-template.ts';
import { RAILS, railConfig } from './gpu-nic-pairs.ts';

export const ONE_VF_TEMPLATE = 'one-rail-vf';

export type ChurnMode = 'managed' | 'static';

export interface ChurnOptions {
  readonly mode: ChurnMode;
  readonly pods: number;
  /** Pods alive at once; at most the node's VF count. */
  readonly concurrency: number;
}

export interface ChurnResult {
  /** Creation to CNI ADD done, per Pod, in milliseconds. */
  readonly readyMs: readonly number[];
  /** Where that time went, per Pod: creation to the kubelet seeing it bound, then to every driver prepared, then to CNI ADD done. */
  readonly phasesMs: readonly { readonly bound: number; readonly prepared: number; readonly added: number }[];
  readonly wallMs: number;
  readonly startedAt: Date;
  readonly endedAt: Date;
}

/** The claim template of a managed churn Pod: one VF of any rail, by the PCIe DeviceClass (§14.2's). */
export async function createOneVfTemplate(admin: KubeClient): Promise<void> {
  await createClaimTemplate(admin, { namespace: WORKLOADS, name: ONE_VF_TEMPLATE }, [{ name: 'nic', deviceClassName: 'sriov-pcie-netdevice' }]);
}

/** The baseline's hand-written NADs: one per VF, its PCI address static, its rail's IPAM. Returns their names. */
export async function createStaticNads(stack: {
  readonly admin: KubeClient;
  readonly node: Pick<SimulatedNode, 'pfs' | 'whereaboutsConfig'>;
}): Promise<string[]> {
  const names: string[] = [];
  for (const [index, pf] of stack.node.pfs.entries()) {
    const rail = RAILS[index];
    if (rail === undefined) continue;
    for (const vf of pf.vfs) {
      const config = { ...(JSON.parse(railConfig(rail, stack.node.whereaboutsConfig)) as Record<string, unknown>), deviceID: vf.pciAddress };
      const name = `static-${vf.pciAddress.replaceAll(/[:.]/g, '-')}`;
      await stack.admin.create(
        resourceTypes.networkAttachmentDefinition,
        { apiVersion: 'k8s.cni.cncf.io/v1', kind: 'NetworkAttachmentDefinition', metadata: { name }, spec: { config: JSON.stringify(config) } },
        { namespace: WORKLOADS },
      );
      names.push(name);
    }
  }
  return names;
}

function churnPod(name: string, network: string | undefined): Record<string, unknown> {
  const managed = network === undefined;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...(managed ? {} : { annotations: { [annotations.networks]: JSON.stringify([{ name: network, interface: 'net1' }]) } }) },
    spec: {
      terminationGracePeriodSeconds: 5,
      containers: [{ name: 'workload', image: 'registry.example.com/app:1', ...(managed ? { resources: { claims: [{ name: 'nic' }] } } : {}) }],
      ...(managed ? { resourceClaims: [{ name: 'nic', resourceClaimTemplateName: ONE_VF_TEMPLATE }] } : {}),
    },
  };
}

async function gone(stack: Stack, name: string): Promise<boolean> {
  return stack.admin.get(resourceTypes.pod, { namespace: WORKLOADS, name }).then(
    () => false,
    () => true,
  );
}

/**
 * Runs `pods` Pods through the stack, `concurrency` at a time: each is created, waited for until its CNI
 * ADD is done, deleted, and waited for until the kubelet completed its deletion. `staticNads` are the
 * baseline's networks, each lent to one Pod at a time.
 */
export async function runChurn(stack: Stack, options: ChurnOptions, staticNads: readonly string[] = []): Promise<ChurnResult> {
  const free = [...staticNads];
  const readyMs: number[] = [];
  const phasesMs: { bound: number; prepared: number; added: number }[] = [];
  const startedAt = new Date();
  const started = performance.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < options.pods) {
      const index = next++;
      const name = `churn-${options.mode}-${String(index)}`;
      const network = options.mode === 'static' ? free.shift() : undefined;
      if (options.mode === 'static' && network === undefined) throw new Error('more static Pods at once than hand-written NADs');
      const created = performance.now();
      const pod = await stack.admin.create(resourceTypes.pod, churnPod(name, network), { namespace: WORKLOADS });
      await waitFor(`${name} to be added`, () => Promise.resolve(stack.kubelet.timeline(pod.metadata.uid)?.added !== undefined), {
        timeoutMs: 120_000,
        describe: () => stack.logTail(),
      });
      const timeline = stack.kubelet.timeline(pod.metadata.uid);
      const added = timeline?.added ?? Number.NaN;
      // A Pod without claims is prepared the moment it is seen.
      const prepared = timeline?.prepared ?? timeline?.seen ?? Number.NaN;
      readyMs.push(added - created);
      phasesMs.push({ bound: (timeline?.seen ?? Number.NaN) - created, prepared: prepared - (timeline?.seen ?? Number.NaN), added: added - prepared });
      await stack.admin.delete(resourceTypes.pod, { namespace: WORKLOADS, name });
      await waitFor(`${name} to be gone`, () => gone(stack, name), { timeoutMs: 120_000, describe: () => stack.logTail() });
      if (network !== undefined) free.push(network);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return { readyMs, phasesMs, wallMs: performance.now() - started, startedAt, endedAt: new Date() };
}

/** Workload objects left in the workloads namespace: Pods and ResourceClaims (generated claims go with their Pods). */
export async function workloadLeftovers(admin: KubeClient): Promise<string[]> {
  const pods = (await admin.list(resourceTypes.pod, { namespace: WORKLOADS })).items.map((pod) => `pod/${pod.metadata.name}`);
  const claims = (await admin.list(resourceTypes.resourceClaim, { namespace: WORKLOADS })).items.map((claim) => `resourceclaim/${claim.metadata.name}`);
  return [...pods, ...claims];
}
