import { type DeviceAttributeValue, type Result, SriovDraError } from '@sriov-dra/contract';
import type { KubeClient } from '@sriov-dra/k8s';
import { type AllocatedClaim, type ResultVfConfig, effectiveVfConfigs } from '../config/claim-vf-configs.ts';
import type { ManagedBinding } from '../checkpoint/checkpoint-record.ts';
import { type ManagedAllocation, type NeighbourDevice, planManagedBindings } from './binding-plan.ts';
import { type ConsumerClaim, parseConsumerClaim } from './consumer-objects.ts';
import { resolveNetworkTemplate } from './network-template.ts';
import { ownedResults } from './owned-results.ts';
import type { PlannedBinding } from './planned-binding.ts';
import type { ResolvedConsumer } from './resolve-pod-for-claim.ts';
import { type SourceTemplate, readSourceTemplate } from './source-template.ts';

export interface PodPlanContext {
  readonly client: KubeClient;
  readonly node: { readonly name: string; readonly uid: string };
  readonly driverName: string;
  /** The devices of the last publication, with the merged attributes the scheduler saw (§5.2 step 2). */
  readonly eligible: ReadonlyMap<string, { readonly attributes: Readonly<Record<string, DeviceAttributeValue>> }>;
  /** The VF behind a device name, from discovery. */
  pciOf(device: string): string | undefined;
  /** The managed bindings the checkpoint holds for a claim of this Pod, or undefined when the claim is not prepared. */
  recorded(claimUID: string): readonly ManagedBinding[] | undefined;
  readonly signal?: AbortSignal;
}

function unwrap<T>(result: Result<T>): T {
  if (!result.ok) throw result.error;
  return result.value;
}

/**
 * §8.1 step 1 for one claim of a verified Pod. Only this claim is judged now: its devices must be in
 * the current publication, its VfConfigs and templates resolve, and each distinct source NAD is read
 * once. The Pod's other claims are numbered with it (§6.5) so interface names are the same whichever
 * claim the kubelet prepares first: a prepared claim with the bindings its checkpoint froze (§5.4, §5.2
 * step 2, §12.2.5 step 4 — a later template deletion or policy change is never held against it, nor
 * against this claim), a claim not prepared yet with its allocation alone. The bindings of `claimUID`
 * are returned by device name, to be persisted by this prepare. Everything refused here is refused
 * before any VF is touched.
 */
export async function planClaimBindings(
  consumer: ResolvedConsumer,
  claimUID: string,
  currentClaim: unknown,
  context: PodPlanContext,
): Promise<ReadonlyMap<string, PlannedBinding>> {
  const { pod } = consumer;
  const allocations: ManagedAllocation[] = [];
  const neighbours: NeighbourDevice[] = [];
  for (const reference of consumer.claims) {
    const at = { kind: 'ResourceClaim', namespace: pod.namespace, name: reference.name, uid: reference.uid };
    const aliases = reference.podClaimNames;
    const recorded = reference.uid === claimUID ? undefined : context.recorded(reference.uid);
    if (recorded !== undefined) {
      for (const binding of recorded) {
        const claim = { uid: binding.claimUID, namespace: binding.claimNamespace, name: binding.claimName, aliases };
        for (const request of binding.requestNames)
          neighbours.push({ claim, request, pool: binding.pool, device: binding.device, ifName: '', recorded: binding });
      }
      continue;
    }
    // Resolution read every claim it verified; one missing here was never verified and is not planned.
    const raw = reference.uid === claimUID ? currentClaim : consumer.otherClaims.get(reference.name);
    if (raw === undefined) throw new SriovDraError('ConsumerMismatch', 'the claim was not read with the Pod it belongs to', { object: at });
    const claim = unwrap(parseConsumerClaim(raw, at));
    if (claim.uid !== reference.uid) throw new SriovDraError('ObjectReplaced', `the Pod's claim is now UID ${claim.uid}`, { object: at });
    const configs = unwrap(effectiveVfConfigs(raw as AllocatedClaim));
    if (reference.uid !== claimUID) {
      for (const result of driverResults(claim, context.driverName)) {
        neighbours.push({
          claim: { uid: claim.uid, namespace: claim.namespace, name: claim.name, aliases },
          ...result,
          ifName: configOf(configs, result)?.ifName ?? '',
        });
      }
      continue;
    }
    allocations.push(...(await planned(claim, aliases, configs, context, pod.namespace)));
  }
  const plan = unwrap(
    planManagedBindings({
      node: context.node,
      pod: { namespace: pod.namespace, name: pod.name, uid: pod.uid, annotations: pod.annotations },
      allocations,
      neighbours,
    }),
  );
  return new Map(plan.bindings.map(({ binding }) => [binding.device, binding]));
}

function configOf(
  configs: readonly ResultVfConfig[],
  result: { readonly request: string; readonly pool: string; readonly device: string },
): ResultVfConfig['config'] | undefined {
  return configs.find((entry) => entry.result.request === result.request && entry.result.pool === result.pool && entry.result.device === result.device)?.config;
}

/** A claim's allocation results of this driver, as allocated: a neighbour is numbered, never judged. */
function driverResults(claim: ConsumerClaim, driverName: string): { request: string; pool: string; device: string }[] {
  return (claim.allocation?.results ?? []).filter((result) => result.driver === driverName).map(({ request, pool, device }) => ({ request, pool, device }));
}

/** The claim being prepared: each owned device eligible now, with its template resolved and read (§5.2). */
async function planned(
  claim: ConsumerClaim,
  aliases: readonly string[],
  configs: readonly ResultVfConfig[],
  context: PodPlanContext,
  podNamespace: string,
): Promise<ManagedAllocation[]> {
  const { client, signal } = context;
  const at = { kind: 'ResourceClaim', namespace: claim.namespace, name: claim.name, uid: claim.uid };
  const snapshot = { pool: context.node.name, devices: new Set(context.eligible.keys()) };
  const sources = new Map<string, Promise<SourceTemplate>>();
  const allocations: ManagedAllocation[] = [];
  for (const result of unwrap(ownedResults(claim, context.driverName, snapshot))) {
    const object = { ...at, field: `status.allocation.devices.results[${result.request}/${result.device}]` };
    const config = configOf(configs, result);
    const attributes = context.eligible.get(result.device)?.attributes;
    const pciAddress = context.pciOf(result.device);
    if (config === undefined || attributes === undefined || pciAddress === undefined) {
      throw new SriovDraError('DeviceNotEligible', `device ${result.pool}/${result.device} is not published by this node any more`, { object });
    }
    const reference = unwrap(resolveNetworkTemplate({ deviceAttributes: attributes, vfConfig: config, podNamespace, object }));
    const key = `${reference.namespace}/${reference.name}`;
    let source = sources.get(key);
    if (source === undefined) {
      source = readSourceTemplate(client, reference, signal);
      sources.set(key, source);
    }
    allocations.push({
      claim: { uid: claim.uid, namespace: claim.namespace, name: claim.name, aliases },
      request: result.request,
      driver: context.driverName,
      pool: result.pool,
      device: result.device,
      pciAddress,
      ifName: config.ifName,
      source: await source,
    });
  }
  return allocations;
}
