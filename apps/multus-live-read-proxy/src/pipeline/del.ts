import type { Logger } from 'pino';
import type { DelegateRecord } from '../cache/delegate-codec.ts';
import type { InvokeOptions } from '../cni/invoke.ts';
import type { RuntimeConf } from '../cni/runtime-conf.ts';
import type { CniRequest } from '../server/cni-request.ts';
import type { TeardownOutcome } from '../teardown/teardown-worker.ts';
import { cachedIfName, capabilityArgs, runtimeCapabilities } from './delegate-runtime.ts';
import { delegateArgs, k8sArgsOf } from './k8s-args.ts';

export interface DelSettings {
  /** Delegate cache directory (Multus's cniDir); the daemon's teardown state lives beside it. */
  readonly cniDir: string;
  readonly binDirs: readonly string[];
  /** The root directory delegates run in (daemon-config.json's chrootDir); '' for the daemon's own. */
  readonly chrootDir: string;
  readonly resultCacheDir: string;
  readonly delegateTimeoutMs: number;
}

export interface DelegateFailure {
  readonly network: string;
  readonly error: unknown;
}

export interface DelegateDeleteEffects {
  delNetwork(bytes: Uint8Array, rt: RuntimeConf, options: Required<InvokeOptions>): Promise<void>;
  readonly logger: Logger;
}

export interface DelEffects {
  /** The daemon's teardowns: the runtime's DEL runs through them, so what fails is retried by the daemon. */
  readonly teardowns: { runtimeDel(request: CniRequest, settings: DelSettings, signal: AbortSignal): Promise<TeardownOutcome> };
}

export function describeFailures(failures: readonly DelegateFailure[]): string {
  return failures.map(({ network, error }) => `${network}: ${error instanceof Error ? error.message : String(error)}`).join('; ');
}

/**
 * Some delegates could not be deleted. The upstream shim reports success to the runtime whatever this
 * says, so the runtime never retries: the delegate cache is kept and this daemon retries the DEL itself.
 */
export class DelegateDeleteError extends Error {
  override readonly name = 'DelegateDeleteError';
  readonly code = 'DelegateDeleteFailed';
  readonly failures: readonly DelegateFailure[];

  constructor(containerID: string, failures: readonly DelegateFailure[], retry: { readonly nextAttemptMs: number; readonly record: string }) {
    super(
      `DEL of container ${containerID} failed for ${String(failures.length)} network(s) (${describeFailures(failures)}); the delegate cache is kept and ` +
        `this daemon retries the DEL itself in ${String(Math.round(retry.nextAttemptMs / 1000))} s, then with backoff until it succeeds ` +
        `(pending teardown ${retry.record}); see its log and sriov_dra_multus_pending_teardowns`,
    );
    this.failures = failures;
  }
}

/**
 * Upstream Multus's delPlugins over a cached delegate list: every delegate in reverse order with the
 * bytes it was added with, each attempted even after another failed. Returns the failures.
 */
export async function deleteDelegates(
  request: CniRequest,
  delegates: readonly DelegateRecord[],
  settings: DelSettings,
  effects: DelegateDeleteEffects,
  signal: AbortSignal,
): Promise<DelegateFailure[]> {
  const k8s = k8sArgsOf(request.args);
  const runtime = runtimeCapabilities(request.config);
  const failures: DelegateFailure[] = [];
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
      effects.logger.warn(
        { containerID: request.containerID, podNamespace: k8s.podNamespace, podName: k8s.podName, err: error, network: delegate.name },
        'DEL of a delegate failed; continuing with the others',
      );
      failures.push({ network: delegate.name, error });
    }
  }
  return failures;
}

/**
 * CNI DEL (§11): replays exactly the cached delegates, in reverse, with the bytes they were added with —
 * no Pod, NAD or shadow is read, so it works after all of them are gone or while a shadow is Terminating.
 * The cache is removed only when every delegate's DEL succeeded; otherwise the teardown stays pending and
 * the daemon retries it (a pending one is retried now). With no cache there is nothing this daemon added,
 * and nothing is rebuilt from current objects (§11).
 */
export async function runDel(request: CniRequest, settings: DelSettings, effects: DelEffects, signal: AbortSignal): Promise<void> {
  const outcome = await effects.teardowns.runtimeDel(request, settings, signal);
  if (outcome.kind === 'pending') throw new DelegateDeleteError(request.containerID, outcome.failures, outcome);
}
