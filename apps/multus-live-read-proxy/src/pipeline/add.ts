import type { Logger } from 'pino';
import { type RegistryV1, type Result, SriovDraError, fail, isSriovDraError, ok } from '@sriov-dra/contract';
import type { NetworkSelection } from '@sriov-dra/cni-render';
import { type Pod, isApiError } from '@sriov-dra/k8s';
import type { InvokeOptions } from '../cni/invoke.ts';
import type { RuntimeConf } from '../cni/runtime-conf.ts';
import type { CniResult } from '../cni/result-version.ts';
import type { GuardPod, VerifiedShadow } from '../guard/managed-shadow-guard.ts';
import { readPodRegistry } from '../guard/pod-registry.ts';
import { verifyRegistrySelections } from '../guard/managed-shadow-guard.ts';
import { isPodNetworkReadError } from '../reads/pod-network-read-error.ts';
import type { PodNetworkReader } from '../reads/pod-network-reader.ts';
import type { CniRequest } from '../server/cni-request.ts';
import { type ConfFile, findConfByName, readConfPath } from './conf-files.ts';
import { delegateConfigFromNad } from './delegate-config.ts';
import { capabilityArgs, runtimeCapabilities, selectionRequests } from './delegate-runtime.ts';
import { assignDelegateInterfaces } from './interface-assignment.ts';
import { type K8sArgs, delegateArgs, readK8sArgs } from './k8s-args.ts';
import { type ReadinessWait, UPSTREAM_READINESS_WAIT, waitForReadinessIndicator } from './readiness-indicator.ts';
import { type NetworkPlanSettings, type PlannedNetwork, planNetworks } from './network-plan.ts';

/** One delegate of an ADD, in execution order: what is cached for DEL and what network-status reports. */
export interface Delegate {
  /** Multus's delegate name: `<namespace>/<nad>` for a NAD, the CNI network name for a file. */
  readonly name: string;
  /** The exact configuration bytes executed (and replayed by DEL). */
  readonly bytes: string;
  readonly master: boolean;
  readonly ifName: string;
  readonly selection?: NetworkSelection;
  readonly managed: VerifiedShadow | null;
}

export interface AddSettings {
  readonly plan: NetworkPlanSettings;
  /** Where file-backed NADs and cluster/default networks named after a CNI file are looked up. */
  readonly confDir: string;
  readonly binDirs: readonly string[];
  /** The root directory delegates run in (daemon-config.json's chrootDir); '' for the daemon's own. */
  readonly chrootDir: string;
  /** libcni's result cache directory. */
  readonly resultCacheDir: string;
  /** Deadline of each delegate's ADD. */
  readonly delegateTimeoutMs: number;
  /** Multus's readinessindicatorfile: ADD waits for it ('' or absent for none). */
  readonly readinessIndicatorFile?: string;
  /** How long and how often ADD looks for it; upstream's by default. */
  readonly readinessWait?: ReadinessWait;
}

export interface AddEffects {
  readonly reader: PodNetworkReader;
  /** Persists the delegate list for DEL; runs before any delegate does (Multus's saveDelegates). */
  saveDelegates(containerID: string, delegates: readonly Delegate[]): Promise<void>;
  addNetwork(bytes: Uint8Array, rt: RuntimeConf, options: Required<InvokeOptions>): Promise<CniResult>;
  delNetwork(bytes: Uint8Array, rt: RuntimeConf, options: Required<InvokeOptions>): Promise<void>;
  /** Reports the results on the Pod (network-status); its failure fails the ADD, as in Multus. */
  writeNetworkStatus(pod: Pod, results: readonly { readonly delegate: Delegate; readonly result: CniResult }[], signal: AbortSignal): Promise<void>;
  /** Observes an ADD refused before any delegate ran (metrics). */
  onRejected?(error: SriovDraError): void;
  readonly logger: Logger;
}

/** What ADD answers: the master plugin's result, or an empty one for a Pod that no longer exists. */
export type AddOutcome = { readonly kind: 'result'; readonly result: CniResult } | { readonly kind: 'pod-gone' };

const STATIC_POD_SOURCE = 'kubernetes.io/config.source';

function unwrap<T>(result: Result<T>): T {
  if (!result.ok) throw result.error;
  return result.value;
}

async function confFile(read: Promise<Result<ConfFile>>): Promise<ConfFile> {
  return unwrap(await read);
}

/** Fetches one planned network's configuration: a NAD through the request's reader, or a CNI file. */
async function loadNetwork(
  planned: PlannedNetwork,
  pod: GuardPod,
  registry: RegistryV1 | null,
  settings: Pick<AddSettings, 'confDir'>,
  reader: PodNetworkReader,
  signal: AbortSignal,
): Promise<{ name: string; bytes: string; managed: VerifiedShadow | null }> {
  const { source } = planned;
  if (source.kind === 'path') {
    const file = await confFile(readConfPath(source.path));
    return { name: file.name, bytes: file.bytes, managed: null };
  }
  let nad;
  try {
    nad = await reader.readNetworkAttachmentDefinition(source.namespace, source.name, signal);
  } catch (error) {
    // A cluster or default network may name a CNI file instead of a NAD (Multus's second option).
    if (source.confNameFallback && isPodNetworkReadError(error, 'NetworkAttachmentDefinitionNotFound')) {
      const file = await confFile(findConfByName(settings.confDir, source.name));
      return { name: file.name, bytes: file.bytes, managed: null };
    }
    throw error;
  }
  const config = unwrap(delegateConfigFromNad(pod, nad, planned.selection, registry));
  const name = `${source.namespace}/${source.name}`;
  if (config.kind === 'inline') return { name, bytes: config.bytes, managed: config.managed };
  const file = await confFile(findConfByName(settings.confDir, config.name));
  return { name, bytes: file.bytes, managed: null };
}

/** Stands in for the Pod where there is none: it has no annotations, so no override or selection reads it. */
const NO_POD = { metadata: { name: '', namespace: '', uid: '' }, spec: {} };

/**
 * The cluster network as ADD loads the master of a Pod without a default-network override (Multus's
 * GetDefaultNetworks without a Pod): what STATUS and GC act on.
 */
export async function loadClusterNetwork(
  settings: Pick<AddSettings, 'plan' | 'confDir'>,
  reader: PodNetworkReader,
  signal: AbortSignal,
): Promise<{ name: string; bytes: string }> {
  const [master] = unwrap(planNetworks(NO_POD, { ...settings.plan, defaultNetworks: [] }));
  if (master === undefined) throw new Error('a plan always starts with the cluster network');
  const { name, bytes } = await loadNetwork(master, NO_POD, null, settings, reader, signal);
  return { name, bytes };
}

function checkUID(pod: Pod, k8s: K8sArgs): Result<void> {
  if (k8s.podUID === '' || k8s.podUID === pod.metadata.uid) return ok(undefined);
  const source = pod.metadata.annotations?.[STATIC_POD_SOURCE];
  // A static Pod's mirror has another UID than the one the kubelet runs it under; Multus accepts it.
  if (source !== undefined && source !== 'api') return ok(undefined);
  return fail('ConsumerMismatch', `the runtime asked for Pod UID ${k8s.podUID}, but ${k8s.podNamespace}/${k8s.podName} is now UID ${pod.metadata.uid}`, {
    object: { kind: 'Pod', namespace: k8s.podNamespace, name: k8s.podName, uid: pod.metadata.uid },
    remedy: 'the Pod was deleted and recreated under the same name; the runtime retries with the new sandbox',
  });
}

/**
 * Everything ADD decides before a delegate runs: the networks in order, each one's exact configuration
 * (guarded when it is a managed shadow), each one's interface name.
 */
async function decideDelegates(
  request: CniRequest,
  k8s: K8sArgs,
  pod: Pod,
  settings: AddSettings,
  effects: AddEffects,
  signal: AbortSignal,
): Promise<Delegate[]> {
  unwrap(checkUID(pod, k8s));
  const plan = unwrap(planNetworks({ metadata: { ...pod.metadata, namespace: k8s.podNamespace } }, settings.plan));
  const registry = unwrap(readPodRegistry({ metadata: { ...pod.metadata, namespace: k8s.podNamespace } }));
  const guardPod = { metadata: { ...pod.metadata, namespace: k8s.podNamespace }, spec: pod.spec };
  unwrap(
    verifyRegistrySelections(
      guardPod,
      registry,
      plan.flatMap((planned) => (planned.selection === undefined || planned.role !== 'selection' ? [] : [planned.selection])),
    ),
  );

  // The networks are independent reads: one round trip for all of them. A failure is reported for the
  // first failing network in plan order, whichever answered first, so the error does not depend on timing.
  const reads = await Promise.allSettled(plan.map((planned) => loadNetwork(planned, pod, registry, settings, effects.reader, signal)));
  const loaded = plan.map((planned, index) => {
    const read = reads[index];
    if (read?.status !== 'fulfilled') throw read?.reason;
    return { planned, ...read.value };
  });
  const attachments = new Set<string>();
  for (const { managed, name } of loaded) {
    if (managed === null) continue;
    if (attachments.has(managed.binding.attachmentID)) {
      throw new SriovDraError('ManagedShadowMismatch', `shadow ${name} is selected more than once; one VF serves one interface`, {
        object: { kind: 'Pod', namespace: k8s.podNamespace, name: k8s.podName, uid: pod.metadata.uid },
      });
    }
    attachments.add(managed.binding.attachmentID);
  }
  const podRef = { kind: 'Pod', namespace: k8s.podNamespace, name: k8s.podName, uid: pod.metadata.uid };
  const ifNames = unwrap(
    assignDelegateInterfaces(
      loaded.map(({ planned, name }) => ({ name, master: planned.role === 'master', ifnameRequest: planned.selection?.interface })),
      request.ifName,
      podRef,
    ),
  );
  return loaded.map(({ planned, name, bytes, managed }, index) => ({
    name,
    bytes,
    master: planned.role === 'master',
    ifName: ifNames[index] ?? '',
    managed,
    ...(planned.selection === undefined ? {} : { selection: planned.selection }),
  }));
}

/**
 * CNI ADD (§10.2, §10.3, §11): read the Pod and every selected NAD through this request's reader, decide
 * every delegate and interface name, guard managed shadows — all before anything runs — then cache the
 * delegates, run them in order (undoing what ran on failure), and report network-status.
 */
export async function runAdd(request: CniRequest, settings: AddSettings, effects: AddEffects, signal: AbortSignal): Promise<AddOutcome> {
  const k8s = unwrap(readK8sArgs(request.args, request.containerID));
  await waitForReadinessIndicator(settings.readinessIndicatorFile ?? '', settings.readinessWait ?? UPSTREAM_READINESS_WAIT, signal);
  let pod: Pod;
  try {
    pod = await effects.reader.readPod(k8s.podNamespace, k8s.podName, signal);
  } catch (error) {
    // A Pod deleted before its sandbox was networked: Multus answers with an empty result so the runtime
    // can tear the sandbox down. A failed read is an error — never a fallback.
    if (isPodNetworkReadError(error, 'PodNotFound')) return { kind: 'pod-gone' };
    throw error;
  }
  let delegates: Delegate[];
  try {
    delegates = await decideDelegates(request, k8s, pod, settings, effects, signal);
  } catch (error) {
    // Refused before anything ran: bad input or an unusable network, never an API or delegate failure.
    if (isSriovDraError(error) && !isApiError(error)) effects.onRejected?.(error);
    throw error;
  }
  await effects.saveDelegates(request.containerID, delegates);
  const runtime = runtimeCapabilities(request.config);
  const options = { binDirs: settings.binDirs, chrootDir: settings.chrootDir, timeoutMs: settings.delegateTimeoutMs, signal };
  const runtimeConf = (delegate: Delegate): RuntimeConf => ({
    containerID: request.containerID,
    netns: request.netns,
    ifName: delegate.ifName,
    args: delegateArgs(k8s, request.args, delegate.master ? {} : { mac: delegate.selection?.mac, ips: delegate.selection?.ips }),
    capabilityArgs: capabilityArgs(runtime, delegate.selection === undefined ? {} : selectionRequests(delegate.selection), delegate.master),
    cacheDir: settings.resultCacheDir,
  });
  const results: { delegate: Delegate; result: CniResult }[] = [];
  for (const [index, delegate] of delegates.entries()) {
    try {
      results.push({ delegate, result: await effects.addNetwork(Buffer.from(delegate.bytes, 'utf8'), runtimeConf(delegate), options) });
    } catch (error) {
      // Undo in reverse what ran, the failed delegate included (it may have half-configured); DEL must be
      // idempotent, so each error is only logged. The delegate cache stays for the runtime's own DEL.
      for (const ran of delegates.slice(0, index + 1).reverse()) {
        await effects
          .delNetwork(Buffer.from(ran.bytes, 'utf8'), runtimeConf(ran), { ...options, signal: AbortSignal.timeout(settings.delegateTimeoutMs) })
          .catch((cleanup: unknown) => {
            effects.logger.warn(
              { err: cleanup, network: ran.name, podNamespace: k8s.podNamespace, podName: k8s.podName },
              'cleanup DEL after a failed ADD failed',
            );
          });
      }
      throw error;
    }
  }
  await effects.writeNetworkStatus(pod, results, signal);
  const master = results.find(({ delegate }) => delegate.master) ?? results[0];
  if (master === undefined) throw new Error('an ADD always runs the cluster network');
  return { kind: 'result', result: master.result };
}
