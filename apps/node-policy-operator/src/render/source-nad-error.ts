/**
 * Why a SriovNetwork cannot be rendered into its source NAD. The controller reports every one of them as
 * Ready=False with reason NetworkAttachmentDefinitionInvalid, the reason the upstream operator uses for
 * both the namespace rule and a failed rendering; the code says which of the three it was.
 */
export type SourceNadCode =
  /** spec.networkNamespace on a SriovNetwork outside the operator namespace (upstream's own name for it). */
  | 'NetworkAttachmentDefinitionInvalid'
  /** The object lacks a field rendering needs, or a field is outside the CRD's allowed values. */
  | 'InvalidSriovNetwork'
  /** capabilities, ipam or metaPlugins is not the JSON the CNI configuration needs there. */
  | 'MalformedSriovNetworkJson';

const REMEDIES: Readonly<Record<SourceNadCode, string>> = {
  NetworkAttachmentDefinitionInvalid:
    'remove spec.networkNamespace (the NAD is then created in the SriovNetwork namespace), or move the SriovNetwork into the operator namespace',
  InvalidSriovNetwork: 'fix the field named above; the installed CRD schema should have rejected it, so check that the CRD is current',
  MalformedSriovNetworkJson:
    'give the field named above valid JSON without duplicate keys: capabilities and ipam one object each, metaPlugins one or more comma-separated plugin objects',
};

export class SourceNadError extends Error {
  override readonly name = 'SourceNadError';
  readonly code: SourceNadCode;
  /** `<namespace>/<name>` of the SriovNetwork. */
  readonly subject: string;
  /** The spec field at fault, e.g. `spec.ipam`, when the problem is that narrow. */
  readonly field: string | undefined;
  /** What is wrong with the field, without the code, subject or remedy. */
  readonly detail: string;
  /** What to do about it. */
  readonly remedy: string;

  constructor(code: SourceNadCode, subject: string, field: string | undefined, detail: string) {
    super(`${code}: SriovNetwork ${subject}${field === undefined ? '' : ` ${field}`}: ${detail} \u2014 ${REMEDIES[code]}`);
    this.code = code;
    this.subject = subject;
    this.field = field;
    this.detail = detail;
    this.remedy = REMEDIES[code];
  }
}
