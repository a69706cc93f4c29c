import type { Logger } from 'pino';
import { type KubeClient, isApiError } from '@sriov-dra/k8s';
import { loadDelegates, removeDelegates, saveDelegates } from '../cache/delegate-cache.ts';
import type { DelegateRecord } from '../cache/delegate-codec.ts';
import { addNetwork, delNetwork } from '../cni/invoke.ts';
import { toResult100 } from '../cni/result-version.ts';
import { buildNetworkStatuses, writeNetworkStatus } from '../network-status.ts';
import { readerFor } from '../reads/reader-for.ts';
import type { SharedPodNetworkInformers } from '../reads/shared-informers.ts';
import type { CniRequest, CniRequestHandler, CniResponse } from '../server/cni-request.ts';
import { type AddSettings, type Delegate, runAdd } from './add.ts';
import { runDel } from './del.ts';

/** The effective settings of one request: the shim's configuration overlaid with the daemon's. */
export interface RequestSettings extends AddSettings {
  /** Delegate cache directory (Multus's cniDir). */
  readonly cniDir: string;
  readonly liveNetworkConfigOnAdd: boolean;
}

export interface CniHandlerOptions {
  settingsFor(request: CniRequest): RequestSettings;
  readonly shared: SharedPodNetworkInformers;
  readonly client: KubeClient;
  readonly logger: Logger;
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
    ...(selection?.deviceID === undefined || selection.deviceID === '' ? {} : { deviceID: selection.deviceID }),
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
 * upstream thick daemon accepts it (it has no delegates in the shim's configuration to check).
 */
export function createCniHandler(options: CniHandlerOptions): CniRequestHandler {
  return {
    async handle(request: CniRequest, signal: AbortSignal): Promise<CniResponse> {
      const settings = options.settingsFor(request);
      const logger = options.logger.child({ command: request.command, containerID: request.containerID });
      switch (request.command) {
        case 'ADD': {
          const outcome = await runAdd(
            request,
            settings,
            {
              reader: readerFor(settings.liveNetworkConfigOnAdd, options.shared),
              saveDelegates: (containerID, delegates) => saveDelegates(settings.cniDir, containerID, delegates.map(cacheRecord)),
              addNetwork,
              delNetwork,
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
          );
          return { result: outcome.kind === 'pod-gone' ? emptyResult(request) : toResult100(outcome.result) };
        }
        case 'DEL':
          await runDel(
            request,
            settings,
            {
              loadDelegates: (containerID) => loadDelegates(settings.cniDir, containerID),
              removeDelegates: (containerID) => removeDelegates(settings.cniDir, containerID),
              delNetwork,
              logger,
            },
            signal,
          );
          return {};
        case 'CHECK':
        case 'GC':
        case 'STATUS':
          return {};
      }
    },
  };
}
