import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as wait } from 'node:timers/promises';
import { type PluginLaunch, chrootFailure, pluginLaunch } from './chroot.ts';
import { CniInvocationError } from './cni-error.ts';
import { type CniCommand, type PluginExit, readPluginOutput } from './plugin-output.ts';
import type { CniResult } from './result-version.ts';
import { type RuntimeConf, cniArgsString } from './runtime-conf.ts';
import { type NotLaunched, launchWhileTextFileBusy } from './text-file-busy.ts';

export interface PluginCall {
  readonly command: CniCommand;
  readonly network: string;
  readonly pluginType: string;
  /** The cniVersion written into the plugin's stdin. */
  readonly configVersion: string;
  /** The exact stdin bytes. */
  readonly stdin: string;
  readonly rt: RuntimeConf;
  readonly binDirs: readonly string[];
  /** daemon-config.json's chrootDir: the root directory the plugin runs in; '' runs it in the daemon's own. */
  readonly chrootDir: string;
  /**
   * Ends the call: the plugin's whole process group is killed with SIGKILL and the call fails once the
   * plugin has exited. A TimeoutError reason
   * (AbortSignal.timeout) reports PluginTimedOut, any other reason PluginCancelled.
   */
  readonly signal: AbortSignal;
}

/** A plugin printing more than this is broken or hostile; it is killed instead of filling memory. */
const MAX_STDOUT_BYTES = 16 * 1024 * 1024;
/** Only the end of stderr is kept for messages: that is where a plugin's last complaint is. */
const MAX_STDERR_BYTES = 64 * 1024;
/** libcni's FindInPath: the first regular file named `type` in the bin directories, in order. */
export async function findPlugin(pluginType: string, binDirs: readonly string[], network: string): Promise<string> {
  const subject = { network, pluginType };
  if (pluginType === '') throw new CniInvocationError('PluginNotFound', subject, 'no plugin name provided');
  if (pluginType.includes('/')) throw new CniInvocationError('PluginNotFound', subject, `invalid plugin name: ${pluginType}`);
  if (binDirs.length === 0) throw new CniInvocationError('PluginNotFound', subject, 'no paths provided');
  for (const directory of binDirs) {
    const candidate = join(directory, pluginType);
    const info = await stat(candidate).catch(() => undefined);
    if (info?.isFile() === true) return candidate;
  }
  throw new CniInvocationError('PluginNotFound', subject, `failed to find plugin ${JSON.stringify(pluginType)} in path [${binDirs.join(' ')}]`);
}

function abortError(signal: AbortSignal, call: PluginCall): CniInvocationError {
  const subject = { network: call.network, pluginType: call.pluginType };
  const reason: unknown = signal.reason;
  if (reason instanceof DOMException && reason.name === 'TimeoutError') {
    return new CniInvocationError('PluginTimedOut', subject, `${call.command}: the plugin did not finish before the deadline and was killed`);
  }
  return new CniInvocationError('PluginCancelled', subject, `${call.command}: the call was cancelled and the plugin killed`, reason);
}

function environment(call: PluginCall): NodeJS.ProcessEnv {
  // libcni passes the runtime's own environment with the CNI variables set over it.
  return {
    ...process.env,
    CNI_COMMAND: call.command,
    CNI_CONTAINERID: call.rt.containerID,
    CNI_NETNS: call.rt.netns,
    CNI_ARGS: cniArgsString(call.rt.args),
    CNI_IFNAME: call.rt.ifName,
    CNI_PATH: call.binDirs.join(':'),
  };
}

/** How one attempt ended: the plugin ran and exited, or it never ran. */
type Attempt = { readonly kind: 'exited'; readonly exit: PluginExit } | NotLaunched;

/**
 * Runs the plugin to completion (or until the signal fires); never rejects with anything but a typed
 * error. `path` is the plugin's, for messages; `launch` what is spawned for it.
 */
function run(path: string, launch: PluginLaunch, call: PluginCall): Promise<Attempt> {
  return new Promise((resolve, reject) => {
    if (call.signal.aborted) {
      reject(abortError(call.signal, call));
      return;
    }
    const subject = { network: call.network, pluginType: call.pluginType };
    const notLaunched = (error: NodeJS.ErrnoException): NotLaunched => ({
      kind: 'not-launched',
      error: new CniInvocationError('PluginLaunchFailed', subject, `${call.command}: cannot run ${path}: ${error.message}`, error),
      textFileBusy: error.code === 'ETXTBSY',
    });
    let child: ChildProcessWithoutNullStreams;
    try {
      // Its own process group, so a kill reaches whatever the plugin started and no descendant keeps the
      // pipes open after the deadline.
      child = spawn(launch.file, launch.args, { argv0: launch.argv0, env: environment(call), stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    } catch (error) {
      // Node throws, rather than emitting, some exec failures (a busy text file among them).
      resolve(notLaunched(error as NodeJS.ErrnoException));
      return;
    }
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = Buffer.alloc(0);
    let settled = false;
    // Set once the plugin is being killed; the call then fails with it as soon as the process has exited, or,
    // killed after its exit, once its pipes have closed.
    let killedFor: Error | undefined;
    const finish = (outcome: { readonly attempt: Attempt } | { readonly error: Error }): void => {
      if (settled) return;
      settled = true;
      call.signal.removeEventListener('abort', onAbort);
      if ('error' in outcome) reject(outcome.error);
      else resolve(outcome.attempt);
    };
    const kill = (reason: Error): void => {
      if (killedFor !== undefined || child.pid === undefined) return;
      killedFor = reason;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is already gone.
      }
      child.stdout.destroy();
      child.stderr.destroy();
    };
    function onAbort(): void {
      kill(abortError(call.signal, call));
    }
    call.signal.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error: NodeJS.ErrnoException) => {
      const attempt = notLaunched(error);
      // Without a pid the process never started and no exit event follows.
      if (child.pid === undefined) finish({ attempt });
      else kill(attempt.error);
    });
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > MAX_STDOUT_BYTES) {
        kill(new CniInvocationError('InvalidPluginOutput', subject, `${call.command}: the plugin printed more than ${MAX_STDOUT_BYTES} bytes and was killed`));
        return;
      }
      stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = Buffer.concat([stderr, chunk]);
      if (stderr.length > MAX_STDERR_BYTES) stderr = stderr.subarray(stderr.length - MAX_STDERR_BYTES);
    });
    // A killed plugin fails the call once it has exited (as libcni waits for it), not when its pipes close.
    child.on('exit', () => {
      if (killedFor !== undefined) finish({ error: killedFor });
    });
    child.on('close', (code, signal) => {
      // Killed after it had exited (the deadline fell between its exit and its pipes' close): no exit event
      // follows, so this is where the call fails.
      if (killedFor !== undefined) {
        finish({ error: killedFor });
        return;
      }
      const exit = { code, signal, stdout: Buffer.concat(stdout).toString('utf8'), stderr: stderr.toString('utf8') };
      const chroot = call.chrootDir === '' ? undefined : chrootFailure(exit);
      if (chroot === undefined) {
        finish({ attempt: { kind: 'exited', exit } });
        return;
      }
      const detail = `${call.command}: cannot run ${path} in ${call.chrootDir}: ${chroot.detail}`;
      finish({ attempt: { kind: 'not-launched', error: new CniInvocationError('ChrootLaunchFailed', subject, detail), textFileBusy: chroot.textFileBusy } });
    });
    // A plugin may exit without reading its stdin; the broken pipe is not an error of the call.
    child.stdin.on('error', () => undefined);
    child.stdin.end(call.stdin);
  });
}

/**
 * Executes one plugin as libcni does (find in the bin directories, CNI_* environment, configuration on
 * stdin; a busy plugin file tried again) and reads its answer: the canonical result for ADD, undefined for
 * every other command. With a chrootDir the plugin runs chrooted into it, as upstream Multus's daemon runs it.
 */
export function execPlugin(call: PluginCall & { readonly command: 'ADD' }): Promise<CniResult>;
export function execPlugin(call: PluginCall & { readonly command: Exclude<CniCommand, 'ADD'> }): Promise<undefined>;
export async function execPlugin(call: PluginCall): Promise<CniResult | undefined> {
  const path = await findPlugin(call.pluginType, call.binDirs, call.network);
  const launch = pluginLaunch(path, call.chrootDir);
  const attempt = await launchWhileTextFileBusy(
    () => run(path, launch, call),
    async (ms) => {
      try {
        await wait(ms, undefined, { signal: call.signal });
      } catch {
        throw abortError(call.signal, call);
      }
    },
  );
  const read = readPluginOutput(attempt.exit, call);
  if (!read.ok) throw read.error;
  return read.result;
}
