import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync } from 'node:fs';
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

/** Asks the kernel for a free loopback port. */
export function freePort(): Promise<number> {
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
