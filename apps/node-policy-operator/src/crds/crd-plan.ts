import { SriovDraError, jsonEqualIgnoringKeyOrder } from '@sriov-dra/contract';
import { type CrdManifest, type CrdVersion, type SchemaNode, schemaAt } from './crd-manifest.ts';
import { CONDITIONS_FIELD, DRA_FIELD, DRA_SCHEMA_ANNOTATION, DRA_SCHEMA_OWNER, fieldName } from './dra-fields.ts';

/** What `crds apply` does with one CRD. */
export type CrdPlan =
  | { readonly action: 'create'; readonly name: string; readonly crd: CrdManifest }
  /** `crd` is the installed CRD with `added` merged in, carrying the resourceVersion it was read at. */
  | { readonly action: 'upgrade'; readonly name: string; readonly crd: CrdManifest; readonly added: readonly string[] }
  | { readonly action: 'unchanged'; readonly name: string }
  | { readonly action: 'refused'; readonly name: string; readonly error: SriovDraError };

/** Whether crds/*.yaml gives this CRD fields of this project's own (spec.dra) to add to an installed copy. */
export function carriesDraSchema(crd: CrdManifest): boolean {
  return crd.metadata.annotations?.[DRA_SCHEMA_ANNOTATION] === DRA_SCHEMA_OWNER;
}

function refused(name: string, detail: string): CrdPlan {
  return { action: 'refused', name, error: new SriovDraError('CrdNotMergeable', detail, { object: { kind: 'CustomResourceDefinition', name } }) };
}

/** `node` with `value` at `path` below it, every object on the way copied (nothing shared with the input). */
function withSchemaAt(node: SchemaNode, path: readonly string[], value: SchemaNode): SchemaNode {
  const [step, ...rest] = path;
  if (step === undefined) return value;
  const child = node.properties?.[step] ?? { type: 'object' };
  return { ...node, properties: { ...node.properties, [step]: withSchemaAt(child, rest, value) } };
}

interface VersionMerge {
  readonly version: CrdVersion;
  readonly added: readonly string[];
}

/**
 * Our fields merged into one served version of the installed CRD: spec.dra set to ours (refused when another
 * project declares a different one), status.conditions added only where upstream's status declares none.
 */
function mergeVersion(name: string, installed: CrdVersion, ours: CrdVersion, ownsDra: boolean): VersionMerge | { readonly refusal: CrdPlan } {
  const spec = schemaAt(installed, ['spec']);
  if (spec?.['type'] !== 'object' || spec.properties === undefined) {
    return { refusal: refused(name, `version ${installed.name} has no object schema for spec to add spec.dra to`) };
  }
  const ourDra = schemaAt(ours, DRA_FIELD);
  const ourConditions = schemaAt(ours, CONDITIONS_FIELD);
  if (ourDra === undefined || ourConditions === undefined) throw new Error(`crds/ gives ${name} ${ours.name} no spec.dra or status.conditions`);
  const installedDra = schemaAt(installed, DRA_FIELD);
  if (installedDra !== undefined && !ownsDra && !jsonEqualIgnoringKeyOrder(installedDra, ourDra)) {
    return {
      refusal: refused(
        name,
        `version ${installed.name} already declares a spec.dra of its own (no ${DRA_SCHEMA_ANNOTATION} annotation), which this release would overwrite`,
      ),
    };
  }
  let root = installed.schema?.openAPIV3Schema ?? {};
  const added: string[] = [];
  if (installedDra === undefined || !jsonEqualIgnoringKeyOrder(installedDra, ourDra)) {
    root = withSchemaAt(root, DRA_FIELD, ourDra);
    added.push(`${installed.name} ${fieldName(DRA_FIELD)}`);
  }
  const status = schemaAt(installed, ['status']);
  if (schemaAt(installed, CONDITIONS_FIELD) === undefined && status?.['x-kubernetes-preserve-unknown-fields'] !== true) {
    root = withSchemaAt(root, CONDITIONS_FIELD, ourConditions);
    added.push(`${installed.name} ${fieldName(CONDITIONS_FIELD)}`);
  }
  return { version: added.length === 0 ? installed : { ...installed, schema: { ...installed.schema, openAPIV3Schema: root } }, added };
}

/**
 * What to do with `ours` (from crds/) given the installed CRD of that name, if any: create it; add our
 * spec.dra (and the conditions the operator writes) to every served version of an installed one, keeping
 * everything else it has; or refuse when that cannot be done safely. A CRD without fields of ours (a NAD,
 * SriovNetwork, SriovNetworkNodeState) is left as installed.
 */
export function planCrd(ours: CrdManifest, installed: CrdManifest | undefined): CrdPlan {
  const name = ours.metadata.name;
  if (installed === undefined) return { action: 'create', name, crd: ours };
  if (!carriesDraSchema(ours)) return { action: 'unchanged', name };
  if (installed.spec.group !== ours.spec.group || installed.spec.names.kind !== ours.spec.names.kind || installed.spec.scope !== ours.spec.scope) {
    return refused(
      name,
      `it defines ${installed.spec.scope} kind ${installed.spec.names.kind} of ${installed.spec.group}; this release expects ${ours.spec.scope} ${ours.spec.names.kind}`,
    );
  }
  const ownsDra = carriesDraSchema(installed);
  const versions: CrdVersion[] = [];
  const added: string[] = [];
  for (const version of installed.spec.versions) {
    if (!version.served) {
      versions.push(version);
      continue;
    }
    const known = ours.spec.versions.find((candidate) => candidate.name === version.name);
    if (known === undefined) {
      return refused(
        name,
        `it serves version ${version.name}, which this release does not know (it knows ${ours.spec.versions.map((candidate) => candidate.name).join(', ')})`,
      );
    }
    const merged = mergeVersion(name, version, known, ownsDra);
    if ('refusal' in merged) return merged.refusal;
    versions.push(merged.version);
    added.push(...merged.added);
  }
  if (added.length === 0) return { action: 'unchanged', name };
  return {
    action: 'upgrade',
    name,
    added,
    crd: {
      ...installed,
      metadata: { ...installed.metadata, annotations: { ...installed.metadata.annotations, [DRA_SCHEMA_ANNOTATION]: DRA_SCHEMA_OWNER } },
      spec: { ...installed.spec, versions },
    },
  };
}
