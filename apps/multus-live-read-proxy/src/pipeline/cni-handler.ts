import type { Logger } from 'pino';
import { type KubeClient, isApiError } from '@sriov-dra/k8s';
import { saveDelegates } from '../cache/delegate-cache.ts';
import type { DelegateRecord } from '../cache/delegate-codec.ts';
import { type InvokeOptions, addNetwork, delNetwork } from '../cni/invoke.ts';
import { gcNetwork, statusNetwork } from '../cni/status-gc.ts';
import type { RuntimeConf } from '../cni/runtime-conf.ts';
import type { DaemonMetrics } from '../metrics.ts';
import type { PodNetworkReader } from '../reads/pod-network-reader.ts';
import { toResult100 } from '../cni/result-version.ts';
import { buildNetworkStatuses, writeNetworkStatus } from '../network-status.ts';
import { DEFAULT_POD_RESOURCES_SOCKET } from '../pod-resources/pod-resources-socket.ts';
import { readerFor } from '../reads/reader-for.ts';
import type { SharedPodNetworkInformers } from '../reads/shared-informers.ts';
import type { CniRequest, CniRequestHandler, CniResponse } from '../server/cni-request.ts';
import { type AddSettings, type Delegate, runAdd } from './add.ts';
import { runDel } from './del.ts';
import { runGc } from './gc.ts';
import { runStatus } from './status.ts';
import { attachmentRecordOf, podRememberingReader } from '../teardown/add-attachment.ts';
import { delInputsOf } from '../teardown/del-inputs.ts';
import { TEARDOWN_RETRY } from '../teardown/retry-schedule.ts';
import { TeardownWorker } from '../teardown/teardown-worker.ts';
import { validAttachmentsOf } from '../teardown/valid-attachments.ts';

/** The effective settings of one request: the shim's configuration overlaid with the daemon's. */
export interface RequestSettings extends AddSettings {
  /** Delegate cache directory (Multus's cniDir). */
  readonly cniDir: string;
  readonly liveNetworkConfigOnAdd: boolean;
  /** Multus's readinessindicatorfile, which STATUS and GC require to exist; absent or '' for none. */
  readonly readinessIndicatorFile?: string;
  /** The kubelet's PodResources socket, read for NADs with resourceName; upstream's path by default. */
  readonly podResourcesSocket?: string;
}

export interface CniHandlerOptions {
  settingsFor(request: CniRequest): RequestSettings;
  readonly shared: SharedPodNetworkInformers;
  readonly client: KubeClient;
  readonly logger: Logger;
  readonly metrics: DaemonMetrics;
  /**
   * Every DEL goes through them; ADD records its attachment there and hands them an unfinished undo. The
   * daemon passes the worker it resumes at start; without one, the handler keeps its own.
   */
  readonly teardowns?: TeardownWorker;
}

type Invoke = (bytes: Uint8Array, rt: RuntimeConf, options: InvokeOptions) => Promise<unknown>;

/** The type of a delegate's first plugin, the label its timings are filed under. */
function firstPluginType(bytes: Uint8Array): string {
  try {
    const conf = JSON.parse(Buffer.from(bytes).toString('utf8')) as { type?: unknown; plugins?: { type?: unknown }[] };
    const type = typeof conf.type === 'string' && conf.type !== '' ? conf.type : conf.plugins?.[0]?.type;
    return typeof type === 'string' ? type : 'unknown';
  } catch {
    return 'unknown';
  }
}

export function timedDelegate<F extends Invoke>(metrics: DaemonMetrics, command: 'ADD' | 'DEL', invoke: F): F {
  return ((bytes, rt, invokeOptions) =>
    metrics.time(metrics.delegateDuration, { plugin_type: firstPluginType(bytes), command }, () => invoke(bytes, rt, invokeOptions))) as F;
}

/** The live reader with each GET timed; the informer reader is left as it is (it reads memory). */
function timedReader(reader: PodNetworkReader, metrics: DaemonMetrics): PodNetworkReader {
  if (reader.mode !== 'live') return reader;
  return {
    mode: reader.mode,
    readPod: (namespace, name, signal) => metrics.time(metrics.liveReadDuration, { object: 'pod' }, () => reader.readPod(namespace, name, signal)),
    readNetworkAttachmentDefinition: (namespace, name, signal) =>
      metrics.time(metrics.liveReadDuration, { object: 'network-attachment-definition' }, () =>
        reader.readNetworkAttachmentDefinition(namespace, name, signal),
      ),
  };
}

function cacheRecord(delegate: Delegate): DelegateRecord {
  const selection = delegate.selection;
  return {
    name: delegate.name,
    bytes: Buffer.from(delegate.bytes, 'utf8'),
    ...(selection?.interface === undefined ? {} : { ifnameRequest: selection.interface }),
    ...(selection?.mac === undefined || selection.mac === '' ? {} : { macRequest: selection.mac }),
    ...(selection?.infinibandGUID === undefined || selection.infinibandGUID === '' ? {} : { infinibandGUIDRequest: selection.infinibandGUID }),
    ...(selection?.ips === undefined || selection.ips.length === 0 ? {} : { ipRequest: selection.ips }),
    ...(delegate.gateway.gatewayRequest === undefined ? {} : { gatewayRequest: delegate.gateway.gatewayRequest }),
    isFilterV4Gateway: delegate.gateway.filterV4Gateway,
    isFilterV6Gateway: delegate.gateway.filterV6Gateway,
    ...(delegate.deviceID === undefined ? {} : { deviceID: delegate.deviceID }),
    ...(delegate.resourceName === undefined ? {} : { resourceName: delegate.resourceName }),
  };
}

/** An ADD for a Pod that no longer exists: Multus's empty result, so the runtime can tear the sandbox down. */
function emptyResult(request: CniRequest): unknown {
  return {
    cniVersion: '1.0.0',
    interfaces: [{ name: request.ifName, sandbox: request.netns }],
    ips: [{ address: '0.0.0.0/0', gateway: '0.0.0.0' }],
  };
}

/**
 * The daemon's answer to each shim request. ADD picks its reader per request (§10.2: a live view for this
 * request only, the shared informers untouched); DEL replays the delegate cache; CHECK is accepted as the
 * upstream thick daemon accepts it (it has no delegates in the shim's configuration to check); STATUS and
 * GC act on the cluster network, resolved with the reader ADD would use.
 */
export function createCniHandler(options: CniHandlerOptions): CniRequestHandler {
  const teardowns =
    options.teardowns ??
    new TeardownWorker({
      settingsFor: (request) => options.settingsFor(request),
      delNetwork: timedDelegate(options.metrics, 'DEL', delNetwork),
      schedule: TEARDOWN_RETRY,
      metrics: options.metrics,
      logger: options.logger,
    });
  return {
    handle(request: CniRequest, signal: AbortSignal): Promise<CniResponse> {
      return options.metrics.time(options.metrics.requestDuration, { command: request.command }, () => respond(request, signal));
    },
  };

  async function respond(request: CniRequest, signal: AbortSignal): Promise<CniResponse> {
    const { metrics } = options;
    const settings = options.settingsFor(request);
    const logger = options.logger.child({ command: request.command, containerID: request.containerID });
    switch (request.command) {
      case 'ADD': {
        const read = podRememberingReader(timedReader(readerFor(settings.liveNetworkConfigOnAdd, options.shared), metrics));
        const endAdd = teardowns.beginAdd(settings.cniDir, request.containerID);
        const outcome = await runAdd(
          request,
          settings,
          {
            reader: read.reader,
            saveDelegates: async (containerID, delegates) => {
              // The attachment record first: a crash between the writes leaves a record without a cache, which start-up removes.
              const pod = read.pod();
              if (pod !== undefined) await teardowns.recordAttachment(settings.cniDir, attachmentRecordOf(request, pod), signal);
              await saveDelegates(settings.cniDir, containerID, delegates.map(cacheRecord));
            },
            addNetwork: timedDelegate(metrics, 'ADD', addNetwork),
            delNetwork: timedDelegate(metrics, 'DEL', delNetwork),
            // The gRPC client is loaded at the first NAD naming a resourceName: it costs about 14 MiB resident,
            // which a daemon whose networks never name one (every managed shadow) would otherwise carry.
            listPodResources: async (listSignal) => {
              const { listPodResources } = await import('../pod-resources/pod-resources-client.ts');
              return listPodResources(settings.podResourcesSocket ?? DEFAULT_POD_RESOURCES_SOCKET, listSignal);
            },
            onRejected: (error) => {
              metrics.guardRejections.inc({ reason: error.code });
            },
            onRollbackIncomplete: async (failures) => {
              const pod = read.pod();
              const podIdentity = pod === undefined ? undefined : attachmentRecordOf(request, pod).pod;
              if (podIdentity === undefined) return;
              const subject = { containerID: request.containerID, del: delInputsOf(request), pod: podIdentity };
              await teardowns.pend(settings.cniDir, subject, 'AddRollbackFailed', 'add-rollback', failures);
            },
            writeNetworkStatus: async (pod, results, statusSignal) => {
              const statuses = results.flatMap(({ delegate, result }) => buildNetworkStatuses(delegate.name, toResult100(result), delegate.master));
              try {
                await writeNetworkStatus(options.client, pod, statuses, statusSignal);
              } catch (error) {
                // A Pod deleted meanwhile has no status to report on; its sandbox is being torn down (as upstream).
                if (!isApiError(error, 'NotFound')) throw error;
                logger.info({ err: error }, 'network-status not written: the Pod was deleted during ADD');
              }
            },
            logger,
          },
          signal,
        ).finally(endAdd);
        return { result: outcome.kind === 'pod-gone' ? emptyResult(request) : toResult100(outcome.result) };
      }
      case 'DEL':
        await runDel(request, settings, { teardowns }, signal);
        return {};
      case 'CHECK':
        // Upstream's CmdCheck checks only delegates written inline in the configuration. The thick daemon's
        // names its cluster network instead and the shim's carries none, so upstream runs nothing and
        // succeeds; the delegates ADD ran are in the delegate cache, which CHECK does not read there either.
        return {};
      case 'STATUS':
        await runStatus(
          { ...settings, readinessIndicatorFile: settings.readinessIndicatorFile ?? '' },
          { reader: readerFor(settings.liveNetworkConfigOnAdd, options.shared), statusNetwork },
          signal,
        );
        return {};
      case 'GC': {
        // The runtime's word on which attachments it still has: the others' teardowns run now, whatever
        // becomes of the cluster network's GC below.
        const valid = validAttachmentsOf(request.config);
        if (valid !== undefined) await teardowns.replayStale(settings.cniDir, valid);
        await runGc(
          { ...settings, readinessIndicatorFile: settings.readinessIndicatorFile ?? '' },
          { reader: readerFor(settings.liveNetworkConfigOnAdd, options.shared), gcNetwork, logger },
          signal,
        );
        return {};
      }
    }
  }
}
