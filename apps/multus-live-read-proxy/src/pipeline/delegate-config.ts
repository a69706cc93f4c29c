import {
  type JsonObject,
  type JsonValue,
  type ObjectRef,
  type RegistryV1,
  type Result,
  annotations,
  fail,
  isJsonObject,
  ok,
  parseStrictJson,
  serializeJson,
} from '@sriov-dra/contract';
import { goFoldEqual } from '@sriov-dra/cni-render';
import { type GuardNad, type GuardPod, type NadReference, type VerifiedShadow, verifyManagedShadow } from '../guard/managed-shadow-guard.ts';

/**
 * The device a NAD with k8s.v1.cni.cncf.io/resourceName took from the kubelet's PodResources for this
 * ADD; deviceID is '' when its resource had none left (the configuration is then left as it is).
 */
export interface NadDevice {
  readonly resourceName: string;
  readonly deviceID: string;
}

/** Hands out the Pod's devices of a resource, one per call, in the order ADD asks (see PodDevices). */
export interface DeviceSource {
  take(resourceName: string): string;
}

/**
 * What a selected NAD contributes to the ADD: the exact bytes to execute, or — for a NAD with an empty
 * spec — the name of the CNI file in confDir that holds them (Multus's file-backed NAD, whose device
 * ADD injects with injectDeviceID once it has read the file).
 */
export type NadDelegateConfig =
  | { readonly kind: 'inline'; readonly bytes: string; readonly managed: VerifiedShadow | null; readonly device?: NadDevice }
  | { readonly kind: 'conf-file'; readonly name: string; readonly device?: NadDevice };

function nadRef(nad: GuardNad): ObjectRef {
  return { kind: 'NetworkAttachmentDefinition', namespace: nad.metadata.namespace, name: nad.metadata.name, uid: nad.metadata.uid };
}

/**
 * The configuration of one NAD an ADD reaches (a selection, the cluster network, a defaultNetworks entry,
 * the default-network override), as Multus's getKubernetesDelegate derives it, with this daemon's
 * rules first: a driver-generated shadow passes the §10.3 guard and runs its frozen bytes unchanged (it
 * never reaches the device lookup); a NAD with the resourceName key (whatever its value) takes its
 * resource's next device from `devices` and gets it as deviceID and pciBusID; an unnamed inline
 * configuration gets the NAD's name, and the selection's cni-args are merged into args.cni — all without
 * disturbing any other byte's meaning (numbers and key order kept).
 */
export function delegateConfigFromNad(
  pod: GuardPod,
  nad: GuardNad,
  reference: NadReference,
  registry: RegistryV1 | null,
  devices: DeviceSource,
): Result<NadDelegateConfig> {
  // Every NAD an ADD reaches is guarded, whatever reached it: a shadow named as the cluster or a default
  // network is refused there, not run as an ordinary NAD.
  const verified = verifyManagedShadow(pod, nad, reference, registry);
  if (!verified.ok) return verified;
  if (verified.value !== null) return ok({ kind: 'inline', bytes: verified.value.config, managed: verified.value });
  const { selection } = reference;
  const object = nadRef(nad);
  // As getKubernetesDelegate: the device is taken before the configuration is read, file-backed or not.
  const resourceName =
    nad.metadata.annotations !== undefined && Object.hasOwn(nad.metadata.annotations, annotations.resourceName)
      ? nad.metadata.annotations[annotations.resourceName]
      : undefined;
  const device = resourceName === undefined ? {} : { device: { resourceName, deviceID: devices.take(resourceName) } };
  const config = nad.spec?.config ?? '';
  if (config === '') return ok({ kind: 'conf-file', name: nad.metadata.name, ...device });
  // Go's decoder takes "CNI-Args" as cni-args; the parser refuses two members folding to one field.
  const cniArgs = selection === undefined ? undefined : [...selection.raw].find(([member]) => goFoldEqual(member, 'cni-args'))?.[1];
  const named = ensureName(config, nad.metadata.name, object);
  if (!named.ok) return named;
  const withDevice = injectDeviceID(named.value, device.device?.deviceID ?? '', object);
  if (!withDevice.ok) return withDevice;
  if (cniArgs === undefined || cniArgs === null) return ok({ kind: 'inline', bytes: withDevice.value, managed: null, ...device });
  if (!isJsonObject(cniArgs)) return fail('MalformedNetworkSelections', 'cni-args of the selection is not an object', { object });
  const merged = mergeCniArgs(withDevice.value, cniArgs, object);
  return merged.ok ? ok({ kind: 'inline', bytes: merged.value, managed: null, ...device }) : merged;
}

/**
 * Multus's delegateAddDeviceID and addDeviceIDInConfList: deviceID and pciBusID set to the device on a
 * single plugin, or on every plugin of a list (a configuration without a type); '' changes nothing.
 * An existing key keeps its place, a new one goes last.
 */
export function injectDeviceID(text: string, deviceID: string, object: ObjectRef): Result<string> {
  if (deviceID === '') return ok(text);
  const parsed = parseConfig(text, object);
  if (!parsed.ok) return parsed;
  const root = parsed.value;
  // Multus treats a configuration without a type (absent or "") as a list.
  const type = root.get('type');
  const targets = type === undefined || type === '' ? root.get('plugins') : [root];
  if (!Array.isArray(targets)) return fail('MalformedCniConfig', 'the configuration list has no "plugins" list to receive deviceID', { object });
  for (const target of targets) {
    if (!isJsonObject(target))
      return fail('MalformedCniConfig', 'a plugin of the configuration list is not an object, so deviceID cannot be added to it', { object });
    target.set('deviceID', deviceID);
    target.set('pciBusID', deviceID);
  }
  return ok(serializeJson(root));
}

function parseConfig(text: string, object: ObjectRef): Result<JsonObject> {
  const parsed = parseStrictJson(text);
  if (!parsed.ok) return fail('MalformedCniConfig', parsed.error.message, { object: { ...object, field: 'spec.config' } });
  if (!isJsonObject(parsed.value)) return fail('MalformedCniConfig', 'spec.config is not a JSON object', { object: { ...object, field: 'spec.config' } });
  return ok(parsed.value);
}

/** Multus names an unnamed network after its NAD (the exact key "name", absent or ""); a named one keeps its bytes. */
function ensureName(text: string, nadName: string, object: ObjectRef): Result<string> {
  const parsed = parseConfig(text, object);
  if (!parsed.ok) return parsed;
  const name = parsed.value.get('name');
  if (name !== undefined && name !== '') return ok(text);
  parsed.value.set('name', nadName);
  return ok(serializeJson(parsed.value));
}

/** Multus's injectCNIArgs: the selection's keys replace those of args.cni on the root, or on every plugin of a list. */
function mergeCniArgs(text: string, cniArgs: JsonObject, object: ObjectRef): Result<string> {
  const parsed = parseConfig(text, object);
  if (!parsed.ok) return parsed;
  const root = parsed.value;
  // Multus treats a configuration without a type (absent or "") as a list.
  const type = root.get('type');
  const plugins = type === undefined || type === '' ? (root.get('plugins') ?? []) : undefined;
  const targets: JsonValue[] = plugins === undefined ? [root] : Array.isArray(plugins) ? plugins : [];
  if (targets.length === 0) return fail('MalformedCniConfig', 'the configuration list has no plugins to receive cni-args', { object });
  for (const target of targets) {
    if (!isJsonObject(target)) return fail('MalformedCniConfig', 'a plugin of the configuration list is not an object', { object });
    const args = target.get('args') ?? new Map<string, JsonValue>();
    if (!isJsonObject(args)) return fail('MalformedCniConfig', '"args" is not an object, so cni-args cannot be merged into it', { object });
    const cni = args.get('cni') ?? new Map<string, JsonValue>();
    if (!isJsonObject(cni)) return fail('MalformedCniConfig', '"args.cni" is not an object, so cni-args cannot be merged into it', { object });
    for (const [key, value] of cniArgs) cni.set(key, value);
    args.set('cni', cni);
    target.set('args', args);
  }
  return ok(serializeJson(root));
}
