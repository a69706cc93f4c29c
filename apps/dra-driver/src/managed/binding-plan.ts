import { type AllocatedDevice, assignInterfaceNames, mergeManagedSelections, normalizePciAddress } from '@sriov-dra/cni-render';
import { type ObjectRef, type Result, fail, ok } from '@sriov-dra/contract';
import { MANAGED_BINDING_VERSION, type ManagedBinding, managedBindingSchema } from '../checkpoint/checkpoint-record.ts';
import { isAttached } from './binding-records.ts';
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

/**
 * A device of one of the Pod's other claims, which is not planned now but takes its place in the §6.5
 * numbering: a prepared claim's device with the binding its checkpoint froze (its interface, PCI address
 * and selection are kept as recorded), or an allocated device of a claim not prepared yet (numbered, and
 * planned with its own template when the kubelet prepares that claim).
 */
export interface NeighbourDevice {
  readonly claim: ManagedAllocation['claim'];
  readonly request: string;
  readonly pool: string;
  readonly device: string;
  /** The request's effective VfConfig.ifName; "" leaves the name to the default numbering. Unused when recorded. */
  readonly ifName: string;
  readonly recorded?: ManagedBinding;
}

export interface BindingPlanInput {
  readonly node: { readonly name: string; readonly uid: string };
  /** The verified consuming Pod, with its annotations as last read. */
  readonly pod: { readonly namespace: string; readonly name: string; readonly uid: string; readonly annotations?: Readonly<Record<string, string>> };
  /** The managed allocations to plan now (the claim being prepared, or several claims together), in any order. */
  readonly allocations: readonly ManagedAllocation[];
  /** The devices of the Pod's other claims, in any order. */
  readonly neighbours?: readonly NeighbourDevice[];
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

const deviceKey = (allocation: { readonly claim: { readonly uid: string }; readonly pool: string; readonly device: string }): string =>
  `${allocation.claim.uid}\n${allocation.pool}\n${allocation.device}`;

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

/** A device with the PCI address it is (being) bound to, whether planned now or recorded. */
interface PciHolder {
  readonly claim: { readonly name: string };
  readonly pool: string;
  readonly device: string;
  readonly pciAddress: string;
}

/** Two allocated devices that are one VF are a broken allocation or inventory, never an alias (§6.2). */
function checkDistinctPci(devices: readonly PciHolder[], object: ObjectRef): Result<void> {
  const byPci = new Map<string, PciHolder>();
  for (const holder of devices) {
    const pci = normalizePciAddress(holder.pciAddress);
    if (!pci.ok) return pci;
    const other = byPci.get(pci.value);
    if (other !== undefined) {
      return fail(
        'ConflictingDeviceRequirements',
        `devices ${other.pool}/${other.device} (claim ${other.claim.name}) and ${holder.pool}/${holder.device} (claim ${holder.claim.name}) are both PCI ${pci.value}`,
        { object },
      );
    }
    byPci.set(pci.value, holder);
  }
  return ok(undefined);
}

/** The PCI holders among the neighbours: only a recorded binding has its VF; an unprepared claim's is checked when it is planned. */
function recordedHolders(neighbours: readonly NeighbourDevice[]): PciHolder[] {
  const holders = new Map<string, PciHolder>();
  for (const { claim, recorded } of neighbours) {
    if (recorded === undefined) continue;
    holders.set(recorded.attachmentID, { claim, pool: recorded.pool, device: recorded.device, pciAddress: recorded.pciAddress });
  }
  return [...holders.values()];
}

/**
 * The §6.5 inputs: each result under each of its claim's aliases, with how many devices its request got.
 * A recorded neighbour keeps the name its checkpoint froze: it is given as that device's own explicit
 * name, so the numbering places it as before and a new name that collides with it is refused.
 */
function interfaceRequests(allocations: readonly (ManagedAllocation | NeighbourDevice)[]): AllocatedDevice[] {
  const devicesPerRequest = new Map<string, Set<string>>();
  for (const allocation of allocations) {
    const key = `${allocation.claim.uid}\n${allocation.request}`;
    devicesPerRequest.set(key, (devicesPerRequest.get(key) ?? new Set()).add(deviceKey(allocation)));
  }
  return allocations.flatMap((allocation) => {
    const recorded = 'recorded' in allocation ? allocation.recorded : undefined;
    const explicitName = recorded?.interface ?? (allocation.ifName === '' ? undefined : allocation.ifName);
    const requestDeviceCount = recorded === undefined ? (devicesPerRequest.get(`${allocation.claim.uid}\n${allocation.request}`)?.size ?? 0) : 1;
    return allocation.claim.aliases.map((claimAlias) => ({
      claimAlias,
      claimUID: allocation.claim.uid,
      request: allocation.request,
      pool: allocation.pool,
      device: allocation.device,
      explicitName,
      requestDeviceCount,
    }));
  });
}

/**
 * The binding plan of a Pod (§8.1 step 1): for every managed device being planned, the attachment
 * identity, the interface name, the rendered configuration, the shadow NAD and the checkpoint record,
 * plus a check that the Pod's selections merge — no manual selection of a managed template, no interface
 * collision, annotations within the size limit. Interfaces are numbered over all the Pod's claims; a
 * prepared claim enters with its frozen record (§5.4), never re-read or re-judged, so its health does not
 * depend on today's templates or policy. Everything it refuses is refused before any VF is touched, and
 * its output depends on the allocations, not on their order. Pure.
 */
export function planManagedBindings(input: BindingPlanInput): Result<BindingPlan> {
  const { node, pod } = input;
  const object: ObjectRef = { kind: 'Pod', namespace: pod.namespace, name: pod.name, uid: pod.uid };
  const grouped = groupByDevice(input, object);
  if (!grouped.ok) return grouped;
  const devices = grouped.value;
  const neighbours = input.neighbours ?? [];
  const assigned = assignInterfaceNames(interfaceRequests([...input.allocations, ...neighbours]), { primaryInterface: input.primaryInterface, object });
  if (!assigned.ok) return assigned;
  const recorded = recordedHolders(neighbours);
  const distinct = checkDistinctPci([...[...devices.values()].map(({ allocation }) => allocation), ...recorded], object);
  if (!distinct.ok) return distinct;

  const bindings: PlannedDeviceBinding[] = [];
  for (const assignment of assigned.value) {
    const group = devices.get(`${assignment.claimUID}\n${assignment.pool}\n${assignment.device}`);
    // The neighbours were numbered, not planned.
    if (group === undefined) continue;
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

  const prepared = new Map(
    neighbours.flatMap(({ recorded: binding }) => (binding === undefined || !isAttached(binding) ? [] : [[binding.attachmentID, binding]])),
  );
  const desired = [
    ...[...prepared.values()].map((binding) => managedSelectionFor(binding, binding.shadow.uid === '' ? SHADOW_UID_STAND_IN : binding.shadow.uid)),
    ...bindings.map(({ binding }) => managedSelectionFor(binding, SHADOW_UID_STAND_IN)),
  ];
  const merged = mergeManagedSelections({ pod, desired });
  if (!merged.ok) return merged;
  return ok({ bindings });
}
