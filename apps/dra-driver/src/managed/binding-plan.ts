import { type AllocatedDevice, assignInterfaceNames, mergeManagedSelections, normalizePciAddress } from '@sriov-dra/cni-render';
import { type ObjectRef, type Result, fail, ok } from '@sriov-dra/contract';
import { MANAGED_BINDING_VERSION, managedBindingSchema } from '../checkpoint/checkpoint-record.ts';
import { managedSelectionFor } from './managed-selection.ts';
import type { PlannedBinding } from './planned-binding.ts';
import { planShadow } from './shadow-plan.ts';
import type { SourceTemplate } from './source-template.ts';

/** One allocation result of this driver in one of the Pod's claims, with its template already read. */
export interface ManagedAllocation {
  readonly claim: {
    readonly uid: string;
    readonly namespace: string;
    readonly name: string;
    /** The Pod's names for the claim (pod.spec.resourceClaims[].name); the lexically first one orders it. */
    readonly aliases: readonly string[];
  };
  /** The result's request, or "request/subrequest". */
  readonly request: string;
  readonly driver: string;
  readonly pool: string;
  readonly device: string;
  /** From discovery of the allocated device. */
  readonly pciAddress: string;
  /** The request's effective VfConfig.ifName; "" leaves the name to the default numbering. */
  readonly ifName: string;
  readonly source: SourceTemplate;
}

export interface BindingPlanInput {
  readonly node: { readonly name: string; readonly uid: string };
  /** The verified consuming Pod, with its annotations as last read. */
  readonly pod: { readonly namespace: string; readonly name: string; readonly uid: string; readonly annotations?: Readonly<Record<string, string>> };
  /** Every managed allocation of every claim of the Pod, in any order. */
  readonly allocations: readonly ManagedAllocation[];
  readonly primaryInterface?: string;
}

export interface PlannedDeviceBinding {
  readonly binding: PlannedBinding;
  readonly shadowNad: Record<string, unknown>;
}

export interface BindingPlan {
  /** One per allocated device, in the deterministic managed selection order (§6.5). */
  readonly bindings: readonly PlannedDeviceBinding[];
}

/**
 * A UID of the real length for the registry entries of shadows not yet created: the merge check then
 * measures the annotations the Pod will really carry.
 */
const SHADOW_UID_STAND_IN = '00000000-0000-0000-0000-000000000000';

const deviceKey = (allocation: ManagedAllocation): string => `${allocation.claim.uid}\n${allocation.pool}\n${allocation.device}`;

function sameSource(a: SourceTemplate, b: SourceTemplate): boolean {
  return a.namespace === b.namespace && a.name === b.name && a.uid === b.uid && a.resourceVersion === b.resourceVersion && a.config === b.config;
}

/** One allocated device of a claim, and the requests it was allocated for. */
interface DeviceGroup {
  readonly allocation: ManagedAllocation;
  readonly requests: Set<string>;
}

/**
 * Groups the results by device. One device seen through several requests of its claim is attached
 * once, and only when those requests ask for the same template (§6.2); the consumer namespace is the
 * claim's, so a claim elsewhere cannot be this Pod's.
 */
function groupByDevice(input: BindingPlanInput, object: ObjectRef): Result<Map<string, DeviceGroup>> {
  const devices = new Map<string, DeviceGroup>();
  for (const allocation of input.allocations) {
    const { claim } = allocation;
    if (claim.namespace !== input.pod.namespace) {
      return fail('ConsumerMismatch', `claim ${claim.namespace}/${claim.name} is not in the Pod's namespace`, { object });
    }
    if (claim.aliases.length === 0) return fail('ConsumerMismatch', `claim ${claim.namespace}/${claim.name} is not among the Pod's resourceClaims`, { object });
    const key = deviceKey(allocation);
    const seen = devices.get(key);
    if (seen === undefined) {
      devices.set(key, { allocation, requests: new Set([allocation.request]) });
      continue;
    }
    const first = seen.allocation;
    if (!sameSource(first.source, allocation.source)) {
      return fail(
        'ConflictingDeviceRequirements',
        `requests ${first.request} and ${allocation.request} of claim ${claim.name} bind device ${allocation.pool}/${allocation.device} to templates ` +
          `${first.source.namespace}/${first.source.name} and ${allocation.source.namespace}/${allocation.source.name}`,
        { object },
      );
    }
    seen.requests.add(allocation.request);
  }
  return ok(devices);
}

/** Two allocated devices that are one VF are a broken allocation or inventory, never an alias (§6.2). */
function checkDistinctPci(devices: ReadonlyMap<string, DeviceGroup>, object: ObjectRef): Result<void> {
  const byPci = new Map<string, ManagedAllocation>();
  for (const { allocation } of devices.values()) {
    const pci = normalizePciAddress(allocation.pciAddress);
    if (!pci.ok) return pci;
    const other = byPci.get(pci.value);
    if (other !== undefined) {
      return fail(
        'ConflictingDeviceRequirements',
        `devices ${other.pool}/${other.device} (claim ${other.claim.name}) and ${allocation.pool}/${allocation.device} (claim ${allocation.claim.name}) are both PCI ${pci.value}`,
        { object },
      );
    }
    byPci.set(pci.value, allocation);
  }
  return ok(undefined);
}

/** The §6.5 inputs: each result under each of its claim's aliases, with how many devices its request got. */
function interfaceRequests(allocations: readonly ManagedAllocation[]): AllocatedDevice[] {
  const devicesPerRequest = new Map<string, Set<string>>();
  for (const allocation of allocations) {
    const key = `${allocation.claim.uid}\n${allocation.request}`;
    devicesPerRequest.set(key, (devicesPerRequest.get(key) ?? new Set()).add(deviceKey(allocation)));
  }
  return allocations.flatMap((allocation) =>
    allocation.claim.aliases.map((claimAlias) => ({
      claimAlias,
      claimUID: allocation.claim.uid,
      request: allocation.request,
      pool: allocation.pool,
      device: allocation.device,
      explicitName: allocation.ifName === '' ? undefined : allocation.ifName,
      requestDeviceCount: devicesPerRequest.get(`${allocation.claim.uid}\n${allocation.request}`)?.size ?? 0,
    })),
  );
}

/**
 * The binding plan of a Pod (§8.1 step 1): for every managed device of all its claims together, the
 * attachment identity, the interface name, the rendered configuration, the shadow NAD and the
 * checkpoint record, plus a check that the Pod's selections merge — no manual selection of a managed
 * template, no interface collision, annotations within the size limit. Everything it refuses is
 * refused before any VF is touched, and its output depends on the allocations, not on their order.
 * Pure.
 */
export function planManagedBindings(input: BindingPlanInput): Result<BindingPlan> {
  const { node, pod } = input;
  const object: ObjectRef = { kind: 'Pod', namespace: pod.namespace, name: pod.name, uid: pod.uid };
  const grouped = groupByDevice(input, object);
  if (!grouped.ok) return grouped;
  const devices = grouped.value;
  const assigned = assignInterfaceNames(interfaceRequests(input.allocations), { primaryInterface: input.primaryInterface, object });
  if (!assigned.ok) return assigned;
  const distinct = checkDistinctPci(devices, object);
  if (!distinct.ok) return distinct;

  const bindings: PlannedDeviceBinding[] = [];
  for (const assignment of assigned.value) {
    const group = devices.get(`${assignment.claimUID}\n${assignment.pool}\n${assignment.device}`);
    // assignInterfaceNames names exactly the devices it was given.
    if (group === undefined) throw new Error(`interface assigned to unknown device ${assignment.pool}/${assignment.device}`);
    const { allocation } = group;
    const { claim, source } = allocation;
    const shadow = planShadow({
      node,
      pod,
      claimUID: claim.uid,
      driver: allocation.driver,
      pool: allocation.pool,
      device: allocation.device,
      pciAddress: allocation.pciAddress,
      interface: assignment.interface,
      source,
    });
    if (!shadow.ok) return shadow;
    const binding: PlannedBinding = {
      bindingVersion: MANAGED_BINDING_VERSION,
      attachmentID: shadow.value.attachmentID,
      podUID: pod.uid,
      podNamespace: pod.namespace,
      podName: pod.name,
      claimUID: claim.uid,
      claimNamespace: claim.namespace,
      claimName: claim.name,
      nodeName: node.name,
      nodeUID: node.uid,
      driver: allocation.driver,
      pool: allocation.pool,
      device: allocation.device,
      requestNames: [...group.requests].sort(),
      pciAddress: shadow.value.pciAddress,
      interface: assignment.interface,
      source: { namespace: source.namespace, name: source.name, uid: source.uid, resourceVersion: source.resourceVersion },
      shadow: { namespace: pod.namespace, name: shadow.value.shadowName },
      renderedConfig: shadow.value.rendered.bytes,
      configSHA256: shadow.value.rendered.sha256,
    };
    // The forward sequence persists this record right after the hardware changes; a record the
    // checkpoint would refuse must be refused now, while nothing has been touched.
    const persistable = managedBindingSchema.safeParse({ ...binding, phase: 'Pending', shadow: { ...binding.shadow, uid: '' } });
    if (!persistable.success) {
      const issue = persistable.error.issues[0];
      return fail(
        'InvalidApiObject',
        `the binding of device ${allocation.pool}/${allocation.device} cannot be recorded: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`,
        {
          object,
        },
      );
    }
    bindings.push({ binding, shadowNad: shadow.value.shadowNad });
  }

  const merged = mergeManagedSelections({ pod, desired: bindings.map(({ binding }) => managedSelectionFor(binding, SHADOW_UID_STAND_IN)) });
  if (!merged.ok) return merged;
  return ok({ bindings });
}
