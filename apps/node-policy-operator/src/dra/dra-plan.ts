import {
  type DraConfigurationReason,
  type ResourceFilter,
  type SriovResourcePolicySpec,
  type ValidatedNodePolicyDra,
  NODE_POLICY_DRA_FIELD,
  checkNodePolicyDra,
  draConfigurationReasons,
  isLabelValue,
  validateNodePolicyDra,
} from '@sriov-dra/contract';
import { describeFinding, findingOf } from '../admission/admission-finding.ts';
import { problemList } from '../status/problem-list.ts';
import { GENERATED_BY_LABEL, GENERATED_BY_VALUE, NODE_POLICY_UID_LABEL } from './generated-labels.ts';
import { selectNicVfs, policySelectsNode } from './nic-selection.ts';
import type { NodeInventory } from './node-inventory.ts';
import { DEFAULT_POLICY_NAME, DEFAULT_POLICY_PRIORITY, type NodePolicy } from './node-policy.ts';
import { RESOURCE_POOL_LABEL, buildPoolDeviceAttributes, extendedResourceName, poolName } from './legacy-pool.ts';
import { buildPolicyDeviceAttributes } from './policy-device-attributes.ts';
import type { SourceResolution } from './source-reference.ts';

export interface PlanNode {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
}

export interface DraPlanInput {
  /** Where the policies live and where the generated objects go (the driver reads its policy objects there). */
  readonly operatorNamespace: string;
  /** Device-plugin resource prefix of the compatibility resourceName attribute, e.g. `openshift.io`. */
  readonly resourcePrefix: string;
  /** Whether the DRA provider is deployed; without it spec.dra is validated and staged, nothing is generated. */
  readonly draEnabled: boolean;
  readonly policies: readonly NodePolicy[];
  readonly nodes: readonly PlanNode[];
  /** Per node name: its inventory, or why there is none usable. */
  readonly inventories: ReadonlyMap<string, NodeInventory | { readonly problem: string }>;
  /** Per referenced SriovNetwork (`<namespace>/<name>`): the live judgement of its source NAD. */
  readonly sources: ReadonlyMap<string, SourceResolution>;
}

/**
 * Trouble of one node rather than of a policy: its configs are withdrawn, and it is reported on the node, so
 * a node joining or losing its inventory leaves every policy's condition as it was.
 */
export interface NodeProblem {
  readonly node: string;
  readonly reason: 'NodeInventoryUnavailable' | 'NodeNotSelectable';
  readonly message: string;
}

/** A policy's DRAConfigurationReady before the writes: what the plan found. */
export interface PolicyVerdict {
  readonly reason: DraConfigurationReason;
  readonly message: string;
}

export interface DraPlan {
  /** Complete per-policy DeviceAttributes of the policies whose attributes may be published. */
  readonly deviceAttributes: readonly Record<string, unknown>[];
  /** One pool DeviceAttributes per resourceName that policies without spec.dra still use. */
  readonly poolAttributes: readonly Record<string, unknown>[];
  /**
   * One SriovResourcePolicy per node a policy selects: managed policies select their own object, policies
   * without spec.dra their pool's; empty configs where the node is unsafe.
   */
  readonly resourcePolicies: readonly { readonly node: string; readonly spec: SriovResourcePolicySpec }[];
  /** For each policy with spec.dra (by UID). */
  readonly verdicts: ReadonlyMap<string, PolicyVerdict>;
  readonly nodeProblems: readonly NodeProblem[];
  /** For each policy: the names of the objects it depends on, so a failed write can be charged to it. */
  readonly dependencies: ReadonlyMap<string, { readonly deviceAttributes: string | null; readonly nodes: readonly string[] }>;
}

/** The references a reconciliation must read live: every valid spec.dra reference, deduplicated. */
export function referencedSriovNetworks(policies: readonly NodePolicy[], operatorNamespace: string): { namespace: string; name: string }[] {
  const seen = new Map<string, { namespace: string; name: string }>();
  for (const policy of policies) {
    if (policy.spec.dra === undefined || isDefaultPolicy(policy, operatorNamespace)) continue;
    const validated = validateNodePolicyDra(policy.spec.dra);
    if (validated.ok && validated.value.sriovNetwork !== null) seen.set(referenceKey(validated.value.sriovNetwork), validated.value.sriovNetwork);
  }
  return [...seen.values()];
}

export function referenceKey(reference: { readonly namespace: string; readonly name: string }): string {
  return `${reference.namespace}/${reference.name}`;
}

function isDefaultPolicy(policy: NodePolicy, operatorNamespace: string): boolean {
  return policy.metadata.name === DEFAULT_POLICY_NAME && policy.metadata.namespace === operatorNamespace;
}

/** Upstream's application order: higher priority numbers first, ties by name. The driver matches first-come. */
function byPriority(a: NodePolicy, b: NodePolicy): number {
  const pa = a.spec.priority ?? DEFAULT_POLICY_PRIORITY;
  const pb = b.spec.priority ?? DEFAULT_POLICY_PRIORITY;
  if (pa !== pb) return pa - pb;
  return a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
}

interface Managed {
  readonly policy: NodePolicy;
  readonly dra: ValidatedNodePolicyDra | null;
  /** Set when the policy cannot publish attributes (invalid map, unready reference). */
  blocked: PolicyVerdict | null;
  /** Problems of this policy on a node it selects (conflict, untranslatable selector). */
  nodeProblem: PolicyVerdict | null;
  readonly nodes: string[];
}

/**
 * One plan per reconciliation, shared by attribute and node-config generation (§12.2.4): validation, the
 * reference judgements, per-node translation against the inventory and the overlap check. A policy whose
 * attributes cannot be published keeps its exact filter and selector, so its devices stay unavailable
 * instead of falling through to another config; a node where two policies, one of them managed, select a
 * common VF — or where a managed selector cannot be translated — gets an empty config list, and so does a
 * node without a usable inventory, which is that node's problem and no policy's. Never throws.
 */
export function planDraConfiguration(input: DraPlanInput): DraPlan {
  const verdicts = new Map<string, PolicyVerdict>();
  const dependencies = new Map<string, { deviceAttributes: string | null; nodes: string[] }>();
  const managed: Managed[] = [];
  const nodeProblems: NodeProblem[] = [];
  const sorted = input.policies.filter((policy) => policy.metadata.namespace === input.operatorNamespace).toSorted(byPriority);

  for (const policy of sorted) {
    if (policy.spec.dra === undefined) continue;
    const uid = policy.metadata.uid;
    if (isDefaultPolicy(policy, input.operatorNamespace)) {
      verdicts.set(uid, {
        reason: draConfigurationReasons.invalidAttribute,
        message: `DRABlockOnDefaultPolicy: the bootstrap policy ${DEFAULT_POLICY_NAME} cannot carry spec.dra — remove it and put the attributes on a policy of your own`,
      });
      continue;
    }
    const validated = checkNodePolicyDra(policy.spec.dra, { kind: 'SriovNetworkNodePolicy', namespace: policy.metadata.namespace, name: policy.metadata.name });
    if (!validated.ok) {
      const problems = validated.errors.map((error) => describeFinding(findingOf(error, error.object?.field ?? NODE_POLICY_DRA_FIELD)));
      verdicts.set(uid, { reason: draConfigurationReasons.invalidAttribute, message: problemList(problems) });
      if (input.draEnabled) managed.push({ policy, dra: null, blocked: verdicts.get(uid) ?? null, nodeProblem: null, nodes: [] });
      continue;
    }
    if (!input.draEnabled) {
      verdicts.set(uid, {
        reason: draConfigurationReasons.inactive,
        message: 'spec.dra is valid and stored; the DRA provider is not enabled, so nothing is generated',
      });
      continue;
    }
    const reference = validated.value.sriovNetwork;
    const source = reference === null ? null : input.sources.get(referenceKey(reference));
    const blocked =
      source === undefined
        ? { reason: draConfigurationReasons.syncFailed, message: 'the referenced SriovNetwork was not read in this reconciliation' }
        : source === null || source.ok
          ? null
          : { reason: source.reason, message: source.message };
    managed.push({ policy, dra: validated.value, blocked, nodeProblem: null, nodes: [] });
  }
  if (!input.draEnabled) return { deviceAttributes: [], poolAttributes: [], resourcePolicies: [], verdicts, nodeProblems, dependencies };
  const legacy = sorted.filter((policy) => policy.spec.dra === undefined && !isDefaultPolicy(policy, input.operatorNamespace));

  const resourcePolicies: { node: string; spec: SriovResourcePolicySpec }[] = [];
  const managedUIDs = new Set(managed.map(({ policy }) => policy.metadata.uid));
  for (const node of input.nodes.toSorted((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const onNode = managed.filter(({ policy }) => policySelectsNode(policy, node.labels));
    if (onNode.length === 0 && !legacy.some((policy) => policySelectsNode(policy, node.labels))) continue;
    for (const entry of onNode) entry.nodes.push(node.name);
    // The driver selects its node's config by the node's labels; kubelet sets the hostname label on every node.
    // Without it, the name stands in only where it is a label value: a longer one would make the config
    // unreadable to the driver, which then withholds the devices of every node.
    const hostname = node.labels['kubernetes.io/hostname'] ?? (isLabelValue(node.name) ? node.name : undefined);
    if (hostname === undefined) {
      nodeProblems.push({
        node: node.name,
        reason: 'NodeNotSelectable',
        message: `node ${node.name} has no kubernetes.io/hostname label and its name is longer than a label value; no config can select it, so its devices stay unadvertised until the label is set`,
      });
      continue;
    }
    const nodeSelector = { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In' as const, values: [hostname] }] }] };
    const withdrawNode = (): void => {
      resourcePolicies.push({ node: node.name, spec: { nodeSelector, configs: [] } });
    };
    const withdraw = (entries: readonly Managed[], reason: DraConfigurationReason, message: string): void => {
      for (const entry of entries) entry.nodeProblem ??= { reason, message };
      withdrawNode();
    };
    const inventory = input.inventories.get(node.name);
    if (inventory === undefined || 'problem' in inventory) {
      // Usually a node the config daemon has not reported yet: transient, and no policy's fault.
      nodeProblems.push({
        node: node.name,
        reason: 'NodeInventoryUnavailable',
        message: `node ${node.name} has no usable SriovNetworkNodeState inventory${inventory === undefined ? '' : ` (${inventory.problem})`}; its devices stay unadvertised until the config daemon reports one`,
      });
      withdrawNode();
      continue;
    }
    // Every policy selecting this node claims VFs, managed or not: a managed map must not share a VF with anything.
    const claims = new Map<string, NodePolicy[]>();
    const configs: { deviceAttributesSelector: { matchLabels: Record<string, string> }; resourceFilters: ResourceFilter[] }[] = [];
    let untranslatable: string | undefined;
    for (const policy of sorted.filter((candidate) => !isDefaultPolicy(candidate, input.operatorNamespace) && policySelectsNode(candidate, node.labels))) {
      const isManaged = managedUIDs.has(policy.metadata.uid);
      const selection = selectNicVfs(policy, inventory);
      if (selection.kind === 'untranslatable') {
        // A legacy selector without an exact filter (netFilter) advertises nothing rather than something else.
        if (isManaged) untranslatable ??= `policy ${policy.metadata.name} on node ${node.name}: ${selection.reason}`;
        continue;
      }
      for (const vf of selection.vfs) claims.set(vf.pciAddress, [...(claims.get(vf.pciAddress) ?? []), policy]);
      if (selection.filters.length === 0) continue;
      // A vfio-pci policy's VFs are advertised once the config daemon has bound them to vfio-pci (upstream's filter).
      const drivers = policy.spec.deviceType === 'vfio-pci' ? { drivers: ['vfio-pci'] } : {};
      configs.push({
        deviceAttributesSelector: {
          matchLabels: isManaged
            ? { [GENERATED_BY_LABEL]: GENERATED_BY_VALUE, [NODE_POLICY_UID_LABEL]: policy.metadata.uid }
            : { [RESOURCE_POOL_LABEL]: poolName(policy.spec.resourceName) },
        },
        resourceFilters: selection.filters.map((filter) => ({ ...filter, ...drivers })),
      });
    }
    if (untranslatable !== undefined) {
      withdraw(onNode, draConfigurationReasons.unsupportedSelector, untranslatable);
      continue;
    }
    const overlap = [...claims].find(([, owners]) => owners.length > 1 && owners.some((owner) => managedUIDs.has(owner.metadata.uid)));
    if (overlap !== undefined) {
      const [vf, owners] = overlap;
      withdraw(
        onNode,
        draConfigurationReasons.conflictingMapping,
        `policies ${owners.map((owner) => owner.metadata.name).join(' and ')} both select VF ${vf} on node ${node.name}; make their nicSelectors disjoint`,
      );
      continue;
    }
    resourcePolicies.push({ node: node.name, spec: { nodeSelector, configs } });
  }

  const deviceAttributes: Record<string, unknown>[] = [];
  for (const entry of managed) {
    const uid = entry.policy.metadata.uid;
    let published: string | null = null;
    if (entry.blocked === null && entry.dra !== null) {
      const source = entry.dra.sriovNetwork === null ? null : input.sources.get(referenceKey(entry.dra.sriovNetwork));
      const object = buildPolicyDeviceAttributes({
        policyUID: uid,
        namespace: input.operatorNamespace,
        dra: entry.dra,
        resourceName: extendedResourceName(input.resourcePrefix, entry.policy.spec.resourceName),
        sourceNad: source === null || source === undefined || !source.ok ? null : source.nad,
      });
      deviceAttributes.push(object);
      published = (object['metadata'] as { name: string }).name;
    }
    dependencies.set(uid, { deviceAttributes: published, nodes: entry.nodes });
    verdicts.set(
      uid,
      entry.blocked ??
        entry.nodeProblem ?? {
          reason: draConfigurationReasons.applied,
          // Nothing that changes with every node joining or leaving: the condition changes with the verdict only.
          message: `attributes validated; DeviceAttributes ${String(published)} and the configs of the nodes it selects generated`,
        },
    );
  }
  const pools = new Map(legacy.map((policy) => [poolName(policy.spec.resourceName), policy.spec.resourceName]));
  const poolAttributes = [...pools.values()].map((resourceName) =>
    buildPoolDeviceAttributes({ namespace: input.operatorNamespace, resourcePrefix: input.resourcePrefix, resourceName }),
  );
  return { deviceAttributes, poolAttributes, resourcePolicies, verdicts, nodeProblems, dependencies };
}
