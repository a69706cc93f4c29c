import { SriovDraError } from '@sriov-dra/contract';
import { z } from 'zod';
import type { KubeClient } from './client.ts';
import { type ResourceType, resourceTypes } from './resources.ts';

/**
 * Typed live reads of the objects the services decide on. Every read is a GET against the API server
 * (no cache: §3.1), and the response is checked with zod against the fields the caller relies on;
 * every other field is kept. A response that lacks them is a typed InvalidApiObject error, not a crash.
 */

const metadata = z.looseObject({
  name: z.string().min(1),
  namespace: z.string().optional(),
  uid: z.string().min(1),
  resourceVersion: z.string().min(1),
  generation: z.number().optional(),
  deletionTimestamp: z.string().optional(),
  finalizers: z.array(z.string()).optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  ownerReferences: z
    .array(
      z.looseObject({
        apiVersion: z.string(),
        kind: z.string(),
        name: z.string(),
        uid: z.string(),
        controller: z.boolean().optional(),
        blockOwnerDeletion: z.boolean().optional(),
      }),
    )
    .optional(),
});

export const podSchema = z.looseObject({
  metadata,
  spec: z.looseObject({
    nodeName: z.string().optional(),
    hostNetwork: z.boolean().optional(),
    resourceClaims: z
      .array(z.looseObject({ name: z.string(), resourceClaimName: z.string().optional(), resourceClaimTemplateName: z.string().optional() }))
      .optional(),
  }),
  status: z
    .looseObject({
      phase: z.string().optional(),
      resourceClaimStatuses: z.array(z.looseObject({ name: z.string(), resourceClaimName: z.string().optional() })).optional(),
    })
    .optional(),
});

export const networkAttachmentDefinitionSchema = z.looseObject({
  metadata,
  spec: z.looseObject({ config: z.string().optional() }).optional(),
});

const deviceResult = z.looseObject({
  request: z.string(),
  driver: z.string(),
  pool: z.string(),
  device: z.string(),
  adminAccess: z.boolean().optional(),
  shareID: z.string().optional(),
});

const opaqueConfig = z.looseObject({
  source: z.string(),
  requests: z.array(z.string()).optional(),
  opaque: z.looseObject({ driver: z.string(), parameters: z.unknown() }).optional(),
});

export const resourceClaimSchema = z.looseObject({
  metadata,
  spec: z.looseObject({}).optional(),
  status: z
    .looseObject({
      allocation: z
        .looseObject({ devices: z.looseObject({ results: z.array(deviceResult).optional(), config: z.array(opaqueConfig).optional() }).optional() })
        .optional(),
      reservedFor: z.array(z.looseObject({ apiGroup: z.string().optional(), resource: z.string(), name: z.string(), uid: z.string() })).optional(),
    })
    .optional(),
});

export const nodeSchema = z.looseObject({ metadata });

export type Pod = z.infer<typeof podSchema>;
export type NetworkAttachmentDefinition = z.infer<typeof networkAttachmentDefinitionSchema>;
export type ResourceClaim = z.infer<typeof resourceClaimSchema>;
export type Node = z.infer<typeof nodeSchema>;

async function typedGet<T>(
  client: KubeClient,
  type: ResourceType,
  schema: z.ZodType<T>,
  at: { namespace?: string; name: string },
  signal?: AbortSignal,
): Promise<T> {
  const raw = await client.get(type, at, signal);
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SriovDraError('InvalidApiObject', `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`, {
      object: { kind: type.kind, namespace: at.namespace, name: at.name },
    });
  }
  return parsed.data;
}

export const readPod = (client: KubeClient, namespace: string, name: string, signal?: AbortSignal): Promise<Pod> =>
  typedGet(client, resourceTypes.pod, podSchema, { namespace, name }, signal);

export const readNetworkAttachmentDefinition = (
  client: KubeClient,
  namespace: string,
  name: string,
  signal?: AbortSignal,
): Promise<NetworkAttachmentDefinition> =>
  typedGet(client, resourceTypes.networkAttachmentDefinition, networkAttachmentDefinitionSchema, { namespace, name }, signal);

export const readResourceClaim = (client: KubeClient, namespace: string, name: string, signal?: AbortSignal): Promise<ResourceClaim> =>
  typedGet(client, resourceTypes.resourceClaim, resourceClaimSchema, { namespace, name }, signal);

export const readNode = (client: KubeClient, name: string, signal?: AbortSignal): Promise<Node> =>
  typedGet(client, resourceTypes.node, nodeSchema, { name }, signal);
