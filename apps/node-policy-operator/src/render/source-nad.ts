import { annotations, serializeJson } from '@sriov-dra/contract';
import { indentJson } from './json-indent.ts';
import type { SourceNadError } from './source-nad-error.ts';
import { checkSriovNetwork, compactIpam } from './sriov-network-check.ts';
import type { SriovNetwork, ValidSriovNetwork } from './sriov-network.ts';

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

/** On failure, `error` is the first of `errors`, every reason the SriovNetwork cannot be rendered. */
export type SourceNadResult =
  | { readonly ok: true; readonly value: SourceNad }
  | { readonly ok: false; readonly error: SourceNadError; readonly errors: readonly [SourceNadError, ...SourceNadError[]] };

/** Upstream writes the sriov CNI's own configuration version, whatever the chained plugins declare. */
const CNI_VERSION = '1.0.0';

/** Never throws: an invalid SriovNetwork comes back with every SourceNadError it has. */
export function renderSourceNad(network: SriovNetwork, options: SourceNadOptions): SourceNadResult {
  const checked = checkSriovNetwork(network, options.operatorNamespace);
  if (!checked.ok) return { ok: false, error: checked.errors[0], errors: checked.errors };
  const { metadata, spec } = checked.value;
  const networkNamespace = spec.networkNamespace ?? '';
  return {
    ok: true,
    value: {
      namespace: networkNamespace === '' ? metadata.namespace : networkNamespace,
      name: metadata.name,
      annotations: {
        [annotations.resourceName]: `${options.resourcePrefix}/${spec.resourceName}`,
        [OWNER_REF_ANNOTATION]: sourceNadOwnerMarker(metadata.namespace, metadata.name),
      },
      config: indentJson(renderConfig(checked.value), '    '),
    },
  };
}

/**
 * The compact configuration, in upstream's member order. Raw JSON fields are inserted as their source
 * text, which checkSriovNetwork has validated, so their numbers, escapes and key order reach the NAD unchanged.
 */
function renderConfig(network: ValidSriovNetwork): string {
  const { metadata, spec } = network;
  const sriov: string[] = [member('type', quote('sriov')), member('vlan', String(spec.vlan ?? 0))];
  if (isSet(spec.spoofChk)) sriov.push(member('spoofchk', quote(spec.spoofChk)));
  if (isSet(spec.trust)) sriov.push(member('trust', quote(spec.trust)));
  // The CRD bounds vlanQoS to 0-7, the range in which upstream writes it, so it is always present.
  sriov.push(member('vlanQoS', String(spec.vlanQoS ?? 0)));
  if (isSet(spec.vlanProto)) sriov.push(member('vlanProto', quote(spec.vlanProto)));
  if (spec.minTxRate != null) sriov.push(member('min_tx_rate', String(spec.minTxRate)));
  if (spec.maxTxRate != null) sriov.push(member('max_tx_rate', String(spec.maxTxRate)));
  if (isSet(spec.capabilities)) sriov.push(member('capabilities', spec.capabilities));
  if (isSet(spec.linkState)) sriov.push(member('link_state', quote(spec.linkState)));
  if (isSet(spec.logLevel)) sriov.push(member('logLevel', quote(spec.logLevel)));
  if (isSet(spec.logFile)) sriov.push(member('logFile', quote(spec.logFile)));
  sriov.push(member('ipam', isSet(spec.ipam) ? compactIpam(spec.ipam) : '{}'));

  const head = [member('cniVersion', quote(CNI_VERSION)), member('name', quote(metadata.name))];
  const plugin = `{${sriov.join(',')}}`;
  if (!isSet(spec.metaPlugins)) return `{${[...head, ...sriov].join(',')}}`;
  const chained = `[${plugin},${spec.metaPlugins}]`;
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
