import { type Result, fail, isDns1123Label, isDns1123Subdomain, ok } from '@sriov-dra/contract';
import { parseAllDocuments } from 'yaml';
import { z } from 'zod';

/** A NetworkAttachmentDefinition manifest, as far as rendering and the binding provenance read it. */
const nadManifestSchema = z.looseObject({
  apiVersion: z.literal('k8s.cni.cncf.io/v1'),
  kind: z.literal('NetworkAttachmentDefinition'),
  metadata: z.looseObject({
    name: z.string().refine(isDns1123Subdomain, 'must be a NAD name (DNS-1123 subdomain)'),
    namespace: z.string().refine(isDns1123Label, 'must be a namespace name').optional(),
    uid: z.string().optional(),
    resourceVersion: z.string().optional(),
  }),
  spec: z.looseObject({ config: z.string().optional() }).optional(),
});

export type NadManifest = z.infer<typeof nadManifestSchema>;

const REMEDY = 'give --nad one NetworkAttachmentDefinition manifest in YAML or JSON, e.g. kubectl get network-attachment-definitions NAME -n NAMESPACE -o yaml';

function unusable(detail: string): Result<never> {
  return fail('InvalidComponentSetting', detail, { object: { kind: 'Flag', name: '--nad' }, remedy: REMEDY });
}

/**
 * Reads a NAD manifest. YAML is read as kubectl reads it (YAML 1.1, so what is judged is what the API
 * server would store), duplicate keys are an error rather than a silent choice, and JSON is YAML.
 */
export function parseNadManifest(text: string): Result<NadManifest> {
  const documents = parseAllDocuments(text, { version: '1.1', uniqueKeys: true });
  const document = documents[0];
  if (documents.length !== 1 || document === undefined) return unusable('the file must hold exactly one YAML or JSON document');
  const [error] = document.errors;
  if (error !== undefined) return unusable(`not valid YAML or JSON: ${error.message.split('\n')[0] ?? ''}`);
  let value: unknown;
  try {
    value = document.toJS();
  } catch (cause) {
    // Alias expansion beyond toJS's limit ("billion laughs") ends up here.
    return unusable(`cannot be read: ${(cause as Error).message}`);
  }
  const parsed = nadManifestSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return unusable(`${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  return ok(parsed.data);
}
