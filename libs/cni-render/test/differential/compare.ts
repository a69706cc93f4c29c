// The pass rule of the differential tests. Whenever our code accepts an input, the real Go code must
// decode the same device ID, plugin types, IPAM, CNI name and version (render) or the same selection
// tuples (networks annotation, also as our code writes it back and as the merge publishes it); whenever
// the Go code rejects an input, ours must reject it too. An input ours rejects but the Go code accepts is
// a divergence unless accepted.ts lists it with a reason.
import { type JsonObject, type JsonValue, annotations, isJsonObject, parseStrictJson, serializeJson } from '@sriov-dra/contract';
import { normalizePciAddress } from '../../src/pci-address.ts';
import { type NetworkSelection, parseNetworkSelections } from '../../src/selections/parse.ts';
import { serializeNetworkSelections } from '../../src/selections/serialize.ts';
import { type ManagedSelection, mergeManagedSelections } from '../../src/selections/merge.ts';
import { renderShadowConfig } from '../../src/shadow-config.ts';
import { CLAIM_A, CLAIM_B, POD, managed } from '../managed.ts';
import { acceptedDivergenceFor } from './accepted.ts';
import type { GoAnswer, GoRequest } from '../../src/testing/index.ts';

export interface CniCase {
  readonly kind: 'cni';
  readonly config: string;
  readonly pci: string;
  readonly nadName: string;
  readonly nadNamespace: string;
}

export interface SelectionsCase {
  readonly kind: 'selections';
  readonly text: string;
  readonly podNamespace: string;
}

/** Existing annotation text plus the managed entries (indices into MERGE_POOL) the merge must add. */
export interface MergeCase {
  readonly kind: 'merge';
  readonly text: string;
  readonly desired: readonly number[];
}

export type DiffCase = CniCase | SelectionsCase | MergeCase;

/** Managed attachments a merge may add: two claims, three VFs, three source templates. */
export const MERGE_POOL: readonly ManagedSelection[] = [
  managed(CLAIM_A, '0000-03-00-1', 'dra0', 'rail-a-net'),
  managed(CLAIM_A, '0000-83-00-1', 'dra1', 'rail-b-net'),
  managed(CLAIM_B, '0000-03-00-2', 'dra2', 'rail-c-net'),
];

export interface Divergence {
  /** Stable description of the kind of disagreement; the report groups by it. */
  readonly class: string;
  readonly input: DiffCase;
  /** What our code said and what the Go code said, for the report. */
  readonly ts: string;
  readonly go: string;
}

export interface Verdict {
  readonly divergences: readonly Divergence[];
  /** Set when our code rejected an input the Go code accepts and accepted.ts covers it. */
  readonly acceptedAs?: string;
}

/** The shadow NAD's Kubernetes name: Multus would fall back to it if the rendered CNI name went missing. */
export const SHADOW_NAME = 'dra-sriov-71179501bb6cd083245331b0ff5857fa';

/** What our code said about an input: its result plus the view the rest of the system acts on. */
export type TsOutcome =
  | { readonly ok: true; readonly view: TsCniView | readonly NetworkSelection[] | TsMergeView }
  | { readonly ok: false; readonly code: string; readonly message: string }
  | { readonly ok: false; readonly code: 'threw'; readonly message: string };

export interface TsMergeView {
  /** The networks annotation the merge publishes (null: none). */
  readonly networks: string | null;
  /** What Multus must find in it: the existing selections, then the managed entries, in order. */
  readonly expected: readonly Record<string, unknown>[];
}

export interface TsCniView {
  readonly bytes: string;
  readonly pluginIndex: number | null;
  readonly types: readonly (string | undefined)[];
  readonly deviceID: string;
  readonly ipam: unknown;
  readonly ipamType: string;
  readonly name: string;
  readonly cniVersion: unknown;
}

function plain(value: JsonValue | undefined): unknown {
  return value === undefined ? undefined : JSON.parse(serializeJson(value));
}

export function evaluateTs(input: DiffCase): TsOutcome {
  try {
    if (input.kind === 'merge') return evaluateMerge(input);
    return input.kind === 'cni' ? evaluateRender(input) : evaluateSelections(input);
  } catch (error) {
    return { ok: false, code: 'threw', message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

function evaluateRender(input: CniCase): TsOutcome {
  const result = renderShadowConfig({ metadata: { name: input.nadName, namespace: input.nadNamespace }, spec: { config: input.config } }, input.pci);
  if (!result.ok) return { ok: false, code: result.error.code, message: result.error.message };
  // Our code's own reading of what it produced, by exact keys, as the rest of the driver reads it.
  const parsed = parseStrictJson(result.value.bytes);
  if (!parsed.ok || !isJsonObject(parsed.value)) return { ok: false, code: 'threw', message: 'rendered bytes do not parse as an object' };
  const root = parsed.value;
  const plugins = root.get('plugins');
  const entries: JsonObject[] = result.value.pluginIndex === null ? [root] : Array.isArray(plugins) ? plugins.filter(isJsonObject) : [];
  const sriov = entries[result.value.pluginIndex ?? 0];
  const ipam = sriov?.get('ipam');
  const ipamType = isJsonObject(ipam) ? ipam.get('type') : undefined;
  const pci = normalizePciAddress(input.pci);
  return {
    ok: true,
    view: {
      bytes: result.value.bytes,
      pluginIndex: result.value.pluginIndex,
      types: entries.map((entry) => {
        const type = entry.get('type');
        return typeof type === 'string' ? type : undefined;
      }),
      deviceID: pci.ok ? pci.value : input.pci,
      ipam: plain(ipam),
      ipamType: typeof ipamType === 'string' ? ipamType : '',
      name: result.value.effectiveName,
      cniVersion: plain(root.get('cniVersion')),
    },
  };
}

function evaluateMerge(input: MergeCase): TsOutcome {
  const existing = parseNetworkSelections(input.text, POD.namespace);
  if (!existing.ok) return { ok: false, code: existing.error.code, message: existing.error.message };
  const desired = input.desired.flatMap((index) => MERGE_POOL[index] ?? []);
  const merged = mergeManagedSelections({ pod: { ...POD, annotations: { [annotations.networks]: input.text } }, desired });
  if (!merged.ok) return { ok: false, code: merged.error.code, message: merged.error.message };
  const expected = [
    ...existing.value.map(selectionTuple),
    ...desired.map(({ entry }) => ({
      name: entry.name,
      namespace: entry.namespace,
      interface: entry.interface,
      mac: '',
      ips: null,
      infinibandGuid: '',
      deviceID: '',
    })),
  ];
  return { ok: true, view: { networks: merged.value.networks, expected } };
}

function evaluateSelections(input: SelectionsCase): TsOutcome {
  const result = parseNetworkSelections(input.text, input.podNamespace);
  return result.ok ? { ok: true, view: result.value } : { ok: false, code: result.error.code, message: result.error.message };
}

/**
 * The Go requests an input needs: the input as Multus would read it, plus what our code writes for
 * Multus to read — the rendered shadow config, or the networks annotation serialized back.
 */
export function goRequests(input: DiffCase, ts: TsOutcome): GoRequest[] {
  if (input.kind === 'merge') {
    // Multus is not asked about an input our merge refuses; that is the merge's own business.
    if (!ts.ok) return [];
    const { networks } = ts.view as TsMergeView;
    return [{ kind: 'selections', text: networks ?? '', podNamespace: POD.namespace }];
  }
  if (input.kind === 'selections') {
    const original: GoRequest = { kind: 'selections', text: input.text, podNamespace: input.podNamespace };
    if (!ts.ok) return [original];
    const written = serializeNetworkSelections(ts.view as readonly NetworkSelection[]);
    return [original, { kind: 'selections', text: written, podNamespace: input.podNamespace }];
  }
  const source: GoRequest = { kind: 'cni', config: input.config, nadName: input.nadName, nadNamespace: input.nadNamespace };
  if (!ts.ok) return [source];
  const view = ts.view as TsCniView;
  return [source, { kind: 'cni', config: view.bytes, nadName: SHADOW_NAME, nadNamespace: input.nadNamespace }];
}

/** Deep equality of plain JSON values, key order ignored, numbers compared as float64 like Go reads them. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => sameJson(item, b[index]));
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((key) => Object.hasOwn(right, key) && sameJson(left[key], right[key]));
}

function tsSaid(ts: TsOutcome): string {
  if (!ts.ok) return ts.code === 'threw' ? `threw ${ts.message}` : `rejected ${ts.code}: ${ts.message}`;
  if ('bytes' in ts.view) return `rendered ${ts.view.bytes}`;
  if ('expected' in ts.view) return `merged into ${JSON.stringify(ts.view.networks)}, expecting ${JSON.stringify(ts.view.expected)}`;
  return `accepted ${JSON.stringify(ts.view.map(selectionTuple))}`;
}

function goSaid(answer: GoAnswer): string {
  if (!answer.ok) return `rejected at ${answer.stage ?? '?'}: ${answer.error ?? ''}`;
  if (answer.cni !== undefined)
    return `accepted ${JSON.stringify({ ...answer.cni, plugins: answer.cni.plugins.map((plugin) => ({ ...plugin, stdin: undefined })) })}`;
  return `accepted ${JSON.stringify(answer.selections)}`;
}

export function compare(input: DiffCase, ts: TsOutcome, answers: readonly GoAnswer[]): Verdict {
  const [first, second] = answers;
  if (input.kind === 'merge') return compareMerge(input, ts, first);
  if (first === undefined) throw new Error('no Go answer');
  const divergence = (what: string, go: string = goSaid(first)): Divergence => ({ class: `${input.kind}: ${what}`, input, ts: tsSaid(ts), go });
  if (!ts.ok && ts.code === 'threw') return { divergences: [divergence('our code throws instead of returning a typed result')] };

  if (!ts.ok) {
    if (!first.ok) return { divergences: [] };
    const accepted = acceptedDivergenceFor({ input, tsCode: ts.code, tsMessage: ts.message, go: first });
    if (accepted !== undefined) return { divergences: [], acceptedAs: accepted.id };
    return { divergences: [divergence(`ours rejects (${ts.code}), Go accepts`)] };
  }

  if (input.kind === 'selections') {
    if (!first.ok) return { divergences: [divergence(`ours accepts, Go rejects (${goCategory(first)})`)] };
    const selections = ts.view as readonly NetworkSelection[];
    const found = compareSelections(selections, first).map((field) => divergence(`both accept, ${field} differs`));
    if (found.length > 0 || second === undefined) return { divergences: found };
    // The annotation our merge writes back must read the same to Multus.
    if (!second.ok) return { divergences: [divergence(`Go rejects the annotation ours writes back (${goCategory(second)})`, goSaid(second))] };
    return {
      divergences: compareSelections(selections, second).map((field) =>
        divergence(`Go reads ${field} differently in the annotation ours writes back`, goSaid(second)),
      ),
    };
  }

  if (second === undefined) throw new Error('no Go answer for the rendered shadow');
  if (!second.ok) return { divergences: [divergence(`ours renders, Go rejects the shadow (${goCategory(second)})`, goSaid(second))] };
  if (!first.ok) return { divergences: [divergence(`ours renders, Go rejects the source (${goCategory(first)})`)] };
  return { divergences: compareRendered(ts.view as TsCniView, second).map((field) => divergence(`both accept, ${field} differs`, goSaid(second))) };
}

/** Go's rejection, as a class: the pipeline stage plus the kind of error, without input-specific detail. */
export function goCategory(answer: GoAnswer): string {
  const error = answer.error ?? '';
  const stage = (answer.stage ?? '?').replace(/^libcni-add$/, 'libcni');
  const kinds: readonly (readonly [RegExp, string])[] = [
    [/cannot unmarshal number \S+ into Go value of type float64/, 'a number beyond float64'],
    [/cannot unmarshal (\w+) into Go struct field \S*?(ipam|dns|capabilities|prevResult)\b/i, 'a CNI field ($2) of the wrong JSON type'],
    [/cannot unmarshal number \S+ into Go struct field/, 'a number the plugin field cannot hold'],
    [/cannot unmarshal \w+ into Go struct field/, 'a plugin field of the wrong JSON type'],
    [/cannot unmarshal \w+ into Go value/, 'a value of the wrong JSON type'],
    [/invalid characters found in network name|missing network name|network name is empty/i, 'an invalid CNI network name'],
    [/invalid character '.+?' (?:looking|after|in)|unexpected end of JSON/, 'malformed JSON'],
    [/incompatible CNI versions|unsupported CNI result version|invalid version/i, 'a cniVersion libcni or the plugin refuses'],
    [/plugin name|missing 'type'|must have the 'type'/i, 'a missing or invalid plugin type'],
    [/cniVersions|disableCheck|disableGC|loadOnlyInlinedPlugins/, 'a libcni list field of the wrong type'],
    [/plugins/, 'an invalid plugins list'],
    [/failed to parse CIDR|failed to parse IP/, 'an invalid IP or CIDR'],
    [/failed to mac|infiniband GUID/, 'an invalid MAC or GUID'],
    [/comma-delimited|interface name|Invalid network object/, 'invalid comma notation'],
    [/panic/, 'a panic'],
  ];
  const kind = kinds.find(([pattern]) => pattern.test(error));
  if (kind === undefined) return `${stage}: ${error.replace(/"[^"]*"|\d+/g, '…').slice(0, 80)}`;
  const match = kind[0].exec(error) ?? [];
  return `${stage}: ${kind[1].replace(/\$(\d)/g, (_all, group: string) => match[Number(group)] ?? '')}`;
}

function compareRendered(ts: TsCniView, go: GoAnswer): string[] {
  const cni = go.cni;
  if (cni === undefined) return ['the Go answer'];
  const diffs: string[] = [];
  const goTypes = cni.plugins.map((plugin) => plugin.type);
  if (!sameJson(goTypes, ts.types)) diffs.push('the executed plugin types');
  const sriov = cni.plugins.filter((plugin) => plugin.type === 'sriov');
  if (sriov.length !== 1 || sriov[0]?.deviceID !== ts.deviceID) diffs.push('the sriov deviceID libcni delivers');
  const delivered = cni.plugins[ts.pluginIndex ?? 0];
  if (delivered !== undefined) {
    if (!sameJson(delivered.ipam, ts.ipam)) diffs.push('the IPAM the sriov plugin delivers');
    if (delivered.ipamType !== ts.ipamType) diffs.push('the IPAM type sriov-cni runs');
  }
  if (cni.networkName !== ts.name || cni.plugins.some((plugin) => plugin.name !== ts.name)) diffs.push('the CNI network name');
  if (cni.cniVersion !== ts.cniVersion || cni.plugins.some((plugin) => plugin.cniVersion !== ts.cniVersion)) diffs.push('the cniVersion');
  // The configuration as stored, decoded without libcni's sorted re-marshalling.
  const direct = cni.direct[ts.pluginIndex ?? 0];
  const directSriov = cni.direct.filter((plugin) => plugin.type === 'sriov');
  if (directSriov.length !== 1 || directSriov[0]?.deviceID !== ts.deviceID) diffs.push('the sriov deviceID of the stored config (direct decode)');
  if (direct !== undefined) {
    if (!sameJson(direct.ipam, ts.ipam)) diffs.push('the IPAM of the stored config (direct decode)');
    if (direct.ipamType !== ts.ipamType) diffs.push('the IPAM type of the stored config (direct decode)');
    if (ts.pluginIndex === null && (direct.name !== ts.name || direct.cniVersion !== ts.cniVersion))
      diffs.push('the name or cniVersion of the stored config (direct decode)');
  }
  return diffs;
}

function compareMerge(input: MergeCase, ts: TsOutcome, go: GoAnswer | undefined): Verdict {
  if (!ts.ok) return { divergences: [] };
  if (go === undefined) throw new Error('no Go answer for the merged annotation');
  const divergence = (what: string): Divergence => ({ class: `merge: ${what}`, input, ts: tsSaid(ts), go: goSaid(go) });
  if (!go.ok) return { divergences: [divergence(`Go rejects the annotation the merge writes (${goCategory(go)})`)] };
  const { expected } = ts.view as TsMergeView;
  const found = (go.selections?.networks ?? []).map((network) => {
    const record = network as unknown as Record<string, unknown>;
    return Object.fromEntries(Object.keys(expected[0] ?? {}).map((key) => [key, record[key] ?? (key === 'ips' ? null : '')]));
  });
  return { divergences: sameJson(found, expected) ? [] : [divergence('Go reads the merged annotation differently from the selections ours merged')] };
}

/** A typed field of our selection when our code sets it, else the raw object's value at the exact key. */
function field(selection: NetworkSelection, typed: keyof NetworkSelection, key: string): unknown {
  return typed in selection ? selection[typed] : plain(selection.raw.get(key));
}

/** Our code's view of one selection, in the Go peer's field names and zero values. */
function selectionTuple(selection: NetworkSelection): Record<string, unknown> {
  return {
    name: selection.name,
    namespace: selection.namespace,
    interface: selection.interface ?? '',
    mac: field(selection, 'mac', 'mac') ?? '',
    ips: field(selection, 'ips', 'ips') ?? null,
    infinibandGuid: field(selection, 'infinibandGUID', 'infiniband-guid') ?? '',
    deviceID: field(selection, 'deviceID', 'deviceID') ?? '',
  };
}

function compareSelections(ts: readonly NetworkSelection[], go: GoAnswer): string[] {
  const networks = go.selections?.networks ?? [];
  if (networks.length !== ts.length) return ['the number of selections'];
  const diffs = new Set<string>();
  for (const [index, selection] of ts.entries()) {
    const mine = selectionTuple(selection);
    const theirs = networks[index];
    if (theirs === undefined) continue;
    for (const key of Object.keys(mine)) {
      const goValue = (theirs as unknown as Record<string, unknown>)[key] ?? (key === 'ips' ? null : '');
      if (!sameJson(mine[key], goValue)) diffs.add(`the selection ${key}`);
    }
  }
  return [...diffs];
}
