import type { SchemaNode } from '../../src/crds/crd-manifest.ts';

/**
 * The paths of every property below `node` without a description, walking properties, array items and map
 * values ("[]" and "*" in a path): `kubectl explain` and editors show nothing for such a field. An object's
 * metadata is exempt: the API server refuses a CRD that says more of it than its type, and describes it itself.
 */
export function undescribedFields(node: SchemaNode, path: string): string[] {
  const found: string[] = [];
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const at = `${path}.${name}`;
    if (at === '.metadata') continue;
    if (typeof child['description'] !== 'string' || child['description'].trim() === '') found.push(at);
    found.push(...undescribedFields(child, at));
  }
  const items = node['items'];
  if (typeof items === 'object' && items !== null) found.push(...undescribedFields(items as SchemaNode, `${path}[]`));
  const values = node['additionalProperties'];
  if (typeof values === 'object' && values !== null) found.push(...undescribedFields(values as SchemaNode, `${path}.*`));
  return found;
}
