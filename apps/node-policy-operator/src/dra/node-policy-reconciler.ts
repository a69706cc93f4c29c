import type { Logger } from 'pino';
import {
  DRA_CONFIGURATION_READY,
  DRIVER_API_VERSION,
  SRIOV_RESOURCE_POLICY_KIND,
  draConfigurationReasons,
  jsonEqualIgnoringKeyOrder,
} from '@sriov-dra/contract';
import {
  type EventRecorder,
  type KubeClient,
  type KubeObject,
  type ResourceType,
  contentTypes,
  identityPreconditions,
  isApiError,
  resourceTypes,
} from '@sriov-dra/k8s';
import { type SourceNadOptions, renderSourceNad } from '../render/source-nad.ts';
import type { OperatorInformers } from '../controller/shared-informers.ts';
import type { DraSchemaFence } from '../crds/dra-schema-guard.ts';
import { applyCondition } from '../status/apply-condition.ts';
import { OPERATOR_FIELD_MANAGER } from '../network/sriov-network-reconciler.ts';
import { type DraPlan, type PlanNode, type PolicyVerdict, planDraConfiguration, referenceKey, referencedSriovNetworks } from './dra-plan.ts';
import { foreignFields } from './foreign-fields.ts';
import { GENERATED_BY_LABEL, GENERATED_BY_VALUE, NODE_LABEL, NODE_POLICY_UID_LABEL, nodeLabelValue } from './generated-labels.ts';
import { RESOURCE_POOL_LABEL } from './legacy-pool.ts';
import { type NodeInventory, readNodeInventory } from './node-inventory.ts';
import { type NodePolicy, nodePolicySchema } from './node-policy.ts';
import { readLive } from './live-reads.ts';
import type { NodeProblemReports } from './node-problem-reports.ts';
import { type LiveRead, type NadObject, type SourceResolution, type SriovNetworkObject, judgeSource } from './source-reference.ts';

const same = jsonEqualIgnoringKeyOrder;

export type NodePolicyInformers = Pick<
  OperatorInformers,
  'policies' | 'nodes' | 'nodeStates' | 'sriovNetworks' | 'nads' | 'deviceAttributes' | 'resourcePolicies'
>;

export interface NodePolicyReconcilerOptions extends SourceNadOptions {
  readonly client: KubeClient;
  readonly logger: Logger;
  readonly draEnabled: boolean;
  /** The synced caches this reconciler reads the cluster from; only what it is about to publish is read live. */
  readonly informers: NodePolicyInformers;
  /** Records each DRAConfigurationReady transition as an Event on the policy, and a node's own trouble on the node. */
  readonly recorder?: EventRecorder;
  /** What was reported on which node, across reconciliations: a lasting problem is recorded once. */
  readonly nodeProblems: NodeProblemReports;
  /** Asked after the caches were read and before the first write; false: nothing is written (see DraSchemaFence). */
  readonly fence?: DraSchemaFence;
}

/** What one reconciliation did, for logs, tests and the benchmark. */
export interface NodePolicyReconcileSummary {
  readonly applied: number;
  readonly deleted: number;
  readonly statusWrites: number;
  /** Referenced SriovNetworks read live before their sources were published (§12.2.3). */
  readonly liveReads: number;
  /** Objects that could not be written, each charged to the policies depending on it. */
  readonly failures: readonly string[];
  readonly plan: DraPlan;
  /** The fence said the policies read may have lost spec.dra to a CRD change: nothing was written. */
  readonly fenced: boolean;
}

function cachedRead<T>(object: T | undefined): LiveRead<T> {
  return object === undefined ? { kind: 'not-found' } : { kind: 'found', object };
}

/** Judges every referenced SriovNetwork and its source NAD as the caches hold them. */
function judgeCachedSources(references: readonly { namespace: string; name: string }[], options: NodePolicyReconcilerOptions): Map<string, SourceResolution> {
  const { informers } = options;
  return new Map(
    references.map((reference) => [
      referenceKey(reference),
      judgeSource(
        reference,
        cachedRead<SriovNetworkObject>(informers.sriovNetworks.get(referenceKey(reference))),
        (at) => cachedRead<NadObject>(informers.nads.get(referenceKey(at))),
        options,
      ),
    ]),
  );
}

/** Reads the given SriovNetworks and, where they render, their source NADs live and judges them (§12.2.3). */
async function judgeLiveSources(
  references: readonly { namespace: string; name: string }[],
  options: NodePolicyReconcilerOptions,
  signal?: AbortSignal,
): Promise<Map<string, SourceResolution>> {
  const { client } = options;
  const networks = await readLive<SriovNetworkObject>(client, resourceTypes.sriovNetwork, references, signal);
  const places = references.flatMap((reference) => {
    const network = networks.get(referenceKey(reference));
    if (network?.kind !== 'found') return [];
    const rendered = renderSourceNad(network.object, options);
    return rendered.ok ? [{ namespace: rendered.value.namespace, name: rendered.value.name }] : [];
  });
  const nads = await readLive<NadObject>(client, resourceTypes.networkAttachmentDefinition, places, signal);
  return new Map(
    references.map((reference) => [
      referenceKey(reference),
      judgeSource(
        reference,
        networks.get(referenceKey(reference)) ?? { kind: 'not-found' },
        (at) => nads.get(referenceKey(at)) ?? { kind: 'not-found' },
        options,
      ),
    ]),
  );
}

/** Whether `existing` differs from the generated `body` in what this operator owns: its spec and labels. */
function differs(existing: KubeObject | undefined, body: Record<string, unknown>): boolean {
  const labels = (body['metadata'] as { labels: Record<string, string> }).labels;
  return existing === undefined || !same(existing['spec'], body['spec']) || !same(existing.metadata.labels, labels);
}

/**
 * The references whose source the plan is about to publish: those of the per-policy DeviceAttributes it
 * would write, whose cached judgement must be confirmed live first.
 */
function referencesToConfirm(plan: DraPlan, policies: readonly NodePolicy[], existing: ReadonlyMap<string, KubeObject>, operatorNamespace: string) {
  const byUID = new Map(policies.map((policy) => [policy.metadata.uid, policy]));
  return plan.deviceAttributes.flatMap((body) => {
    const metadata = body['metadata'] as { name: string; labels: Record<string, string> };
    const policy = byUID.get(metadata.labels[NODE_POLICY_UID_LABEL] ?? '');
    if (policy === undefined || !differs(existing.get(metadata.name), body)) return [];
    return referencedSriovNetworks([policy], operatorNamespace);
  });
}

/** What this operator generated, by kind: a per-policy or pool DeviceAttributes, or a node's SriovResourcePolicy. */
/**
 * The SR-IOV network operator's own DRA provider labels what it generates as this operator does, and owns
 * it as the controller of its SriovOperatorConfig: such an object is upstream's, whatever its label says.
 */
function generatedByUpstream(object: KubeObject): boolean {
  return (object.metadata.ownerReferences ?? []).some((owner) => owner['kind'] === 'SriovOperatorConfig' && owner['controller'] === true);
}

/** Why an object at a name this operator needs is left alone, and what to do. */
function notAdopted(kind: string, object: KubeObject): string {
  const at = `${kind} ${object.metadata.namespace ?? ''}/${object.metadata.name}`;
  return generatedByUpstream(object)
    ? `${at} was generated by the SR-IOV network operator's own DRA provider (its SriovOperatorConfig owns it); it is not adopted: turn that provider off (its dynamicResourceAllocation feature gate) so that one operator generates the DRA objects`
    : `${at} exists and was not generated by this operator; it is not adopted`;
}

function isOurs(object: KubeObject, kind: 'policy' | 'pool' | 'node'): boolean {
  const labels = object.metadata.labels ?? {};
  if (labels[GENERATED_BY_LABEL] !== GENERATED_BY_VALUE || generatedByUpstream(object)) return false;
  if (kind === 'policy') return labels[NODE_POLICY_UID_LABEL] !== undefined;
  if (kind === 'pool') return labels[RESOURCE_POOL_LABEL] !== undefined && labels[NODE_POLICY_UID_LABEL] === undefined;
  return true;
}

/**
 * One reconciliation of every SriovNetworkNodePolicy of the operator namespace (§12.2.2–12.2.6): the
 * informers' caches read, one plan — its sources confirmed by live reads where it would publish them — then
 * the writes in the order that never exposes a stale or partial mapping — ready per-policy
 * DeviceAttributes first, withheld ones deleted, then the per-node SriovResourcePolicies, then objects no
 * policy needs any more — and last DRAConfigurationReady, which says True only when every object the
 * policy depends on was written. The operator is the sole owner of what it generates: writes are forced
 * server-side applies under its field manager, and what another manager added is removed, so a hand edit
 * never stays published (§12.2: users do not edit generated objects); an object of the right name this
 * operator did not generate is never adopted. A failed write fails only the policies depending on it.
 */
export async function reconcileNodePolicies(options: NodePolicyReconcilerOptions, signal?: AbortSignal): Promise<NodePolicyReconcileSummary> {
  const { client, logger, operatorNamespace, informers } = options;
  const rawPolicies = informers.policies.list();
  const nodes = informers.nodes.list();
  const policies: NodePolicy[] = [];
  for (const raw of rawPolicies) {
    const parsed = nodePolicySchema.safeParse(raw);
    // The CRD schema makes this unreachable for stored objects; a policy that still fails is left alone and logged.
    if (parsed.success) policies.push(raw as unknown as NodePolicy);
    else logger.warn({ policy: raw.metadata.name, problem: parsed.error.issues[0]?.message }, 'SriovNetworkNodePolicy skipped: unreadable');
  }
  const inventories = new Map<string, NodeInventory | { problem: string }>();
  for (const state of informers.nodeStates.list()) {
    const read = readNodeInventory(state);
    inventories.set(state.metadata.name, read.ok ? read.inventory : { problem: read.problem });
  }
  const planNodes: PlanNode[] = nodes.map((node) => ({ name: node.metadata.name, labels: node.metadata.labels ?? {} }));
  const existingAttributes = new Map(informers.deviceAttributes.list().map((object) => [object.metadata.name, object]));
  const existingPolicies = new Map(informers.resourcePolicies.list().map((object) => [object.metadata.name, object]));

  // Planned from the caches; a source about to be published is read live first, and if the live judgement
  // differs the plan is made again with it, until everything it would publish was confirmed (§12.2.3).
  let sources = options.draEnabled ? judgeCachedSources(referencedSriovNetworks(policies, operatorNamespace), options) : new Map<string, SourceResolution>();
  let plan = planDraConfiguration({ ...options, policies, nodes: planNodes, inventories, sources });
  const confirmed = new Set<string>();
  for (;;) {
    const due = referencesToConfirm(plan, policies, existingAttributes, operatorNamespace).filter((reference) => !confirmed.has(referenceKey(reference)));
    if (due.length === 0) break;
    const live = await judgeLiveSources(due, options, signal);
    for (const reference of due) confirmed.add(referenceKey(reference));
    const stale = [...live].some(([key, resolution]) => !same(resolution, sources.get(key)));
    sources = new Map([...sources, ...live]);
    if (!stale) break;
    plan = planDraConfiguration({ ...options, policies, nodes: planNodes, inventories, sources });
  }

  // Policies read from the caches while the CRD pruned spec.dra would withdraw what was generated for them. The
  // fence is asked once, before the first write: a reconciliation with nothing to write still makes no request.
  let confirmation: Promise<boolean> | undefined;
  const mayWrite = (): Promise<boolean> => (confirmation ??= options.fence?.(signal) ?? Promise.resolve(true));

  let applied = 0;
  let deleted = 0;
  const failed = new Map<string, string>();
  const apply = async (type: ResourceType, body: Record<string, unknown>, existing: KubeObject | undefined): Promise<void> => {
    const metadata = body['metadata'] as { name: string; namespace: string; labels: Record<string, string> };
    if (!differs(existing, body)) return;
    const at = { namespace: metadata.namespace, name: metadata.name };
    try {
      if (!(await mayWrite())) return;
      const written = await client.patch(type, at, JSON.stringify(body), contentTypes.apply, { fieldManager: OPERATOR_FIELD_MANAGER, force: true, signal });
      applied += 1;
      const strays = foreignFields(written, body);
      if (strays.length > 0) {
        // Behind the preconditions a concurrent write makes this fail, and the next reconciliation recomputes it.
        await client.patch(type, at, [...identityPreconditions(written.metadata), ...strays], contentTypes.jsonPatch, {
          fieldManager: OPERATOR_FIELD_MANAGER,
          signal,
        });
      }
    } catch (error) {
      failed.set(metadata.name, `${metadata.name}: ${String(error)}`);
    }
  };
  const remove = async (type: ResourceType, object: KubeObject): Promise<void> => {
    try {
      if (!(await mayWrite())) return;
      await client.delete(type, { namespace: object.metadata.namespace, name: object.metadata.name }, { uid: object.metadata.uid, signal });
      deleted += 1;
    } catch (error) {
      if (!isApiError(error, 'NotFound')) failed.set(object.metadata.name, `deleting ${object.metadata.name}: ${String(error)}`);
    }
  };

  // 1. Ready per-policy attributes and the legacy pools, before any config selects them.
  const desiredAttributes = new Set<string>();
  for (const [kind, bodies] of [
    ['policy', plan.deviceAttributes],
    ['pool', plan.poolAttributes],
  ] as const) {
    for (const body of bodies) {
      const name = (body['metadata'] as { name: string }).name;
      desiredAttributes.add(name);
      const existing = existingAttributes.get(name);
      if (existing !== undefined && !isOurs(existing, kind)) {
        failed.set(name, notAdopted('DeviceAttributes', existing));
        continue;
      }
      await apply(resourceTypes.deviceAttributes, body, existing);
    }
  }
  // 2. Withheld attributes of policies that still exist go before their configs are (re)published.
  const livePolicyUIDs = new Set(policies.map((policy) => policy.metadata.uid));
  const obsoleteAttributes = [...existingAttributes.values()].filter((object) => isOurs(object, 'policy') && !desiredAttributes.has(object.metadata.name));
  for (const object of obsoleteAttributes) {
    if (livePolicyUIDs.has(object.metadata.labels?.[NODE_POLICY_UID_LABEL] ?? '')) await remove(resourceTypes.deviceAttributes, object);
  }
  // 3. Per-node configs.
  const desiredNodes = new Set<string>();
  for (const { node, spec } of plan.resourcePolicies) {
    desiredNodes.add(node);
    const existing = existingPolicies.get(node);
    if (existing !== undefined && !isOurs(existing, 'node')) {
      failed.set(node, notAdopted('SriovResourcePolicy', existing));
      continue;
    }
    await apply(
      resourceTypes.sriovResourcePolicy,
      {
        apiVersion: DRIVER_API_VERSION,
        kind: SRIOV_RESOURCE_POLICY_KIND,
        metadata: { name: node, namespace: operatorNamespace, labels: { [GENERATED_BY_LABEL]: GENERATED_BY_VALUE, [NODE_LABEL]: nodeLabelValue(node) } },
        spec,
      },
      existing,
    );
  }
  // 4. What no policy needs any more: attributes of deleted policies, pools no legacy policy uses, configs of
  //    nodes no policy selects.
  for (const object of obsoleteAttributes) {
    if (!livePolicyUIDs.has(object.metadata.labels?.[NODE_POLICY_UID_LABEL] ?? '')) await remove(resourceTypes.deviceAttributes, object);
  }
  if (options.draEnabled) {
    for (const object of existingAttributes.values()) {
      if (isOurs(object, 'pool') && !desiredAttributes.has(object.metadata.name)) await remove(resourceTypes.deviceAttributes, object);
    }
    for (const object of existingPolicies.values()) {
      if (isOurs(object, 'node') && !desiredNodes.has(object.metadata.name)) await remove(resourceTypes.sriovResourcePolicy, object);
    }
  }

  // 5. Conditions: a failed write this policy depends on makes it DRAConfigurationSyncFailed.
  let statusWrites = 0;
  for (const policy of policies) {
    const verdict = plan.verdicts.get(policy.metadata.uid);
    if (verdict === undefined) continue;
    const needs = plan.dependencies.get(policy.metadata.uid);
    const blockers = [needs?.deviceAttributes ?? '', ...(needs?.nodes ?? [])].flatMap((name) => {
      const failure = failed.get(name);
      return failure === undefined ? [] : [failure];
    });
    const final: PolicyVerdict =
      blockers.length > 0 && verdict.reason === draConfigurationReasons.applied
        ? { reason: draConfigurationReasons.syncFailed, message: blockers.join('; ') }
        : verdict;
    try {
      const write = await applyCondition(
        client,
        resourceTypes.sriovNetworkNodePolicy,
        policy as NodePolicy & KubeObject,
        {
          type: DRA_CONFIGURATION_READY,
          status: final.reason === draConfigurationReasons.applied ? 'True' : 'False',
          reason: final.reason,
          message: final.message,
          observedGeneration: policy.metadata.generation ?? 0,
        },
        { signal, recorder: options.recorder, mayWrite },
      );
      if (write.change === 'added' || write.change === 'changed') statusWrites += 1;
    } catch (error) {
      failed.set(`status of ${policy.metadata.name}`, String(error));
    }
  }
  // 6. A node's own trouble is reported on that node, once while it lasts.
  options.nodeProblems.report(plan.nodeProblems, new Map(nodes.map((node) => [node.metadata.name, node])), options.recorder);
  if (failed.size > 0) logger.warn({ failures: [...failed.values()] }, 'node-policy reconciliation left writes undone; retrying');
  const fenced = confirmation !== undefined && !(await confirmation.catch(() => true));
  return { applied, deleted, statusWrites, liveReads: confirmed.size, failures: [...failed.values()], plan, fenced };
}
