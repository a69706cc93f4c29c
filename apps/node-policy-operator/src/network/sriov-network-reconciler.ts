import type { Logger } from 'pino';
import { type EventRecorder, type KubeClient, type KubeObject, contentTypes, isApiError, removeFinalizer, resourceTypes } from '@sriov-dra/k8s';
import { OWNER_REF_ANNOTATION, type SourceNad, type SourceNadOptions, renderSourceNad, sourceNadOwnerMarker } from '../render/source-nad.ts';
import type { SriovNetwork } from '../render/sriov-network.ts';
import { WHOLE_OBJECT, describeFinding, findingOf } from '../admission/admission-finding.ts';
import type { SourceNadError } from '../render/source-nad-error.ts';
import { STATUS_FIELD_MANAGER, applyCondition } from '../status/apply-condition.ts';
import type { Condition } from '../status/conditions.ts';
import { problemList } from '../status/problem-list.ts';
import {
  LAST_NETWORK_NAMESPACE_ANNOTATION,
  NAD_CLEANUP_FINALIZER,
  NETWORK_READY_CONDITION,
  NETWORK_READY_MESSAGE,
  type NetworkReadyReason,
  networkReadyReasons,
} from './network-ready.ts';
import { type NetworkIdentity, existingNadVerdict, sourceNadApplyBody } from './source-nad-object.ts';

/** The field manager of every object write of the operator (status writes use the same name). */
export const OPERATOR_FIELD_MANAGER = STATUS_FIELD_MANAGER;

type SriovNetworkObject = KubeObject & SriovNetwork & { status?: { conditions?: readonly Condition[] } };
type NadObject = KubeObject & { spec?: { config?: unknown } };

export interface SriovNetworkReconcilerOptions extends SourceNadOptions {
  readonly client: KubeClient;
  readonly logger: Logger;
  /** Records each Ready transition as an Event on the SriovNetwork. */
  readonly recorder?: EventRecorder;
}

/** What one reconciliation concluded: the Ready condition it left, or nothing for a gone/deleting object. */
export type NetworkReconcileOutcome =
  { readonly kind: 'gone' } | { readonly kind: 'finalized' } | { readonly kind: 'ready'; readonly reason: NetworkReadyReason };

/**
 * Keeps one SriovNetwork's source NAD rendered, owned and reported (§12.2.3: this controller is the NAD's
 * sole writer), following the upstream network controller's order of decisions: the namespace rule, the
 * cleanup finalizer, rendering, the move away from a previous target namespace, then the NAD itself. A
 * NAD carrying another owner's marker is reported and never touched; an unmarked one is adopted. Writes are
 * server-side applies under one field manager. Transient API failures are thrown after Ready says why, so
 * the work queue retries with backoff; an answer only a spec change can alter is not retried.
 */
export async function reconcileSriovNetwork(
  at: { readonly namespace: string; readonly name: string },
  options: SriovNetworkReconcilerOptions,
  signal?: AbortSignal,
): Promise<NetworkReconcileOutcome> {
  const { client } = options;
  let network: SriovNetworkObject;
  try {
    network = await client.get<SriovNetworkObject>(resourceTypes.sriovNetwork, at, signal);
  } catch (error) {
    if (isApiError(error, 'NotFound')) return { kind: 'gone' };
    throw error;
  }
  const identity: NetworkIdentity = { namespace: at.namespace, name: at.name, uid: network.metadata.uid };
  const logger = options.logger.child({ sriovNetwork: `${at.namespace}/${at.name}` });
  const report = async (reason: NetworkReadyReason, message: string): Promise<NetworkReconcileOutcome> => {
    await applyCondition(
      client,
      resourceTypes.sriovNetwork,
      network,
      {
        type: NETWORK_READY_CONDITION,
        status: reason === networkReadyReasons.ready ? 'True' : 'False',
        reason,
        message,
        observedGeneration: network.metadata.generation ?? 0,
      },
      { signal, recorder: options.recorder },
    );
    return { kind: 'ready', reason };
  };
  /** Reports the failure of an API call, then rethrows it for a retry. */
  const failed = async (reason: NetworkReadyReason, error: unknown): Promise<never> => {
    await report(reason, String(error instanceof Error ? error.message : error)).catch((statusError: unknown) => {
      logger.warn({ err: statusError }, 'cannot report the failure on the SriovNetwork status');
    });
    throw error;
  };

  const networkNamespace = network.spec.networkNamespace ?? '';
  const targetNamespace = networkNamespace === '' ? at.namespace : networkNamespace;
  const rendered = renderSourceNad(network, options);
  // The namespace rule comes first, as upstream: such an object never gets a NAD or a finalizer.
  const problems = rendered.ok ? [] : rendered.errors;
  if (problems.some((problem) => problem.code === 'NetworkAttachmentDefinitionInvalid'))
    return report(networkReadyReasons.nadInvalid, renderProblems(problems));

  if (network.metadata.deletionTimestamp !== undefined) {
    await releaseNad(identity, targetNamespace, network, options.client, signal);
    return { kind: 'finalized' };
  }
  const lastNamespace = network.metadata.annotations?.[LAST_NETWORK_NAMESPACE_ANNOTATION];
  const needsFinalizer = at.namespace === options.operatorNamespace;
  if (needsFinalizer && !(network.metadata.finalizers ?? []).includes(NAD_CLEANUP_FINALIZER)) {
    await applyNetworkMetadata(client, identity, { finalizer: true, lastNamespace }, signal);
  }
  if (!rendered.ok) return report(networkReadyReasons.nadInvalid, renderProblems(problems));
  const nad = rendered.value;

  if (lastNamespace !== undefined && lastNamespace !== '' && lastNamespace !== nad.namespace) {
    await deleteOwnNad(client, { namespace: lastNamespace, name: nad.name }, nad.annotations[OWNER_REF_ANNOTATION] ?? '', signal).catch((error: unknown) =>
      failed(networkReadyReasons.nadInvalid, error),
    );
    logger.info({ previousNamespace: lastNamespace }, 'removed the NAD from the previous target namespace');
  }

  let found: NadObject | undefined;
  try {
    found = await client.get<NadObject>(resourceTypes.networkAttachmentDefinition, { namespace: nad.namespace, name: nad.name }, signal);
  } catch (error) {
    if (!isApiError(error, 'NotFound')) return failed(networkReadyReasons.nadNotFound, error);
  }
  if (found === undefined) {
    try {
      await client.get(resourceTypes.namespace, { name: nad.namespace }, signal);
    } catch (error) {
      if (!isApiError(error, 'NotFound')) return failed(networkReadyReasons.nadNotFound, error);
      // Not retried: the namespace's creation wakes this object.
      return report(networkReadyReasons.namespaceNotFound, `target namespace "${nad.namespace}" does not exist`);
    }
  } else {
    const verdict = existingNadVerdict(found, identity, nad);
    if (verdict.kind === 'foreign') {
      return report(
        networkReadyReasons.nadInvalid,
        `NetworkAttachmentDefinition '${nad.namespace}/${nad.name}' already exists and is owned by ${verdict.owner}`,
      );
    }
    if (verdict.kind === 'terminating') {
      return report(
        networkReadyReasons.nadNotFound,
        `NetworkAttachmentDefinition '${nad.namespace}/${nad.name}' is being deleted; it is recreated once it is gone`,
      );
    }
    if (verdict.kind === 'current') return recordTarget(nad);
  }
  try {
    // Forced: an unmarked NAD is adopted (its fields pass to this manager), and a NAD this controller
    // owns has no other legitimate writer of these fields.
    await client.patch(
      resourceTypes.networkAttachmentDefinition,
      { namespace: nad.namespace, name: nad.name },
      JSON.stringify(sourceNadApplyBody(identity, nad)),
      contentTypes.apply,
      { fieldManager: OPERATOR_FIELD_MANAGER, force: true, signal },
    );
  } catch (error) {
    return failed(networkReadyReasons.nadInvalid, error);
  }
  logger.info(
    { nad: `${nad.namespace}/${nad.name}`, adopted: found !== undefined && (found.metadata.annotations?.[OWNER_REF_ANNOTATION] ?? '') === '' },
    'source NAD written',
  );
  return recordTarget(nad);

  async function recordTarget(written: SourceNad): Promise<NetworkReconcileOutcome> {
    if (lastNamespace !== written.namespace)
      await applyNetworkMetadata(client, identity, { finalizer: needsFinalizer, lastNamespace: written.namespace }, signal);
    return report(networkReadyReasons.ready, NETWORK_READY_MESSAGE);
  }
}

/**
 * Server-side applies this manager's metadata fields on the SriovNetwork: the cleanup finalizer and the
 * last-namespace annotation. Every apply carries all of them, because a field this manager applied before
 * and leaves out is removed. Forced: both keys mean this controller's state, whoever wrote them last (an
 * upstream operator before a migration). The UID in the body makes the API server refuse a replacement
 * object, and an apply to a deleted one can never create a SriovNetwork from these few fields.
 */
async function applyNetworkMetadata(
  client: KubeClient,
  at: NetworkIdentity,
  owned: { readonly finalizer: boolean; readonly lastNamespace: string | undefined },
  signal: AbortSignal | undefined,
): Promise<void> {
  const type = resourceTypes.sriovNetwork;
  const metadata = {
    name: at.name,
    namespace: at.namespace,
    uid: at.uid,
    ...(owned.finalizer ? { finalizers: [NAD_CLEANUP_FINALIZER] } : {}),
    ...(owned.lastNamespace === undefined || owned.lastNamespace === '' ? {} : { annotations: { [LAST_NETWORK_NAMESPACE_ANNOTATION]: owned.lastNamespace } }),
  };
  await client.patch(type, at, JSON.stringify({ apiVersion: `${type.group}/${type.version}`, kind: type.kind, metadata }), contentTypes.apply, {
    fieldManager: OPERATOR_FIELD_MANAGER,
    force: true,
    signal,
  });
}

/** Deletes the NAD at `at` only if it carries this network's owner marker, with a UID precondition. */
async function deleteOwnNad(
  client: KubeClient,
  at: { readonly namespace: string; readonly name: string },
  marker: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  let found: NadObject;
  try {
    found = await client.get<NadObject>(resourceTypes.networkAttachmentDefinition, at, signal);
  } catch (error) {
    if (isApiError(error, 'NotFound')) return;
    throw error;
  }
  if (found.metadata.annotations?.[OWNER_REF_ANNOTATION] !== marker) return;
  try {
    await client.delete(resourceTypes.networkAttachmentDefinition, at, { uid: found.metadata.uid, signal });
  } catch (error) {
    if (!isApiError(error, 'NotFound')) throw error;
  }
}

/** Every reason the SriovNetwork cannot be rendered, in one bounded condition message. */
function renderProblems(problems: readonly SourceNadError[]): string {
  return problemList(problems.map((problem) => describeFinding(findingOf(problem, problem.field ?? WHOLE_OBJECT))));
}

/** A deleting SriovNetwork: its NAD in another namespace goes first, then this controller's finalizer. */
async function releaseNad(
  identity: NetworkIdentity,
  targetNamespace: string,
  network: SriovNetworkObject,
  client: KubeClient,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (!(network.metadata.finalizers ?? []).includes(NAD_CLEANUP_FINALIZER)) return;
  await deleteOwnNad(client, { namespace: targetNamespace, name: identity.name }, sourceNadOwnerMarker(identity.namespace, identity.name), signal);
  await removeFinalizer(client, resourceTypes.sriovNetwork, { namespace: identity.namespace, name: identity.name, uid: identity.uid }, NAD_CLEANUP_FINALIZER, {
    signal,
  });
}
