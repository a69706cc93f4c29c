import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomInt } from 'node:crypto';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { errorMessage } from '../api-errors.ts';

/** Whether a process with this PID exists (signal 0 probes without signalling). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The kernel's ephemeral port range (what listen(0) and outgoing connections are given); Linux's default elsewhere. */
export function ephemeralPortRange(file = '/proc/sys/net/ipv4/ip_local_port_range'): { readonly low: number; readonly high: number } {
  try {
    const [low, high] = readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
    if (low !== undefined && high !== undefined && Number.isInteger(low) && Number.isInteger(high)) return { low, high };
  } catch {
    // Not Linux, or /proc not mounted: assume its default.
  }
  return { low: 32768, high: 60999 };
}

/** Below the ephemeral range; the lowest ports are left to services. */
const CHOSEN_PORTS_FROM = 10_000;
/** Ports handed out by this process, never handed out twice even if their user has not bound them yet. */
const handedOut = new Set<number>();

function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port);
        else reject(new Error('no port assigned'));
      });
    });
  });
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => {
      resolve(false);
    });
    server.listen(port, '127.0.0.1', () => {
      server.close(() => {
        resolve(true);
      });
    });
  });
}

/**
 * A loopback port free now, for a process that binds it later. It is chosen below the kernel's ephemeral
 * range: the many listen(0) servers and outgoing connections of the suites running side by side cannot
 * be given it in between, as they could a port the kernel had just handed out; only another such choice
 * can, at random among some twenty thousand ports.
 */
export async function freePort(): Promise<number> {
  const { low } = ephemeralPortRange();
  const span = low - CHOSEN_PORTS_FROM;
  // A kernel whose ephemeral range starts low leaves no room below it: it picks, as listen(0) does.
  if (span <= 1_000) return kernelPort();
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const port = CHOSEN_PORTS_FROM + randomInt(span);
    if (handedOut.has(port)) continue;
    // Taken before the check, so that a concurrent call cannot pick it meanwhile.
    handedOut.add(port);
    if (await canListen(port)) return port;
    handedOut.delete(port);
  }
  throw new Error(`no free loopback port below the ephemeral range (from ${String(CHOSEN_PORTS_FROM)} to ${String(low)})`);
}

const running = new Set<ChildProcess>();
// A test runner that dies mid-run must not leave etcd or an API server behind.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface ManagedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly logFile: string;
  stop(): Promise<void>;
}

/** Starts a component with its output in `logFile`; `stop` sends SIGTERM, then SIGKILL after a grace period. */
export function startProcess(name: string, command: string, args: readonly string[], logFile: string): ManagedProcess {
  const out = openSync(logFile, 'a');
  const child = spawn(command, args, { stdio: ['ignore', out, out] });
  // The child holds its own copy; keeping ours would leak one descriptor per component start.
  closeSync(out);
  running.add(child);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      running.delete(child);
      resolve();
    });
  });
  return {
    name,
    child,
    logFile,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Polls `probe` until it resolves true; fails with `describe()` after `timeoutMs` or if `alive()` turns
 * false. The failure names the last probe error (also its cause): "not ready" alone hides whether the
 * component refused connections, rejected a certificate or answered 500.
 */
export async function waitFor(
  what: string,
  probe: () => Promise<boolean>,
  options: { timeoutMs: number; alive?: () => boolean; describe?: () => string },
): Promise<void> {
  const deadline = performance.now() + options.timeoutMs;
  let last: { readonly error: unknown } | undefined;
  const failure = (reason: string): Error => {
    const outcome = last === undefined ? '' : ` Last probe failed: ${errorMessage(last.error)}.`;
    return new Error(`${what}: ${reason}.${outcome} ${options.describe?.() ?? ''}`, last === undefined ? undefined : { cause: last.error });
  };
  for (;;) {
    if (options.alive !== undefined && !options.alive()) throw failure('process exited');
    try {
      if (await probe()) return;
      last = undefined;
    } catch (error) {
      last = { error };
    }
    if (performance.now() > deadline) throw failure(`not ready after ${options.timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** SIGTERM to a child that still runs, resolving once it has exited. */
export async function terminateChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}
