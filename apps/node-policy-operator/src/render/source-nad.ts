import { type JsonValue, annotations, isJsonObject, parseStrictJson, serializeJson } from '@sriov-dra/contract';
import { indentJson } from './json-indent.ts';
import { SourceNadError } from './source-nad-error.ts';
import { type SriovNetwork, type ValidSriovNetwork, sriovNetworkSchema } from './sriov-network.ts';

/**
 * The source NetworkAttachmentDefinition of a SriovNetwork, rendered as the upstream operator renders it
 * (its RenderNetAttDef followed by the 4-space re-indentation its controller applies before writing), so
 * a NAD written by either operator compares equal, byte for byte, with this rendering (§12.2.3).
 */

/** Ownership marker on the source NAD; a NAD with a different nonempty value belongs to someone else. */
export const OWNER_REF_ANNOTATION = 'sriovnetwork.openshift.io/owner-ref';
/** `<Kind>.<group>` as the marker spells a SriovNetwork owner. */
const OWNER_KIND = 'SriovNetwork.sriovnetwork.openshift.io';

/** The owner marker value a SriovNetwork's source NAD carries: `<Kind>.<group>/<namespace>/<name>`. */
export function sourceNadOwnerMarker(namespace: string, name: string): string {
  return `${OWNER_KIND}/${namespace}/${name}`;
}

export interface SourceNadOptions {
  /** The operator's namespace: only a SriovNetwork living there may place its NAD elsewhere. */
  readonly operatorNamespace: string;
  /** Device-plugin resource prefix, e.g. `openshift.io`; upstream renders an empty one as `/<resourceName>`. */
  readonly resourcePrefix: string;
}

export interface SourceNad {
  readonly namespace: string;
  readonly name: string;
  readonly annotations: Readonly<Record<string, string>>;
  /** spec.config exactly as written to the NAD. */
  readonly config: string;
}

export type SourceNadResult = { readonly ok: true; readonly value: SourceNad } | { readonly ok: false; readonly error: SourceNadError };

/** Upstream writes the sriov CNI's own configuration version, whatever the chained plugins declare. */
const CNI_VERSION = '1.0.0';

/**
 * Every character Go's strings.Fields splits on (unicode.IsSpace). Upstream deletes all of them from
 * spec.ipam, inside JSON strings too; doing the same keeps the rendered bytes identical.
 */
const GO_WHITESPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/g;

/** Never throws: an invalid SriovNetwork comes back as a SourceNadError. */
export function renderSourceNad(network: SriovNetwork, options: SourceNadOptions): SourceNadResult {
  const parsed = sriovNetworkSchema.safeParse(network);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue === undefined || issue.path.length === 0 ? undefined : issue.path.join('.');
    return failure(new SourceNadError('InvalidSriovNetwork', subjectOf(network), field, issue?.message ?? 'invalid object'));
  }
  const { metadata, spec } = parsed.data;
  const subject = `${metadata.namespace}/${metadata.name}`;
  const networkNamespace = spec.networkNamespace ?? '';
  if (networkNamespace !== '' && metadata.namespace !== options.operatorNamespace) {
    return failure(
      new SourceNadError(
        'NetworkAttachmentDefinitionInvalid',
        subject,
        'spec.networkNamespace',
        `is allowed only on a SriovNetwork in the operator namespace ${options.operatorNamespace}`,
      ),
    );
  }
  try {
    return {
      ok: true,
      value: {
        namespace: networkNamespace === '' ? metadata.namespace : networkNamespace,
        name: metadata.name,
        annotations: {
          [annotations.resourceName]: `${options.resourcePrefix}/${spec.resourceName}`,
          [OWNER_REF_ANNOTATION]: sourceNadOwnerMarker(metadata.namespace, metadata.name),
        },
        config: indentJson(renderConfig(parsed.data, subject), '    '),
      },
    };
  } catch (error) {
    if (error instanceof SourceNadError) return failure(error);
    throw error;
  }
}

function failure(error: SourceNadError): SourceNadResult {
  return { ok: false, error };
}

/** `<namespace>/<name>` of an object that failed validation, as far as it can be told. */
function subjectOf(network: unknown): string {
  const metadata = (network as { metadata?: { namespace?: unknown; name?: unknown } } | null)?.metadata;
  const part = (value: unknown): string => (typeof value === 'string' && value.length <= 253 ? value : '?');
  return `${part(metadata?.namespace)}/${part(metadata?.name)}`;
}

/**
 * The compact configuration, in upstream's member order. Raw JSON fields are inserted as their source
 * text once validated, so their numbers, escapes and key order reach the NAD unchanged.
 */
function renderConfig(network: ValidSriovNetwork, subject: string): string {
  const { metadata, spec } = network;
  const sriov: string[] = [member('type', quote('sriov')), member('vlan', String(spec.vlan ?? 0))];
  if (isSet(spec.spoofChk)) sriov.push(member('spoofchk', quote(spec.spoofChk)));
  if (isSet(spec.trust)) sriov.push(member('trust', quote(spec.trust)));
  // The CRD bounds vlanQoS to 0-7, the range in which upstream writes it, so it is always present.
  sriov.push(member('vlanQoS', String(spec.vlanQoS ?? 0)));
  if (isSet(spec.vlanProto)) sriov.push(member('vlanProto', quote(spec.vlanProto)));
  if (spec.minTxRate != null) sriov.push(member('min_tx_rate', String(spec.minTxRate)));
  if (spec.maxTxRate != null) sriov.push(member('max_tx_rate', String(spec.maxTxRate)));
  if (isSet(spec.capabilities)) sriov.push(member('capabilities', rawObject(spec.capabilities, 'spec.capabilities', subject)));
  if (isSet(spec.linkState)) sriov.push(member('link_state', quote(spec.linkState)));
  if (isSet(spec.logLevel)) sriov.push(member('logLevel', quote(spec.logLevel)));
  if (isSet(spec.logFile)) sriov.push(member('logFile', quote(spec.logFile)));
  // Offsets in a parse error count in the text with whitespace removed, the text upstream parses.
  sriov.push(member('ipam', isSet(spec.ipam) ? rawObject(spec.ipam.replace(GO_WHITESPACE, ''), 'spec.ipam', subject, ' once whitespace is removed') : '{}'));

  const head = [member('cniVersion', quote(CNI_VERSION)), member('name', quote(metadata.name))];
  const plugin = `{${sriov.join(',')}}`;
  if (!isSet(spec.metaPlugins)) return `{${[...head, ...sriov].join(',')}}`;
  const chained = `[${plugin},${rawPluginList(spec.metaPlugins, subject)}]`;
  return `{${[...head, member('plugins', chained)].join(',')}}`;
}

function isSet(value: string | undefined): value is string {
  return value !== undefined && value !== '';
}

function member(key: string, value: string): string {
  return `${quote(key)}:${value}`;
}

function quote(text: string): string {
  return serializeJson(text);
}

/** `text` itself, once it is known to be exactly one JSON object; `preparation` says how text was derived from the field. */
function rawObject(text: string, field: string, subject: string, preparation = ''): string {
  const parsed = parseStrictJson(text);
  if (!parsed.ok) throw new SourceNadError('MalformedSriovNetworkJson', subject, field, `is not valid JSON${preparation}: ${parsed.error.message}`);
  if (!isJsonObject(parsed.value)) throw new SourceNadError('MalformedSriovNetworkJson', subject, field, 'must be a JSON object');
  return text;
}

/**
 * metaPlugins is spliced into the plugins array after the sriov entry, so upstream accepts one plugin
 * object or several separated by commas. Reading it inside brackets accepts exactly those lists: any
 * stray bracket closes the array early and leaves unparsed text.
 */
function rawPluginList(text: string, subject: string): string {
  const parsed = parseStrictJson(`[${text}]`);
  const field = 'spec.metaPlugins';
  if (!parsed.ok) {
    // Offsets are counted in the field, not in the bracketed copy.
    const detail = `${parsed.error.message.replace(/ at offset \d+$/, '')} at offset ${Math.max(0, parsed.error.position - 1)}`;
    throw new SourceNadError('MalformedSriovNetworkJson', subject, field, `is not a valid list of JSON objects: ${detail}`);
  }
  const plugins = parsed.value as JsonValue[];
  if (plugins.length === 0) throw new SourceNadError('MalformedSriovNetworkJson', subject, field, 'names no plugin');
  if (!plugins.every(isJsonObject)) throw new SourceNadError('MalformedSriovNetworkJson', subject, field, 'must list JSON objects only');
  return text;
}
