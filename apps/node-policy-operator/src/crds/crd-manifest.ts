import { z } from 'zod';

/** A node of an openAPIV3Schema; only `properties` is walked, every other keyword is carried as it is. */
export interface SchemaNode {
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly [keyword: string]: unknown;
}

export interface CrdVersion {
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  readonly schema?: { readonly openAPIV3Schema?: SchemaNode };
  readonly [field: string]: unknown;
}

/** A CustomResourceDefinition as read from the API server or from crds/*.yaml; unknown fields kept. */
export interface CrdManifest {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: {
    readonly name: string;
    readonly resourceVersion?: string;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly [field: string]: unknown;
  };
  readonly spec: {
    readonly group: string;
    readonly scope: string;
    readonly names: { readonly kind: string; readonly plural: string; readonly [field: string]: unknown };
    readonly versions: readonly CrdVersion[];
    readonly [field: string]: unknown;
  };
  readonly [field: string]: unknown;
}

// What this project relies on in a CRD the API server returns; everything else passes through untouched,
// since an upgrade writes the whole object back.
const schemaNode: z.ZodType<SchemaNode> = z.lazy(() => z.looseObject({ properties: z.record(z.string(), schemaNode).optional() }));

export const crdManifestSchema: z.ZodType<CrdManifest> = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: z.looseObject({
    name: z.string().min(1),
    resourceVersion: z.string().optional(),
    annotations: z.record(z.string(), z.string()).optional(),
  }),
  spec: z.looseObject({
    group: z.string(),
    scope: z.string(),
    names: z.looseObject({ kind: z.string(), plural: z.string() }),
    versions: z.array(
      z.looseObject({
        name: z.string(),
        served: z.boolean(),
        storage: z.boolean(),
        schema: z.looseObject({ openAPIV3Schema: schemaNode.optional() }).optional(),
      }),
    ),
  }),
});

/** The schema of `version` at `path` (property names from the root), or undefined. */
export function schemaAt(version: CrdVersion, path: readonly string[]): SchemaNode | undefined {
  let node: SchemaNode | undefined = version.schema?.openAPIV3Schema;
  for (const step of path) node = node?.properties !== undefined && Object.hasOwn(node.properties, step) ? node.properties[step] : undefined;
  return node;
}
