import { type Result, SriovDraError } from '@sriov-dra/contract';
import { type Pod, podSchema } from '@sriov-dra/k8s';
import { reservedPodOf } from './claim-reservation.ts';
import { type ConsumerClaim, parseConsumerClaim, parseConsumerNode, parseConsumerPod } from './consumer-objects.ts';
import { type ResolvePurpose, checkPodEligibility, podObject, verifyConsumerPod } from './consumer-pod.ts';
import { rejectExtendedResourceClaim } from './extended-resource-claim.ts';
import { type DeviceSnapshot, type OwnedResult, ownedResults } from './owned-results.ts';
import { podClaimNames } from './pod-claim-names.ts';
import { type PodClaimReference, otherClaimNames, verifyPodClaimReferences } from './pod-claim-references.ts';

/**
 * Live GETs of the objects consumer resolution decides on (§3.1: never an informer cache). Each resolves
 * to the object as the API server returned it, undecoded, or to undefined when it does not exist (404);
 * any other failure rejects.
 */
export interface ConsumerReader {
  pod(namespace: string, name: string, signal?: AbortSignal): Promise<unknown>;
  node(name: string, signal?: AbortSignal): Promise<unknown>;
  claim(namespace: string, name: string, signal?: AbortSignal): Promise<unknown>;
}

export interface ResolveContext {
  readonly reader: ConsumerReader;
  /** The node this driver serves (--node-name) and the UID its Node object had when the driver started. */
  readonly nodeName: string;
  readonly nodeUID: string;
  /** This driver's name: allocation results of other drivers are ignored. */
  readonly driverName: string;
  readonly snapshot: DeviceSnapshot;
  readonly purpose: ResolvePurpose;
  readonly signal?: AbortSignal;
}

/** The consumer once its identity is proven: what every later managed step keys its state by. */
export interface VerifiedPod {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly nodeName: string;
  /** As the live GET returned them: the binding plan checks the selections it will merge against these. */
  readonly annotations: Readonly<Record<string, string>>;
}

export interface ResolvedConsumer {
  readonly pod: VerifiedPod;
  /** Every claim the Pod uses, one entry per claim UID; intentionally absent template claims are left out. */
  readonly claims: readonly PodClaimReference[];
  /** The claim's allocation results of this driver, each a device of this node's pool. */
  readonly results: readonly OwnedResult[];
  /** The Pod as read: the first guarded patch of its selections is tested against this resourceVersion. */
  readonly livePod: Pod;
  /** The Pod's other claims as just read, undecoded, by name: planning reads none of them again. */
  readonly otherClaims: ReadonlyMap<string, unknown>;
}

function unwrap<T>(result: Result<T>): T {
  if (!result.ok) throw result.error;
  return result.value;
}

/**
 * ResolvePodForClaim (§6.1): from a ResourceClaim as just read live, the one Pod it serves on this node,
 * proven by the reservation, the live Pod and Node, and the Pod's own references, with the claim's
 * devices of this driver. Rejects with a SriovDraError whose code names the broken rule (an API failure
 * rejects with its KubeApiError); nothing is written. The steps run in the specification's order, so the
 * first broken rule is the one reported.
 */
export async function resolvePodForClaim(liveClaim: unknown, context: ResolveContext): Promise<ResolvedConsumer> {
  const { reader, signal } = context;
  const claim = unwrap(parseConsumerClaim(liveClaim, { kind: 'ResourceClaim' }));
  const reserved = unwrap(reservedPodOf(claim));

  const [livePod, liveNode] = await Promise.all([reader.pod(reserved.namespace, reserved.name, signal), reader.node(context.nodeName, signal)]);
  const pod = unwrap(
    verifyConsumerPod(
      reserved,
      livePod === undefined ? undefined : unwrap(parseConsumerPod(livePod, podObject(reserved))),
      liveNode === undefined ? undefined : unwrap(parseConsumerNode(liveNode, { kind: 'Node', name: context.nodeName })),
      { name: context.nodeName, uid: context.nodeUID },
    ),
  );
  unwrap(checkPodEligibility(pod, context.purpose));
  unwrap(rejectExtendedResourceClaim(claim, pod));

  const names = unwrap(podClaimNames(pod));
  const otherClaims = new Map<string, unknown>();
  const others = new Map<string, ConsumerClaim | undefined>(
    await Promise.all(
      otherClaimNames(names, claim).map(async (name): Promise<[string, ConsumerClaim | undefined]> => {
        const other = await reader.claim(claim.namespace, name, signal);
        const at = { kind: 'ResourceClaim', namespace: claim.namespace, name };
        if (other !== undefined) otherClaims.set(name, other);
        return [name, other === undefined ? undefined : unwrap(parseConsumerClaim(other, at))];
      }),
    ),
  );
  const claims = unwrap(verifyPodClaimReferences(pod, names, claim, others));

  const results = unwrap(ownedResults(claim, context.driverName, context.snapshot));
  const asRead = podSchema.safeParse(livePod);
  if (!asRead.success) {
    throw new SriovDraError('MalformedApiResponse', `the Pod as read lacks ${asRead.error.issues[0]?.path.join('.') ?? 'a field'}`, {
      object: podObject(reserved),
    });
  }
  return {
    pod: { namespace: pod.namespace, name: pod.name, uid: pod.uid, nodeName: pod.nodeName, annotations: asRead.data.metadata.annotations ?? {} },
    claims,
    results,
    livePod: asRead.data,
    otherClaims,
  };
}
