import type { Logger } from 'pino';
import { type RegistryV1, type Result, SriovDraError, annotations, fail, isSriovDraError, ok } from '@sriov-dra/contract';
import type { NetworkSelection } from '@sriov-dra/cni-render';
import { type Pod, isApiError } from '@sriov-dra/k8s';
import type { podResourcesV1 } from '@sriov-dra/kubelet-api';
import type { InvokeOptions } from '../cni/invoke.ts';
import type { RuntimeConf } from '../cni/runtime-conf.ts';
import type { CniResult } from '../cni/result-version.ts';
import type { GuardNad, GuardPod, VerifiedShadow } from '../guard/managed-shadow-guard.ts';
import { readPodRegistry } from '../guard/pod-registry.ts';
import { NO_POD_DEVICES, type PodDevices, podDevices } from '../pod-resources/pod-devices.ts';
import { verifyRegistrySelections } from '../guard/managed-shadow-guard.ts';
import { isPodNetworkReadError } from '../reads/pod-network-read-error.ts';
import type { PodNetworkReader } from '../reads/pod-network-reader.ts';
import type { CniRequest } from '../server/cni-request.ts';
import { type ConfFile, findConfByName, readConfPath } from './conf-files.ts';
import { type NadDevice, delegateConfigFromNad, injectDeviceID } from './delegate-config.ts';
import { capabilityArgs, runtimeCapabilities, selectionRequests } from './delegate-runtime.ts';
import { assignDelegateInterfaces } from './interface-assignment.ts';
import { type K8sArgs, delegateArgs, readK8sArgs } from './k8s-args.ts';
import { type ReadinessWait, UPSTREAM_READINESS_WAIT, waitForReadinessIndicator } from './readiness-indicator.ts';
import { type NetworkPlanSettings, type PlannedNetwork, planNetworks } from './network-plan.ts';
import { type GatewayPlan, NO_GATEWAY_PLAN, gatewayRequestOf, markGatewayFilters } from './default-route.ts';
import { applyDefaultRoute } from './sandbox-default-route.ts';

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
  /**
   * Multus's DelegateNetConf.DeviceID: the device a resourceName NAD took from the kubelet, else the
   * selection's deviceID; what capabilityArgs and the delegate cache carry.
   */
  readonly deviceID?: string;
  /** DelegateNetConf.ResourceName: the NAD's resourceName, recorded only when it yielded a device. */
  readonly resourceName?: string;
  /** DelegateNetConf.GatewayRequest and IsFilter{V4,V6}Gateway: what happens to its default routes after its ADD. */
  readonly gateway: GatewayPlan;
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
  /** The kubelet's PodResources List, read at most once per ADD and only for a NAD with resourceName. */
  listPodResources(signal: AbortSignal): Promise<podResourcesV1.PodResources[]>;
  /** Observes an ADD refused before any delegate ran (metrics). */
  onRejected?(error: SriovDraError): void;
  /** Takes over the undo of a failed ADD where some delegates' DEL failed (the daemon retries it). */
  onRollbackIncomplete?(failures: readonly { readonly network: string; readonly error: unknown }[]): Promise<void>;
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

/** One planned network as read: a CNI file's bytes, or the NAD whose configuration is derived afterwards. */
type NetworkRead = { readonly kind: 'file'; readonly name: string; readonly bytes: string } | { readonly kind: 'nad'; readonly nad: GuardNad };

interface LoadedNetwork {
  readonly name: string;
  readonly bytes: string;
  readonly managed: VerifiedShadow | null;
  readonly device?: NadDevice;
}

/** Reads one planned network: a NAD through the request's reader, or a CNI file. */
async function readNetwork(
  planned: PlannedNetwork,
  settings: Pick<AddSettings, 'confDir'>,
  reader: PodNetworkReader,
  signal: AbortSignal,
): Promise<NetworkRead> {
  const { source } = planned;
  if (source.kind === 'path') {
    const file = await confFile(readConfPath(source.path));
    return { kind: 'file', name: file.name, bytes: file.bytes };
  }
  try {
    return { kind: 'nad', nad: await reader.readNetworkAttachmentDefinition(source.namespace, source.name, signal) };
  } catch (error) {
    // A cluster or default network may name a CNI file instead of a NAD (Multus's second option).
    if (source.confNameFallback && isPodNetworkReadError(error, 'NetworkAttachmentDefinitionNotFound')) {
      const file = await confFile(findConfByName(settings.confDir, source.name));
      return { kind: 'file', name: file.name, bytes: file.bytes };
    }
    throw error;
  }
}

/**
 * Derives a read network's configuration. Networks are resolved one at a time in plan order, because a
 * NAD with resourceName takes its resource's next device (Multus's per-ADD resourceMap index).
 */
async function resolveNetwork(
  planned: PlannedNetwork,
  read: NetworkRead,
  pod: GuardPod,
  registry: RegistryV1 | null,
  settings: Pick<AddSettings, 'confDir'>,
  devices: PodDevices,
  signal: AbortSignal,
): Promise<LoadedNetwork> {
  if (read.kind === 'file') return { name: read.name, bytes: read.bytes, managed: null };
  const { nad } = read;
  if (nad.metadata.annotations !== undefined && Object.hasOwn(nad.metadata.annotations, annotations.resourceName)) await devices.prepare(signal);
  const config = unwrap(delegateConfigFromNad(pod, nad, planned, registry, devices));
  const name = `${nad.metadata.namespace}/${nad.metadata.name}`;
  const device = config.device === undefined ? {} : { device: config.device };
  if (config.kind === 'inline') return { name, bytes: config.bytes, managed: config.managed, ...device };
  const file = await confFile(findConfByName(settings.confDir, config.name));
  const object = { kind: 'NetworkAttachmentDefinition', namespace: nad.metadata.namespace, name: nad.metadata.name, uid: nad.metadata.uid };
  return { name, bytes: unwrap(injectDeviceID(file.bytes, config.device?.deviceID ?? '', object)), managed: null, ...device };
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
  const { name, bytes } = await resolveNetwork(master, await readNetwork(master, settings, reader, signal), NO_POD, null, settings, NO_POD_DEVICES, signal);
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
  const reads = await Promise.allSettled(plan.map((planned) => readNetwork(planned, settings, effects.reader, signal)));
  const devices = podDevices({ name: pod.metadata.name, namespace: k8s.podNamespace }, (listSignal) => effects.listPodResources(listSignal), effects.logger);
  const loaded: (LoadedNetwork & { planned: PlannedNetwork })[] = [];
  for (const [index, planned] of plan.entries()) {
    const read = reads[index];
    if (read?.status !== 'fulfilled') throw read?.reason;
    loaded.push({ planned, ...(await resolveNetwork(planned, read.value, pod, registry, settings, devices, signal)) });
  }
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
  const podSubject = `Pod ${k8s.podNamespace}/${k8s.podName}`;
  const gateways = markGatewayFilters(
    loaded.map(({ planned }) => gatewayRequestOf(planned.selection, podSubject)),
    (pod.metadata.annotations?.[annotations.networks] ?? '') !== '',
    podSubject,
  );
  return loaded.map(({ planned, name, bytes, managed, device }, index) => ({
    name,
    bytes,
    master: planned.role === 'master',
    ifName: ifNames[index] ?? '',
    managed,
    gateway: gateways[index] ?? NO_GATEWAY_PLAN,
    ...(planned.selection === undefined ? {} : { selection: planned.selection }),
    ...delegateDevice(device, planned.selection),
  }));
}

/** LoadDelegateNetConf's choice: a device from the kubelet wins over the selection's deviceID. */
function delegateDevice(device: NadDevice | undefined, selection: NetworkSelection | undefined): Pick<Delegate, 'deviceID' | 'resourceName'> {
  if (device !== undefined && device.deviceID !== '') return { deviceID: device.deviceID, resourceName: device.resourceName };
  return selection?.deviceID === undefined || selection.deviceID === '' ? {} : { deviceID: selection.deviceID };
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
    capabilityArgs: capabilityArgs(
      runtime,
      {
        ...(delegate.selection === undefined ? {} : selectionRequests(delegate.selection)),
        ...(delegate.deviceID === undefined ? {} : { deviceID: delegate.deviceID }),
      },
      delegate.master,
    ),
    cacheDir: settings.resultCacheDir,
  });
  const results: { delegate: Delegate; result: CniResult }[] = [];
  for (const [index, delegate] of delegates.entries()) {
    try {
      const rt = runtimeConf(delegate);
      const result = await effects.addNetwork(Buffer.from(delegate.bytes, 'utf8'), rt, options);
      await applyDefaultRoute(delegate.gateway, delegate, result, rt, settings.chrootDir, signal);
      results.push({ delegate, result });
    } catch (error) {
      // Undo in reverse what ran, the failed delegate included (it may have half-configured); DEL must be
      // idempotent, so each error is only logged and the undo goes on. The delegate cache stays for the
      // runtime's own DEL; an undo that did not finish is handed on, since that DEL may never come back failed.
      const cleanupFailures: { network: string; error: unknown }[] = [];
      for (const ran of delegates.slice(0, index + 1).reverse()) {
        await effects
          .delNetwork(Buffer.from(ran.bytes, 'utf8'), runtimeConf(ran), { ...options, signal: AbortSignal.timeout(settings.delegateTimeoutMs) })
          .catch((cleanup: unknown) => {
            effects.logger.warn(
              { err: cleanup, network: ran.name, podNamespace: k8s.podNamespace, podName: k8s.podName },
              'cleanup DEL after a failed ADD failed',
            );
            cleanupFailures.push({ network: ran.name, error: cleanup });
          });
      }
      if (cleanupFailures.length > 0) {
        await effects.onRollbackIncomplete?.(cleanupFailures).catch((handOff: unknown) => {
          effects.logger.error({ err: handOff, podNamespace: k8s.podNamespace, podName: k8s.podName }, 'unfinished cleanup after a failed ADD not handed on');
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
