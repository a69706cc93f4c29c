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
import type { NetworkSelection } from '@sriov-dra/cni-render';
import { type GuardNad, type GuardPod, type VerifiedShadow, verifyManagedShadow } from '../guard/managed-shadow-guard.ts';

/**
 * What a selected NAD contributes to the ADD: the exact bytes to execute, or — for a NAD with an empty
 * spec — the name of the CNI file in confDir that holds them (Multus's file-backed NAD).
 */
export type NadDelegateConfig =
  { readonly kind: 'inline'; readonly bytes: string; readonly managed: VerifiedShadow | null } | { readonly kind: 'conf-file'; readonly name: string };

function nadRef(nad: GuardNad): ObjectRef {
  return { kind: 'NetworkAttachmentDefinition', namespace: nad.metadata.namespace, name: nad.metadata.name, uid: nad.metadata.uid };
}

/**
 * The configuration of one selected NAD, as Multus's getKubernetesDelegate derives it, with this daemon's
 * rules first: a driver-generated shadow passes the §10.3 guard and runs its frozen bytes unchanged; a NAD
 * that asks for a device-plugin lookup (the resourceName key, whatever its value) is refused, since this
 * daemon performs none; an unnamed inline configuration gets the NAD's name, and the selection's cni-args
 * are merged into args.cni — both without disturbing any other byte's meaning (numbers and key order kept).
 */
export function delegateConfigFromNad(
  pod: GuardPod,
  nad: GuardNad,
  selection: NetworkSelection | undefined,
  registry: RegistryV1 | null,
): Result<NadDelegateConfig> {
  if (selection !== undefined) {
    const verified = verifyManagedShadow(pod, { nad, selection }, registry);
    if (!verified.ok) return verified;
    if (verified.value !== null) return ok({ kind: 'inline', bytes: verified.value.config, managed: verified.value });
  }
  const object = nadRef(nad);
  if (nad.metadata.annotations !== undefined && Object.hasOwn(nad.metadata.annotations, annotations.resourceName)) {
    return fail('DevicePluginLookupUnsupported', `carries ${annotations.resourceName}=${JSON.stringify(nad.metadata.annotations[annotations.resourceName])}`, {
      object,
    });
  }
  const config = nad.spec?.config ?? '';
  if (config === '') return ok({ kind: 'conf-file', name: nad.metadata.name });
  const cniArgs = selection?.raw.get('cni-args');
  const named = ensureName(config, nad.metadata.name, object);
  if (!named.ok) return named;
  if (cniArgs === undefined || cniArgs === null) return ok({ kind: 'inline', bytes: named.value, managed: null });
  if (!isJsonObject(cniArgs)) return fail('MalformedNetworkSelections', 'cni-args of the selection is not an object', { object });
  const merged = mergeCniArgs(named.value, cniArgs, object);
  return merged.ok ? ok({ kind: 'inline', bytes: merged.value, managed: null }) : merged;
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
