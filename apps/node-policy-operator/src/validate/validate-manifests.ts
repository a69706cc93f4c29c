import { type AdmissionFinding, WHOLE_OBJECT, describeFinding } from '../admission/admission-finding.ts';
import { SRIOV_NETWORK_API_VERSION, admissionObjectSchema, inNamespace, isAdmittedKind } from '../admission/admission-object.ts';
import { admitObject } from '../admission/admit-object.ts';
import type { ManifestDocument, ManifestInputError } from './read-manifests.ts';
import { asAdmitted, schemaFindings } from './schema-findings.ts';

export interface ValidateOptions {
  readonly operatorNamespace: string;
  /** Where an object without metadata.namespace is applied (kubectl's -n). */
  readonly namespace: string;
}

export interface ManifestFinding extends AdmissionFinding {
  readonly file: string;
  readonly kind: string;
  readonly namespace: string;
  /** The object's name, or its generateName followed by `*`. */
  readonly name: string;
}

export interface ValidationReport {
  readonly findings: readonly ManifestFinding[];
  /** Documents that are no Kubernetes object the checks could read. */
  readonly errors: readonly ManifestInputError[];
  /** How many SriovNetworkNodePolicy and SriovNetwork objects were checked. */
  readonly checked: number;
}

/**
 * Judges every SriovNetworkNodePolicy and SriovNetwork among the documents (items of a List included) as
 * the API server with the chart installed does: against its CRD's schema and by the admission core, and
 * reports the findings of both in one run. The API server asks the webhook only about objects the schema
 * admits, so a user fixing one layer at a time would meet the webhook's findings only on the next try;
 * here every independent fault is listed at once. A field the schema refuses is not reported again by
 * the admission core (the SriovNetwork rules repeat the CRD's limits). Other kinds and kind-less
 * documents (Helm values, say) are not this command's to judge.
 */
export function validateManifests(documents: readonly ManifestDocument[], options: ValidateOptions): ValidationReport {
  const findings: ManifestFinding[] = [];
  const errors: ManifestInputError[] = [];
  let checked = 0;
  const visit = (file: string, where: string, value: unknown): void => {
    if (value === null) return;
    if (typeof value !== 'object' || Array.isArray(value)) {
      errors.push({ file, message: `${where} is not a Kubernetes object` });
      return;
    }
    const { apiVersion, kind, items } = value as { apiVersion?: unknown; kind?: unknown; items?: unknown };
    if (kind === 'List' && Array.isArray(items)) {
      items.forEach((item: unknown, position) => {
        visit(file, `${where} item ${position + 1}`, item);
      });
      return;
    }
    if (apiVersion !== SRIOV_NETWORK_API_VERSION || !isAdmittedKind(kind)) return;
    const parsed = admissionObjectSchema.safeParse(value);
    if (!parsed.success) {
      errors.push({ file, message: `${where}: ${kind} has no metadata object` });
      return;
    }
    checked += 1;
    const object = inNamespace(parsed.data, options.namespace);
    const identity = { file, kind, namespace: String(object.metadata.namespace), name: nameOf(object.metadata) };
    const refused = schemaFindings(kind, object);
    const admission = admitObject(kind, asAdmitted(kind, object), options).filter((finding) => !refused.some((schema) => covers(schema.field, finding.field)));
    for (const finding of [...refused, ...admission]) findings.push({ ...identity, ...finding });
  };
  for (const document of documents) visit(document.file, `document ${document.index}`, document.value);
  return { findings, errors, checked };
}

/** Whether a schema finding at `schemaField` already reports a fault at `field`: the same field or one inside it. */
function covers(schemaField: string, field: string): boolean {
  if (schemaField === WHOLE_OBJECT) return true;
  return field === schemaField || field.startsWith(`${schemaField}.`) || field.startsWith(`${schemaField}[`);
}

function nameOf(metadata: { name?: unknown; generateName?: unknown }): string {
  if (typeof metadata.name === 'string' && metadata.name !== '') return metadata.name;
  return typeof metadata.generateName === 'string' ? `${metadata.generateName}*` : '?';
}

/** `file: Kind namespace/name: field: message`, one line per finding. */
export function formatFinding(finding: ManifestFinding): string {
  return `${finding.file}: ${finding.kind} ${finding.namespace}/${finding.name}: ${describeFinding(finding)}`;
}
