// §18.3's population at its intended size, without the processes that would make it: a Pod per node,
// each with one claim of eight VFs, one per rail, and the eight shadow NADs the driver would render for
// it — built by the driver's own planShadow (labels, binding annotation, finalizer, owner reference to
// the Pod) from the rail's source NAD as stored — and the Pod's networks annotation naming them.
import { randomUUID } from 'node:crypto';
import { DRIVER_NAME } from '@sriov-dra/contract';
import { type ShadowPlanInput, planShadow } from '@sriov-dra/dra-driver';
import { type KubeClient, contentTypes, resourceTypes } from '@sriov-dra/k8s';
import { createNamespace } from '@sriov-dra/k8s/testing';

type SourceTemplate = ShadowPlanInput['source'];

export const RAILS_PER_POD = 8;

export interface PopulationShape {
  /** Workload namespaces; Pod i lives in namespace i mod namespaces. */
  readonly namespaces: number;
}

export interface SimulatedNode {
  readonly name: string;
  readonly uid: string;
}

/** The rails' source NAD configuration: sriov with Whereabouts, as the operator renders a SriovNetwork's. */
export function railSourceConfig(rail: number): string {
  return JSON.stringify({
    cniVersion: '1.0.0',
    name: `rail-${String(rail)}`,
    type: 'sriov',
    vlan: 100 + rail,
    spoofchk: 'on',
    trust: 'off',
    ipam: {
      type: 'whereabouts',
      range: `10.${String(rail)}.0.0/16`,
      configuration_path: '/etc/cni/net.d/whereabouts.d/whereabouts.conf',
    },
  });
}

export function workloadNamespace(shape: PopulationShape, pod: number): string {
  return `workloads-${String(pod % shape.namespaces)}`;
}

/** The node's VF on rail r: function 2 of the rail's PF, one PF per PCIe bus as on a DGX-class host. */
function vfOf(rail: number): { pciAddress: string; device: string } {
  const bus = (0x1b + rail * 0x10).toString(16).padStart(2, '0');
  return { pciAddress: `0000:${bus}:00.2`, device: `0000-${bus}-00-2` };
}

/** The eight shadows of one Pod, as the driver's NodePrepareResources would create them. */
export function podShadows(
  pod: { namespace: string; name: string; uid: string },
  node: SimulatedNode,
  claimUID: string,
  sources: readonly SourceTemplate[],
): Record<string, unknown>[] {
  return sources.map((source, rail) => {
    const { pciAddress, device } = vfOf(rail);
    const planned = planShadow({ node, pod, claimUID, driver: DRIVER_NAME, pool: node.name, device, pciAddress, interface: `dra${String(rail)}`, source });
    if (!planned.ok) throw new Error(`the driver refused to plan the shadow of ${pod.namespace}/${pod.name} rail ${String(rail)}: ${planned.error.message}`);
    return planned.value.shadowNad;
  });
}

/** The networks annotation the driver leaves on the Pod: one selection per shadow, compact JSON. */
export function networksAnnotation(shadows: readonly Record<string, unknown>[]): string {
  return JSON.stringify(
    shadows.map((shadow, rail) => {
      const metadata = shadow['metadata'] as { name: string; namespace: string };
      return { name: metadata.name, namespace: metadata.namespace, interface: `dra${String(rail)}` };
    }),
  );
}

/** A running tally of what has been created, so a step adds only the difference. */
export interface Population {
  readonly shape: PopulationShape;
  readonly nodes: SimulatedNode[];
  /** Each namespace's rail source NADs, read back as stored. */
  readonly sources: Map<string, SourceTemplate[]>;
  pods: number;
}

async function createSources(client: KubeClient, namespace: string): Promise<SourceTemplate[]> {
  const sources: SourceTemplate[] = [];
  for (let rail = 0; rail < RAILS_PER_POD; rail++) {
    const config = railSourceConfig(rail);
    const created = await client.create(
      resourceTypes.networkAttachmentDefinition,
      { apiVersion: 'k8s.cni.cncf.io/v1', kind: 'NetworkAttachmentDefinition', metadata: { name: `rail-${String(rail)}` }, spec: { config } },
      { namespace },
    );
    sources.push({ namespace, name: `rail-${String(rail)}`, uid: created.metadata.uid, resourceVersion: created.metadata.resourceVersion, config });
  }
  return sources;
}

/** The workload namespaces with their rail sources; no Pod yet. */
export async function startPopulation(client: KubeClient, shape: PopulationShape): Promise<Population> {
  const sources = new Map<string, SourceTemplate[]>();
  for (let index = 0; index < shape.namespaces; index++) {
    const namespace = workloadNamespace(shape, index);
    await createNamespace(client, namespace);
    sources.set(namespace, await createSources(client, namespace));
  }
  return { shape, nodes: [], sources, pods: 0 };
}

async function createPod(client: KubeClient, population: Population, index: number): Promise<void> {
  const namespace = workloadNamespace(population.shape, index);
  const sources = population.sources.get(namespace);
  if (sources === undefined) throw new Error(`namespace ${namespace} has no rail sources`);
  const node: SimulatedNode = { name: `node-${String(index)}`, uid: randomUUID() };
  population.nodes[index] = node;
  const name = `trainer-${String(index)}`;
  const pod = await client.create(
    resourceTypes.pod,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels: { app: 'trainer' } },
      spec: {
        nodeName: node.name,
        resourceClaims: [{ name: 'rails', resourceClaimTemplateName: 'eight-rails' }],
        containers: [{ name: 'trainer', image: 'registry.example/trainer:1', resources: { claims: [{ name: 'rails' }] } }],
      },
    },
    { namespace },
  );
  const shadows = podShadows({ namespace, name, uid: pod.metadata.uid }, node, randomUUID(), sources);
  for (const shadow of shadows) await client.create(resourceTypes.networkAttachmentDefinition, shadow, { namespace });
  await client.patch(
    resourceTypes.pod,
    { namespace, name },
    { metadata: { annotations: { 'k8s.v1.cni.cncf.io/networks': networksAnnotation(shadows) } } },
    contentTypes.mergePatch,
  );
}

/** Adds Pods (and their shadows) until `pods` exist, `concurrency` Pods at a time. */
export async function growPopulation(client: KubeClient, population: Population, pods: number, concurrency = 16): Promise<void> {
  while (population.pods < pods) {
    const batch = Array.from({ length: Math.min(concurrency, pods - population.pods) }, (_unused, offset) => population.pods + offset);
    await Promise.all(batch.map((index) => createPod(client, population, index)));
    population.pods += batch.length;
  }
}
