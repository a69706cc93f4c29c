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
import { applyCondition } from '../status/apply-condition.ts';
import { OPERATOR_FIELD_MANAGER } from '../network/sriov-network-reconciler.ts';
import { type DraPlan, type PlanNode, type PolicyVerdict, planDraConfiguration, referenceKey, referencedSriovNetworks } from './dra-plan.ts';
import { foreignFields } from './foreign-fields.ts';
import { GENERATED_BY_LABEL, GENERATED_BY_VALUE, NODE_LABEL, NODE_POLICY_UID_LABEL, nodeLabelValue } from './generated-labels.ts';
import { RESOURCE_POOL_LABEL } from './legacy-pool.ts';
import { type NodeInventory, readNodeInventory } from './node-inventory.ts';
import { type NodePolicy, nodePolicySchema } from './node-policy.ts';
import { type LiveRead, type NadObject, type SourceResolution, type SriovNetworkObject, judgeSource } from './source-reference.ts';

export interface NodePolicyReconcilerOptions extends SourceNadOptions {
  readonly client: KubeClient;
  readonly logger: Logger;
  readonly draEnabled: boolean;
  /** Records each DRAConfigurationReady transition as an Event on the policy, and a node's own trouble on the node. */
  readonly recorder?: EventRecorder;
}

/** What one reconciliation did, for logs, tests and the benchmark. */
export interface NodePolicyReconcileSummary {
  readonly applied: number;
  readonly deleted: number;
  readonly statusWrites: number;
  /** Objects that could not be written, each charged to the policies depending on it. */
  readonly failures: readonly string[];
  readonly plan: DraPlan;
}

async function liveRead<T>(read: () => Promise<T>): Promise<LiveRead<T>> {
  try {
    return { kind: 'found', object: await read() };
  } catch (error) {
    if (isApiError(error, 'NotFound')) return { kind: 'not-found' };
    if (isApiError(error, 'Forbidden')) return { kind: 'forbidden', message: error.message };
    throw error;
  }
}

/** Lists every page of a resource (reads for correctness are live; informers only wake this reconciler). */
async function listAll<T extends KubeObject>(
  client: KubeClient,
  type: Parameters<KubeClient['list']>[0],
  options: { namespace?: string; labelSelector?: string },
  signal?: AbortSignal,
): Promise<T[]> {
  const items: T[] = [];
  let token: string | undefined;
  do {
    const page = await client.list<T>(type, { ...options, limit: 500, ...(token === undefined ? {} : { continue: token }), signal });
    items.push(...page.items);
    token = page.metadata.continue === '' ? undefined : page.metadata.continue;
  } while (token !== undefined);
  return items;
}

/** Reads every referenced SriovNetwork and, when it renders, its source NAD, live (§12.2.3). */
async function resolveSources(
  policies: readonly NodePolicy[],
  options: NodePolicyReconcilerOptions,
  signal?: AbortSignal,
): Promise<Map<string, SourceResolution>> {
  const { client } = options;
  const sources = new Map<string, SourceResolution>();
  await Promise.all(
    referencedSriovNetworks(policies, options.operatorNamespace).map(async (reference) => {
      const network = await liveRead(() => client.get<SriovNetworkObject>(resourceTypes.sriovNetwork, reference, signal));
      const nads = new Map<string, LiveRead<NadObject>>();
      if (network.kind === 'found') {
        const rendered = renderSourceNad(network.object, options);
        if (rendered.ok) {
          const at = { namespace: rendered.value.namespace, name: rendered.value.name };
          nads.set(referenceKey(at), await liveRead(() => client.get<NadObject>(resourceTypes.networkAttachmentDefinition, at, signal)));
        }
      }
      sources.set(
        referenceKey(reference),
        judgeSource(reference, network, (at) => nads.get(referenceKey(at)) ?? { kind: 'not-found' }, options),
      );
    }),
  );
  return sources;
}

/** What this operator generated, by kind: a per-policy or pool DeviceAttributes, or a node's SriovResourcePolicy. */
function isOurs(object: KubeObject, kind: 'policy' | 'pool' | 'node'): boolean {
  const labels = object.metadata.labels ?? {};
  if (labels[GENERATED_BY_LABEL] !== GENERATED_BY_VALUE) return false;
  if (kind === 'policy') return labels[NODE_POLICY_UID_LABEL] !== undefined;
  if (kind === 'pool') return labels[RESOURCE_POOL_LABEL] !== undefined && labels[NODE_POLICY_UID_LABEL] === undefined;
  return true;
}

const same = jsonEqualIgnoringKeyOrder;

/**
 * One reconciliation of every SriovNetworkNodePolicy of the operator namespace (§12.2.2–12.2.6): live reads,
 * one plan, then the writes in the order that never exposes a stale or partial mapping — ready per-policy
 * DeviceAttributes first, withheld ones deleted, then the per-node SriovResourcePolicies, then objects no
 * policy needs any more — and last DRAConfigurationReady, which says True only when every object the
 * policy depends on was written. The operator is the sole owner of what it generates: writes are forced
 * server-side applies under its field manager, and what another manager added is removed, so a hand edit
 * never stays published (§12.2: users do not edit generated objects); an object of the right name this
 * operator did not generate is never adopted. A failed write fails only the policies depending on it.
 */
export async function reconcileNodePolicies(options: NodePolicyReconcilerOptions, signal?: AbortSignal): Promise<NodePolicyReconcileSummary> {
  const { client, logger, operatorNamespace } = options;
  const [rawPolicies, nodes, states] = await Promise.all([
    listAll<KubeObject>(client, resourceTypes.sriovNetworkNodePolicy, { namespace: operatorNamespace }, signal),
    listAll<KubeObject>(client, resourceTypes.node, {}, signal),
    listAll<KubeObject>(client, resourceTypes.sriovNetworkNodeState, { namespace: operatorNamespace }, signal),
  ]);
  const policies: NodePolicy[] = [];
  for (const raw of rawPolicies) {
    const parsed = nodePolicySchema.safeParse(raw);
    // The CRD schema makes this unreachable for stored objects; a policy that still fails is left alone and logged.
    if (parsed.success) policies.push(raw as unknown as NodePolicy);
    else logger.warn({ policy: raw.metadata.name, problem: parsed.error.issues[0]?.message }, 'SriovNetworkNodePolicy skipped: unreadable');
  }
  const inventories = new Map<string, NodeInventory | { problem: string }>();
  for (const state of states) {
    const read = readNodeInventory(state);
    inventories.set(state.metadata.name, read.ok ? read.inventory : { problem: read.problem });
  }
  const planNodes: PlanNode[] = nodes.map((node) => ({ name: node.metadata.name, labels: node.metadata.labels ?? {} }));
  const sources = options.draEnabled ? await resolveSources(policies, options, signal) : new Map<string, SourceResolution>();
  const plan = planDraConfiguration({ ...options, policies, nodes: planNodes, inventories, sources });

  let applied = 0;
  let deleted = 0;
  const failed = new Map<string, string>();
  const apply = async (type: ResourceType, body: Record<string, unknown>, existing: KubeObject | undefined): Promise<void> => {
    const metadata = body['metadata'] as { name: string; namespace: string; labels: Record<string, string> };
    if (existing !== undefined && same(existing['spec'], body['spec']) && same(existing.metadata.labels, metadata.labels)) return;
    const at = { namespace: metadata.namespace, name: metadata.name };
    try {
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
      await client.delete(type, { namespace: object.metadata.namespace, name: object.metadata.name }, { uid: object.metadata.uid, signal });
      deleted += 1;
    } catch (error) {
      if (!isApiError(error, 'NotFound')) failed.set(object.metadata.name, `deleting ${object.metadata.name}: ${String(error)}`);
    }
  };

  const existingAttributes = new Map(
    (await listAll<KubeObject>(client, resourceTypes.deviceAttributes, { namespace: operatorNamespace }, signal)).map((object) => [
      object.metadata.name,
      object,
    ]),
  );
  const existingPolicies = new Map(
    (await listAll<KubeObject>(client, resourceTypes.sriovResourcePolicy, { namespace: operatorNamespace }, signal)).map((object) => [
      object.metadata.name,
      object,
    ]),
  );

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
        failed.set(name, `DeviceAttributes ${operatorNamespace}/${name} exists and was not generated by this operator; it is not adopted`);
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
      failed.set(node, `SriovResourcePolicy ${operatorNamespace}/${node} exists and was not generated by this operator; it is not adopted`);
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
        { signal, recorder: options.recorder },
      );
      if (write.change !== 'unchanged') statusWrites += 1;
    } catch (error) {
      failed.set(`status of ${policy.metadata.name}`, String(error));
    }
  }
  // 6. A node's own trouble is reported on that node; the recorder folds a repeat into the first Event's series.
  const nodesByName = new Map(nodes.map((node) => [node.metadata.name, node]));
  for (const problem of plan.nodeProblems) {
    const node = nodesByName.get(problem.node);
    if (node === undefined) continue;
    void options.recorder?.record(
      { apiVersion: 'v1', kind: 'Node', name: node.metadata.name, uid: node.metadata.uid },
      { type: 'Warning', reason: problem.reason, action: 'Reconcile', note: problem.message },
    );
  }
  if (failed.size > 0) logger.warn({ failures: [...failed.values()] }, 'node-policy reconciliation left writes undone; retrying');
  return { applied, deleted, statusWrites, failures: [...failed.values()], plan };
}
