import { type ObjectRef, SriovDraError, isUUID } from '@sriov-dra/contract';
import { type KubeClient, isApiError, readNetworkAttachmentDefinition } from '@sriov-dra/k8s';
import { z } from 'zod';
import type { SourceReference } from './network-template.ts';

/** The source NAD as frozen into a binding plan (§5.4): its identity, version and exact configuration text. */
export interface SourceTemplate extends SourceReference {
  readonly uid: string;
  readonly resourceVersion: string;
  /** spec.config exactly as stored: the renderer decodes it losslessly, so nothing here may re-encode it. */
  readonly config: string;
}

/** The fields a binding records about its source; the binding annotation requires a UUID. */
const sourceNadSchema = z.looseObject({
  metadata: z.looseObject({
    uid: z.string().refine(isUUID, 'must be a lowercase UUID'),
    resourceVersion: z.string().min(1),
  }),
  spec: z.looseObject({ config: z.string().optional() }).optional(),
});

/**
 * Reads a source template live, with the driver's own authorization and no cache (§3.1, §5.2 step 5):
 * the snapshot is taken from what the API server holds now. A missing or unreadable template is
 * reported against the NAD with what to do; a file-backed NAD (empty spec.config) is refused, since a
 * shadow must carry its configuration inline (§4.1).
 */
export async function readSourceTemplate(client: KubeClient, reference: SourceReference, signal?: AbortSignal): Promise<SourceTemplate> {
  const object: ObjectRef = { kind: 'NetworkAttachmentDefinition', namespace: reference.namespace, name: reference.name };
  let raw: unknown;
  try {
    raw = await readNetworkAttachmentDefinition(client, reference.namespace, reference.name, signal);
  } catch (error) {
    if (isApiError(error, 'NotFound')) {
      throw new SriovDraError('ApiNotFound', 'the source template does not exist', {
        object,
        cause: error,
        remedy: `create it, or correct the reference that selects it (netAttachDefName/netAttachDefNamespace in the device attributes or the VfConfig; an empty namespace means the Pod's); no hardware was changed`,
      });
    }
    if (isApiError(error, 'Forbidden')) {
      throw new SriovDraError('ApiForbidden', 'the driver may not read the source template', {
        object,
        cause: error,
        remedy: `grant the driver's ServiceAccount get on network-attachment-definitions.k8s.cni.cncf.io in namespace ${reference.namespace} (the chart's ClusterRole does), or reference a template it may read; no hardware was changed`,
      });
    }
    throw error;
  }
  const parsed = sourceNadSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SriovDraError('InvalidApiObject', `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`, { object });
  }
  const { metadata, spec } = parsed.data;
  const config = spec?.config ?? '';
  if (config.trim() === '') {
    throw new SriovDraError('MissingInlineConfig', 'spec.config is empty: the configuration is file-backed or missing', { object });
  }
  return { namespace: reference.namespace, name: reference.name, uid: metadata.uid, resourceVersion: metadata.resourceVersion, config };
}
