import { type DeviceAttributeValue, type Result, SriovDraError } from '@sriov-dra/contract';
import type { KubeClient } from '@sriov-dra/k8s';
import { type AllocatedClaim, effectiveVfConfigs } from '../config/claim-vf-configs.ts';
import { type ManagedAllocation, planManagedBindings } from './binding-plan.ts';
import { parseConsumerClaim } from './consumer-objects.ts';
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
  readonly signal?: AbortSignal;
}

function unwrap<T>(result: Result<T>): T {
  if (!result.ok) throw result.error;
  return result.value;
}

/**
 * §8.1 step 1 for one claim of a verified Pod: the binding plan of all the Pod's claims together — every
 * one as resolution just read it live, the Pod's annotations likewise, each device's template resolved from its published attributes and its request's
 * VfConfig, each distinct source NAD read once — so interface names are the same whichever claim the
 * kubelet prepares first; the bindings of `claimUID` are returned by device name, to be persisted by the
 * prepare of that claim alone (the other claims' records, once written, are never re-rendered).
 * Everything refused here is refused before any VF is touched.
 */
export async function planClaimBindings(
  consumer: ResolvedConsumer,
  claimUID: string,
  currentClaim: unknown,
  context: PodPlanContext,
): Promise<ReadonlyMap<string, PlannedBinding>> {
  const { client, signal } = context;
  const { pod } = consumer;
  const snapshot = { pool: context.node.name, devices: new Set(context.eligible.keys()) };
  const sources = new Map<string, Promise<SourceTemplate>>();
  const allocations: ManagedAllocation[] = [];
  for (const reference of consumer.claims) {
    const at = { kind: 'ResourceClaim', namespace: pod.namespace, name: reference.name, uid: reference.uid };
    // Resolution read every claim it verified; one missing here was never verified and is not planned.
    const raw = reference.uid === claimUID ? currentClaim : consumer.otherClaims.get(reference.name);
    if (raw === undefined) throw new SriovDraError('ConsumerMismatch', 'the claim was not read with the Pod it belongs to', { object: at });
    const claim = unwrap(parseConsumerClaim(raw, at));
    if (claim.uid !== reference.uid) throw new SriovDraError('ObjectReplaced', `the Pod's claim is now UID ${claim.uid}`, { object: at });
    const configs = unwrap(effectiveVfConfigs(raw as AllocatedClaim));
    for (const result of unwrap(ownedResults(claim, context.driverName, snapshot))) {
      const object = { ...at, field: `status.allocation.devices.results[${result.request}/${result.device}]` };
      const config = configs.find(
        (entry) => entry.result.request === result.request && entry.result.pool === result.pool && entry.result.device === result.device,
      )?.config;
      const attributes = context.eligible.get(result.device)?.attributes;
      const pciAddress = context.pciOf(result.device);
      if (config === undefined || attributes === undefined || pciAddress === undefined) {
        throw new SriovDraError('DeviceNotEligible', `device ${result.pool}/${result.device} is not published by this node any more`, { object });
      }
      const reference = unwrap(resolveNetworkTemplate({ deviceAttributes: attributes, vfConfig: config, podNamespace: pod.namespace, object }));
      const key = `${reference.namespace}/${reference.name}`;
      let source = sources.get(key);
      if (source === undefined) {
        source = readSourceTemplate(client, reference, signal);
        sources.set(key, source);
      }
      allocations.push({
        claim: { uid: claim.uid, namespace: claim.namespace, name: claim.name, aliases: referenceAliases(consumer, claim.uid) },
        request: result.request,
        driver: context.driverName,
        pool: result.pool,
        device: result.device,
        pciAddress,
        ifName: config.ifName,
        source: await source,
      });
    }
  }
  const plan = unwrap(
    planManagedBindings({
      node: context.node,
      pod: { namespace: pod.namespace, name: pod.name, uid: pod.uid, annotations: pod.annotations },
      allocations,
    }),
  );
  return new Map(plan.bindings.filter(({ binding }) => binding.claimUID === claimUID).map(({ binding }) => [binding.device, binding]));
}

function referenceAliases(consumer: ResolvedConsumer, claimUID: string): readonly string[] {
  return consumer.claims.find((reference) => reference.uid === claimUID)?.podClaimNames ?? [];
}
