import { type ObjectRef, type Result, fail, ok } from '@sriov-dra/contract';
import { z } from 'zod';

/**
 * The trust boundary of consumer resolution (§6.1): the ResourceClaim, Pod and Node fields the rules read,
 * checked with zod and normalized into plain records. Kubernetes omits unset optional fields, but other
 * writers and proxies may spell them as null; both mean "unset" here. A malformed object is an
 * InvalidApiObject rejection naming the object and the field, never an exception from deep inside a rule.
 * Semantic problems (an empty reservation, a reservation without a UID) are left to the rules, which name
 * them precisely.
 */

const name = z.string().min(1);

const ownerReference = z.looseObject({
  apiVersion: z.string(),
  kind: z.string(),
  name: z.string(),
  uid: z.string(),
  controller: z.boolean().nullish(),
});

const objectMeta = z.looseObject({
  name,
  namespace: name,
  uid: name,
  deletionTimestamp: z.string().nullish(),
  annotations: z.record(z.string(), z.string()).nullish(),
  ownerReferences: z.array(ownerReference).nullish(),
});

const claimSchema = z.looseObject({
  metadata: objectMeta,
  spec: z
    .looseObject({
      devices: z
        .looseObject({
          requests: z.array(z.looseObject({ name: z.string(), exactly: z.looseObject({ adminAccess: z.boolean().nullish() }).nullish() })).nullish(),
        })
        .nullish(),
    })
    .nullish(),
  status: z
    .looseObject({
      allocation: z
        .looseObject({
          devices: z
            .looseObject({
              results: z
                .array(
                  z.looseObject({
                    request: z.string(),
                    driver: z.string(),
                    pool: z.string(),
                    device: z.string(),
                    adminAccess: z.boolean().nullish(),
                    shareID: z.string().nullish(),
                    consumedCapacity: z.record(z.string(), z.unknown()).nullish(),
                  }),
                )
                .nullish(),
            })
            .nullish(),
        })
        .nullish(),
      reservedFor: z
        .array(z.looseObject({ apiGroup: z.string().nullish(), resource: z.string().nullish(), name: z.string().nullish(), uid: z.string().nullish() }))
        .nullish(),
    })
    .nullish(),
});

const podSchema = z.looseObject({
  metadata: objectMeta,
  spec: z.looseObject({
    nodeName: z.string().nullish(),
    hostNetwork: z.boolean().nullish(),
    resourceClaims: z.array(z.looseObject({ name, resourceClaimName: z.string().nullish(), resourceClaimTemplateName: z.string().nullish() })).nullish(),
  }),
  status: z
    .looseObject({
      resourceClaimStatuses: z.array(z.looseObject({ name, resourceClaimName: z.string().nullish() })).nullish(),
      extendedResourceClaimStatus: z
        .looseObject({
          resourceClaimName: z.string(),
          requestMappings: z.array(z.looseObject({ containerName: z.string(), resourceName: z.string(), requestName: z.string() })).nullish(),
        })
        .nullish(),
    })
    .nullish(),
});

const nodeSchema = z.looseObject({ metadata: z.looseObject({ name, uid: name }) });

/** The controlling owner of an object (metav1.GetControllerOf): the first ownerReference with controller true. */
export interface ControllerRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
}

/** One status.allocation.devices.results entry. */
export interface AllocationResult {
  /** The request name, or `<request>/<subrequest>` for a prioritized-list subrequest. */
  readonly request: string;
  readonly driver: string;
  readonly pool: string;
  readonly device: string;
  readonly adminAccess: boolean;
  /** Set only when the device is shared between allocations (DRAConsumableCapacity). */
  readonly shareID: string | undefined;
  /** Capacity this allocation consumes from a shareable device; empty when the device is allocated whole. */
  readonly consumedCapacity: ReadonlyMap<string, unknown>;
}

/** One status.reservedFor entry; an absent field is "". */
export interface ConsumerReference {
  readonly apiGroup: string;
  readonly resource: string;
  readonly name: string;
  readonly uid: string;
}

export interface ConsumerClaim {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly annotations: ReadonlyMap<string, string>;
  readonly controller: ControllerRef | undefined;
  /** spec.devices.requests: the admin-access flag of each top-level request. */
  readonly requests: readonly { readonly name: string; readonly adminAccess: boolean }[];
  /** status.allocation; undefined while the claim is not allocated. */
  readonly allocation: { readonly results: readonly AllocationResult[] } | undefined;
  readonly reservedFor: readonly ConsumerReference[];
}

/** One pod.spec.resourceClaims entry: exactly one source is set by a valid API object. */
export interface PodClaimEntry {
  readonly name: string;
  readonly resourceClaimName: string | undefined;
  readonly resourceClaimTemplateName: string | undefined;
}

/** One pod.status.resourceClaimStatuses entry; an unset claim name means "intentionally not created". */
export interface PodClaimStatus {
  readonly name: string;
  readonly resourceClaimName: string | undefined;
}

/** pod.status.extendedResourceClaimStatus: the claim the scheduler generated for DRA-backed extended resources. */
export interface ExtendedResourceClaimStatus {
  readonly resourceClaimName: string;
  readonly requestMappings: readonly { readonly containerName: string; readonly resourceName: string; readonly requestName: string }[];
}

export interface ConsumerPod {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly terminating: boolean;
  /** "" while the Pod is not bound to a node. */
  readonly nodeName: string;
  readonly hostNetwork: boolean;
  readonly resourceClaims: readonly PodClaimEntry[];
  readonly resourceClaimStatuses: readonly PodClaimStatus[];
  readonly extendedResourceClaim: ExtendedResourceClaimStatus | undefined;
}

export interface ConsumerNode {
  readonly name: string;
  readonly uid: string;
}

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue === undefined ? 'invalid' : `${issue.path.map(String).join('.')}: ${issue.message}`;
}

/** `at`, completed with the namespace and name the object itself carries, when those are readable. */
function named(value: unknown, at: ObjectRef): ObjectRef {
  const metadata: unknown = typeof value === 'object' && value !== null ? (value as { metadata?: unknown }).metadata : undefined;
  if (typeof metadata !== 'object' || metadata === null) return at;
  const { namespace, name } = metadata as { namespace?: unknown; name?: unknown };
  return { ...at, ...(typeof namespace === 'string' ? { namespace } : {}), ...(typeof name === 'string' ? { name } : {}) };
}

function parse<T>(schema: z.ZodType<T>, value: unknown, at: ObjectRef): Result<T> {
  const parsed = schema.safeParse(value);
  return parsed.success ? ok(parsed.data) : fail('InvalidApiObject', describeIssue(parsed.error), { object: named(value, at) });
}

function controllerOf(owners: readonly z.infer<typeof ownerReference>[] | null | undefined): ControllerRef | undefined {
  const owner = owners?.find((reference) => reference.controller === true);
  return owner === undefined ? undefined : { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name, uid: owner.uid };
}

/** Decodes a ResourceClaim; `at` names it in errors where its own metadata cannot. */
export function parseConsumerClaim(value: unknown, at: ObjectRef): Result<ConsumerClaim> {
  const parsed = parse(claimSchema, value, at);
  if (!parsed.ok) return parsed;
  const { metadata, spec, status } = parsed.value;
  const allocation = status?.allocation;
  return ok({
    namespace: metadata.namespace,
    name: metadata.name,
    uid: metadata.uid,
    annotations: new Map(Object.entries(metadata.annotations ?? {})),
    controller: controllerOf(metadata.ownerReferences),
    requests: (spec?.devices?.requests ?? []).map((request) => ({ name: request.name, adminAccess: request.exactly?.adminAccess === true })),
    allocation:
      allocation === undefined || allocation === null
        ? undefined
        : {
            results: (allocation.devices?.results ?? []).map((result) => ({
              request: result.request,
              driver: result.driver,
              pool: result.pool,
              device: result.device,
              adminAccess: result.adminAccess === true,
              shareID: result.shareID ?? undefined,
              consumedCapacity: new Map(Object.entries(result.consumedCapacity ?? {})),
            })),
          },
    reservedFor: (status?.reservedFor ?? []).map((consumer) => ({
      apiGroup: consumer.apiGroup ?? '',
      resource: consumer.resource ?? '',
      name: consumer.name ?? '',
      uid: consumer.uid ?? '',
    })),
  });
}

export function parseConsumerPod(value: unknown, at: ObjectRef): Result<ConsumerPod> {
  const parsed = parse(podSchema, value, at);
  if (!parsed.ok) return parsed;
  const { metadata, spec, status } = parsed.value;
  const extended = status?.extendedResourceClaimStatus;
  return ok({
    namespace: metadata.namespace,
    name: metadata.name,
    uid: metadata.uid,
    terminating: typeof metadata.deletionTimestamp === 'string',
    nodeName: spec.nodeName ?? '',
    hostNetwork: spec.hostNetwork === true,
    resourceClaims: (spec.resourceClaims ?? []).map((entry) => ({
      name: entry.name,
      resourceClaimName: entry.resourceClaimName ?? undefined,
      resourceClaimTemplateName: entry.resourceClaimTemplateName ?? undefined,
    })),
    resourceClaimStatuses: (status?.resourceClaimStatuses ?? []).map((entry) => ({
      name: entry.name,
      resourceClaimName: entry.resourceClaimName ?? undefined,
    })),
    extendedResourceClaim:
      extended === undefined || extended === null
        ? undefined
        : { resourceClaimName: extended.resourceClaimName, requestMappings: extended.requestMappings ?? [] },
  });
}

export function parseConsumerNode(value: unknown, at: ObjectRef): Result<ConsumerNode> {
  const parsed = parse(nodeSchema, value, at);
  return parsed.ok ? ok({ name: parsed.value.metadata.name, uid: parsed.value.metadata.uid }) : parsed;
}
