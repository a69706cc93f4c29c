import { fieldIssues, isJsonObject, isObjectRecord, parseStrictJson, type JsonValue } from '@sriov-dra/contract';
import { SourceNadError } from './source-nad-error.ts';
import { type ValidSriovNetwork, sriovNetworkSchema } from './sriov-network.ts';

/**
 * Every character Go's strings.Fields splits on (unicode.IsSpace). Upstream deletes all of them from
 * spec.ipam, inside JSON strings too; doing the same keeps the rendered bytes identical.
 */
const GO_WHITESPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/g;

/** spec.ipam as upstream parses and writes it: every whitespace character removed. */
export function compactIpam(ipam: string): string {
  return ipam.replace(GO_WHITESPACE, '');
}

export type SriovNetworkCheck =
  { readonly ok: true; readonly value: ValidSriovNetwork } | { readonly ok: false; readonly errors: readonly [SourceNadError, ...SourceNadError[]] };

/**
 * Every reason a SriovNetwork cannot be rendered into its source NAD, each at its own field: a field
 * outside the CRD's limits, spec.networkNamespace outside the operator namespace, and each raw JSON field
 * that is not the JSON its place in the CNI configuration needs. The checks are independent, so one fault
 * hides no other. Never throws.
 */
export function checkSriovNetwork(network: unknown, operatorNamespace: string): SriovNetworkCheck {
  const subject = subjectOf(network);
  const errors: SourceNadError[] = [];
  const parsed = sriovNetworkSchema.safeParse(network);
  if (!parsed.success) {
    for (const issue of fieldIssues(parsed.error, '')) {
      errors.push(new SourceNadError('InvalidSriovNetwork', subject, issue.field === '' ? undefined : issue.field, issue.detail));
    }
  }
  const metadata = isObjectRecord(network) && isObjectRecord(network['metadata']) ? network['metadata'] : {};
  const spec = isObjectRecord(network) && isObjectRecord(network['spec']) ? network['spec'] : {};
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  const networkNamespace = text(spec['networkNamespace']);
  if (networkNamespace !== '' && metadata['namespace'] !== operatorNamespace) {
    errors.push(
      new SourceNadError(
        'NetworkAttachmentDefinitionInvalid',
        subject,
        'spec.networkNamespace',
        `is allowed only on a SriovNetwork in the operator namespace ${operatorNamespace}`,
      ),
    );
  }
  const capabilities = text(spec['capabilities']);
  const ipam = text(spec['ipam']);
  const metaPlugins = text(spec['metaPlugins']);
  const problems: [string, string | undefined][] = [
    ['spec.capabilities', capabilities === '' ? undefined : jsonObjectProblem(capabilities, '')],
    // Offsets in a parse error count in the text with whitespace removed, the text upstream parses.
    ['spec.ipam', ipam === '' ? undefined : jsonObjectProblem(compactIpam(ipam), ' once whitespace is removed')],
    ['spec.metaPlugins', metaPlugins === '' ? undefined : pluginListProblem(metaPlugins)],
  ];
  for (const [field, problem] of problems) if (problem !== undefined) errors.push(new SourceNadError('MalformedSriovNetworkJson', subject, field, problem));
  const [first, ...rest] = errors;
  if (first !== undefined) return { ok: false, errors: [first, ...rest] };
  if (parsed.success) return { ok: true, value: parsed.data };
  // A failed parse always carries an issue; should one come without, the object is still refused.
  return { ok: false, errors: [new SourceNadError('InvalidSriovNetwork', subject, undefined, 'invalid object')] };
}

/** `<namespace>/<name>` of a SriovNetwork, as far as it can be told. */
function subjectOf(network: unknown): string {
  const metadata = isObjectRecord(network) && isObjectRecord(network['metadata']) ? network['metadata'] : {};
  const part = (value: unknown): string => (typeof value === 'string' && value.length <= 253 ? value : '?');
  return `${part(metadata['namespace'])}/${part(metadata['name'])}`;
}

/** Why `text` is not exactly one JSON object; `preparation` says how text was derived from the field. */
function jsonObjectProblem(text: string, preparation: string): string | undefined {
  const parsed = parseStrictJson(text);
  if (!parsed.ok) return `is not valid JSON${preparation}: ${parsed.error.message}`;
  return isJsonObject(parsed.value) ? undefined : 'must be a JSON object';
}

/**
 * metaPlugins is spliced into the plugins array after the sriov entry, so upstream accepts one plugin
 * object or several separated by commas. Reading it inside brackets accepts exactly those lists: any
 * stray bracket closes the array early and leaves unparsed text.
 */
function pluginListProblem(text: string): string | undefined {
  const parsed = parseStrictJson(`[${text}]`);
  if (!parsed.ok) {
    // Offsets are counted in the field, not in the bracketed copy.
    const detail = `${parsed.error.message.replace(/ at offset \d+$/, '')} at offset ${Math.max(0, parsed.error.position - 1)}`;
    return `is not a valid list of JSON objects: ${detail}`;
  }
  const plugins = parsed.value as JsonValue[];
  if (plugins.length === 0) return 'names no plugin';
  return plugins.every(isJsonObject) ? undefined : 'must list JSON objects only';
}
