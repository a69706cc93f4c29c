import {
  type DeviceAttributeValue,
  type NadReference,
  type Result,
  SriovDraError,
  type SriovResourcePolicy,
  fail,
  nadReferenceFromAttributes,
  nodeSelectorSchema,
  ok,
  validateDeviceAttributes,
  validateSriovResourcePolicy,
} from '@sriov-dra/contract';
import { z } from 'zod';
import type { VirtualFunction } from '../discovery/virtual-function.ts';
import type { DeviceCapacity, SliceDevice } from '../slices/slice-device.ts';
import { type MergedDeviceAttributes, mergeDeviceAttributes } from './device-attribute-merge.ts';
import { type LabelSelector, matchesLabelSelector } from './label-selector.ts';
import { matchesNodeSelector } from './node-selector.ts';
import { type PublishLimits, buildPublishableDevice } from './publishable-device.ts';
import { matchesResourceFilters } from './resource-filter.ts';

/** One discovered device, as policy sees it. */
export interface InventoryDevice {
  /** Device name in the pool (unique on the node). */
  readonly name: string;
  readonly vf: VirtualFunction;
  /** Attributes discovery publishes, by name; a name without a domain is in the driver's domain. */
  readonly attributes: Readonly<Record<string, DeviceAttributeValue>>;
  readonly capacity?: Readonly<Record<string, DeviceCapacity>>;
}

export interface PolicyInput {
  readonly nodeName: string;
  readonly nodeLabels: Readonly<Record<string, string>>;
  /** The driver's namespace: policies and DeviceAttributes elsewhere are ignored. */
  readonly namespace: string;
  /** SriovResourcePolicy objects as read from the API (validated here). */
  readonly policies: readonly unknown[];
  /** DeviceAttributes objects as read from the API (validated here). */
  readonly deviceAttributes: readonly unknown[];
  readonly devices: readonly InventoryDevice[];
  readonly limits: PublishLimits;
}

/** Which policy config claimed a device: the first matching one, by policy name then config order. */
export interface ClaimingConfig {
  readonly policy: string;
  /** Absent when the policy is invalid as a whole and no config of it could be read. */
  readonly configIndex?: number;
}

/** A device in the eligible policy set: what to publish, and the mapping prepare snapshots (§12.2.5). */
export interface EligibleDevice extends SliceDevice {
  readonly claimedBy: ClaimingConfig;
  readonly nadReference: NadReference | null;
  /** DeviceAttributes objects merged into the attributes, in merge order. */
  readonly attributeSources: readonly string[];
}

/**
 * Why a claimed device is not published. A withheld device is never offered to a later config: that
 * would hand it to a mapping the administrator did not choose for it (§12.2.5).
 * - InvalidPolicy: the policy that would decide the device cannot be read, or its node selector is malformed.
 * - UnresolvedDeviceAttributes: the winning config's selector is malformed, selects no object, or the
 *   objects it selects are invalid or disagree on the template reference.
 * - DeviceLimits: the device's final attributes break a per-device ResourceSlice limit.
 */
export type WithheldReason = 'InvalidPolicy' | 'UnresolvedDeviceAttributes' | 'DeviceLimits';

export interface WithheldDevice {
  readonly name: string;
  readonly reason: WithheldReason;
  readonly claimedBy: ClaimingConfig;
  /** Names the objects involved; the caller reports it as an Event. */
  readonly error: SriovDraError;
}

export interface PolicyResolution {
  /** In device-name order. */
  readonly eligible: readonly EligibleDevice[];
  readonly withheld: readonly WithheldDevice[];
  /** Each invalid policy or DeviceAttributes object in the namespace once, whether or not it decided a device. */
  readonly problems: readonly SriovDraError[];
}

/** The metadata read from an object before (or without) validating it, to sort and select. */
const lenientMeta = z.looseObject({
  metadata: z.looseObject({
    name: z.string().catch(''),
    namespace: z.string().optional().catch(undefined),
    // An object without labels is still selected by an empty selector.
    labels: z.record(z.string(), z.string()).catch({}),
  }),
});

interface RawObject {
  readonly name: string;
  readonly namespace: string | undefined;
  readonly labels: Readonly<Record<string, string>>;
  readonly raw: unknown;
}

function readRaw(value: unknown): RawObject | undefined {
  const parsed = lenientMeta.safeParse(value);
  if (!parsed.success) return undefined;
  const { name, namespace, labels } = parsed.data.metadata;
  return { name, namespace, labels, raw: value };
}

function inNamespace(objects: readonly unknown[], namespace: string): RawObject[] {
  return objects
    .map(readRaw)
    .filter((object): object is RawObject => object?.namespace === namespace)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** An invalid policy still names its nodes when its selector alone can be read. */
function invalidPolicyAppliesToNode(raw: unknown, nodeLabels: Readonly<Record<string, string>>): boolean {
  const selector = z.looseObject({ spec: z.looseObject({ nodeSelector: nodeSelectorSchema.nullable().optional() }) }).safeParse(raw);
  if (!selector.success) return true;
  const matched = matchesNodeSelector(selector.data.spec.nodeSelector, nodeLabels);
  return !matched.ok || matched.value;
}

interface DeviceAttributesCandidate {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly raw: unknown;
  readonly invalid: SriovDraError | undefined;
}

/**
 * The DeviceAttributes objects a config selects (§12.2.5, point 1). A nil selector selects none and is
 * resolved: the VfConfig fallback stays available. A selector that selects nothing, or selects an
 * invalid object, is unresolved; so is a malformed selector.
 */
function resolveSelector(
  selector: LabelSelector | null | undefined,
  candidates: readonly DeviceAttributesCandidate[],
  where: { policy: SriovResourcePolicy; configIndex: number },
): Result<{ objects: readonly unknown[]; merged: MergedDeviceAttributes }> {
  if (selector === null || selector === undefined) return ok({ objects: [], merged: { attributes: {}, nadReference: null, sources: [] } });
  const object = { kind: 'SriovResourcePolicy', namespace: where.policy.namespace, name: where.policy.name, field: `configs[${where.configIndex}]` };
  const selected: DeviceAttributesCandidate[] = [];
  for (const candidate of candidates) {
    const matched = matchesLabelSelector(selector, candidate.labels);
    if (!matched.ok) return fail(matched.error.code, `deviceAttributesSelector: ${matched.error.detail}`, { object });
    if (matched.value) selected.push(candidate);
  }
  if (selected.length === 0) {
    return fail('InvalidSriovResourcePolicy', `deviceAttributesSelector selects no DeviceAttributes object in ${where.policy.namespace ?? ''}`, {
      object,
      remedy: 'create the DeviceAttributes object the selector names, or fix the selector; until then the devices of this config are not published',
    });
  }
  const invalid = selected.find((candidate) => candidate.invalid !== undefined)?.invalid;
  if (invalid !== undefined) return { ok: false, error: invalid };
  const objects = selected.map((candidate) => candidate.raw);
  const merged = mergeDeviceAttributes(objects);
  if (!merged.ok) return merged;
  return ok({ objects, merged: merged.value });
}

/**
 * Decides which discovered devices this node advertises and with which attributes (§5.3, §12.2.5).
 * Policies are taken in name order and their configs in list order; the first config whose filters
 * match a device claims it. A claimed device whose config is unusable is withheld, never passed on.
 * A device no config claims is simply not advertised. Pure: the caller reads the objects and publishes.
 */
export function resolvePolicyDevices(input: PolicyInput): PolicyResolution {
  const problems: SriovDraError[] = [];
  const candidates: DeviceAttributesCandidate[] = inNamespace(input.deviceAttributes, input.namespace).map((object) => {
    const validated = validateDeviceAttributes(object.raw);
    if (!validated.ok) problems.push(validated.error);
    return { name: object.name, labels: object.labels, raw: object.raw, invalid: validated.ok ? undefined : validated.error };
  });
  const unclaimed = [...input.devices].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const eligible: EligibleDevice[] = [];
  const withheld: WithheldDevice[] = [];
  /** Removes and returns the unclaimed devices `take` selects: a device is claimed at most once. */
  const claim = (take: (device: InventoryDevice) => boolean): InventoryDevice[] => {
    const taken: InventoryDevice[] = [];
    const remaining: InventoryDevice[] = [];
    for (const device of unclaimed) (take(device) ? taken : remaining).push(device);
    unclaimed.splice(0, unclaimed.length, ...remaining);
    return taken;
  };

  for (const object of inNamespace(input.policies, input.namespace)) {
    const validated = validateSriovResourcePolicy(object.raw);
    if (!validated.ok) {
      problems.push(validated.error);
      // Which devices it would claim is unknown, so every device it might claim is withheld.
      if (!invalidPolicyAppliesToNode(object.raw, input.nodeLabels)) continue;
      for (const device of claim(() => true))
        withheld.push({ name: device.name, reason: 'InvalidPolicy', claimedBy: { policy: object.name }, error: validated.error });
      continue;
    }
    const policy = validated.value;
    const applies = matchesNodeSelector(policy.spec.nodeSelector, input.nodeLabels);
    if (!applies.ok) {
      const error = new SriovDraError('InvalidSriovResourcePolicy', `nodeSelector: ${applies.error.detail}`, {
        object: { kind: 'SriovResourcePolicy', namespace: policy.namespace, name: policy.name },
      });
      problems.push(error);
      for (const device of claim(() => true)) withheld.push({ name: device.name, reason: 'InvalidPolicy', claimedBy: { policy: policy.name }, error });
      continue;
    }
    if (!applies.value) continue;
    for (const [configIndex, config] of (policy.spec.configs ?? []).entries()) {
      const claimedBy: ClaimingConfig = { policy: policy.name, configIndex };
      const devices = claim((device) => matchesResourceFilters(config.resourceFilters, device.vf));
      if (devices.length === 0) continue;
      const resolved = resolveSelector(config.deviceAttributesSelector, candidates, { policy, configIndex });
      for (const device of devices) {
        if (!resolved.ok) {
          withheld.push({ name: device.name, reason: 'UnresolvedDeviceAttributes', claimedBy, error: resolved.error });
          continue;
        }
        const published = publishable(input, device, resolved.value.objects);
        if (!published.ok) {
          withheld.push({ name: device.name, reason: 'DeviceLimits', claimedBy, error: published.error });
          continue;
        }
        eligible.push({
          ...published.value.device,
          claimedBy,
          nadReference: published.value.nadReference,
          attributeSources: resolved.value.merged.sources,
        });
      }
    }
  }
  eligible.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  withheld.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { eligible, withheld, problems };
}

/** The device's final attributes: discovered ones plus the merged custom ones, checked as published. */
function publishable(
  input: PolicyInput,
  device: InventoryDevice,
  objects: readonly unknown[],
): Result<{ device: SliceDevice; nadReference: NadReference | null }> {
  const capacity = device.capacity ?? {};
  const merged = mergeDeviceAttributes(objects, {
    pool: input.nodeName,
    name: device.name,
    attributeNames: Object.keys(device.attributes),
    capacityNames: Object.keys(capacity),
  });
  if (!merged.ok) return merged;
  const built = buildPublishableDevice(
    { pool: input.nodeName, name: device.name, capacity },
    { ...device.attributes, ...merged.value.attributes },
    input.limits,
  );
  if (!built.ok) return built;
  // Discovery never supplies a template reference; reading it from the final map proves no partial
  // reference reached publication from any source.
  const reference = nadReferenceFromAttributes(built.value.attributes, { kind: 'Device', name: `${input.nodeName}/${device.name}` });
  if (!reference.ok) return reference;
  return ok({ device: built.value, nadReference: reference.value });
}
