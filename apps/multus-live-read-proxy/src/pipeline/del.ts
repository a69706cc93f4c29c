import type { Logger } from 'pino';
import type { DelegateRecord } from '../cache/delegate-codec.ts';
import type { InvokeOptions } from '../cni/invoke.ts';
import type { RuntimeConf } from '../cni/runtime-conf.ts';
import type { CniRequest } from '../server/cni-request.ts';
import { cachedIfName, capabilityArgs, runtimeCapabilities } from './delegate-runtime.ts';
import { delegateArgs, k8sArgsOf } from './k8s-args.ts';

export interface DelSettings {
  readonly binDirs: readonly string[];
  /** The root directory delegates run in (daemon-config.json's chrootDir); '' for the daemon's own. */
  readonly chrootDir: string;
  readonly resultCacheDir: string;
  readonly delegateTimeoutMs: number;
}

export interface DelEffects {
  /** The delegates the ADD of this container saved, or undefined when it saved none. */
  loadDelegates(containerID: string): Promise<DelegateRecord[] | undefined>;
  removeDelegates(containerID: string): Promise<unknown>;
  delNetwork(bytes: Uint8Array, rt: RuntimeConf, options: Required<InvokeOptions>): Promise<void>;
  readonly logger: Logger;
}

/** Some delegates could not be deleted; the cache is kept so the runtime's retry replays them. */
export class DelegateDeleteError extends Error {
  override readonly name = 'DelegateDeleteError';
  readonly code = 'DelegateDeleteFailed';
  readonly failures: readonly { readonly network: string; readonly error: unknown }[];

  constructor(containerID: string, failures: readonly { readonly network: string; readonly error: unknown }[]) {
    const what = failures.map(({ network, error }) => `${network}: ${error instanceof Error ? error.message : String(error)}`).join('; ');
    super(
      `DEL of container ${containerID} failed for ${String(failures.length)} network(s) (${what}); the delegate cache is kept and the runtime's retry replays it`,
    );
    this.failures = failures;
  }
}

/**
 * CNI DEL (§11): replays exactly the cached delegates, in reverse, with the bytes they were added with —
 * no Pod, NAD or shadow is read, so it works after all of them are gone or while a shadow is Terminating.
 * Every delegate is attempted even after a failure; the cache is removed only when all succeeded. With no
 * cache there is nothing this daemon added, and nothing is rebuilt from current objects (§11).
 */
export async function runDel(request: CniRequest, settings: DelSettings, effects: DelEffects, signal: AbortSignal): Promise<void> {
  const k8s = k8sArgsOf(request.args);
  const delegates = await effects.loadDelegates(request.containerID);
  const context = { containerID: request.containerID, podNamespace: k8s.podNamespace, podName: k8s.podName };
  if (delegates === undefined) {
    effects.logger.info(context, 'DEL: no delegate cache for this container; nothing was added through this daemon');
    return;
  }
  const runtime = runtimeCapabilities(request.config);
  const failures: { network: string; error: unknown }[] = [];
  for (let index = delegates.length - 1; index >= 0; index--) {
    const delegate = delegates[index];
    if (delegate === undefined) continue;
    const master = index === 0;
    const rt: RuntimeConf = {
      containerID: request.containerID,
      netns: request.netns,
      ifName: cachedIfName(delegate.ifnameRequest, index, request.ifName),
      args: delegateArgs(k8s, request.args, master ? {} : { mac: delegate.macRequest, ips: delegate.ipRequest }),
      capabilityArgs: capabilityArgs(
        runtime,
        {
          ...(delegate.ipRequest === undefined ? {} : { ips: delegate.ipRequest }),
          ...(delegate.macRequest === undefined ? {} : { mac: delegate.macRequest }),
          ...(delegate.infinibandGUIDRequest === undefined ? {} : { infinibandGUID: delegate.infinibandGUIDRequest }),
          ...(delegate.deviceID === undefined ? {} : { deviceID: delegate.deviceID }),
        },
        master,
      ),
      cacheDir: settings.resultCacheDir,
    };
    try {
      await effects.delNetwork(delegate.bytes, rt, { binDirs: settings.binDirs, chrootDir: settings.chrootDir, timeoutMs: settings.delegateTimeoutMs, signal });
    } catch (error) {
      effects.logger.warn({ ...context, err: error, network: delegate.name }, 'DEL of a delegate failed; continuing with the others');
      failures.push({ network: delegate.name, error });
    }
  }
  if (failures.length > 0) throw new DelegateDeleteError(request.containerID, failures);
  await effects.removeDelegates(request.containerID);
}
