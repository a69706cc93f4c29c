// The built daemon (dist/main.js) as a process of its own, the way a DaemonSet runs it, for the benchmarks
// that measure what only a separate process shows: its resident memory, its launch flags.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@sriov-dra/k8s/testing';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const NODE = 'bench-node';

/** The documented launch (package.json `start`, main.ts's shebang). */
export const LAUNCH_FLAGS: readonly string[] = ['--max-semi-space-size=2', '--optimize-for-size', '--no-sparkplug', '--no-maglev', '--no-turbofan'];
export const LAUNCH_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };

export interface LaunchedDaemon {
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts dist/main.js with `flags` and `env` on `config` and resolves once its /readyz answers 200. */
export async function launchDaemon(options: {
  readonly config: string;
  readonly kubeconfig: string;
  readonly nodeName?: string;
  readonly flags: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}): Promise<LaunchedDaemon> {
  const child = spawn(
    process.execPath,
    [...options.flags, MAIN, '--config', options.config, '--node-name', options.nodeName ?? NODE, '--kubeconfig', options.kubeconfig, '--metrics-port', '0'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } },
  );
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  // The daemon logs its metrics port once it serves (pino JSON lines on stdout).
  const port = (): number | undefined =>
    output
      .split('\n')
      .flatMap((line) => (line.startsWith('{') ? [JSON.parse(line) as { msg?: string; metricsPort?: number }] : []))
      .find((line) => line.msg === 'daemon serving')?.metricsPort;
  try {
    await waitFor(
      'the launched daemon’s /readyz',
      async () => {
        const at = port();
        return at !== undefined && (await fetch(`http://127.0.0.1:${String(at)}/readyz`)).ok;
      },
      { timeoutMs: 60_000, alive: () => child.exitCode === null, describe: () => output },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { child, stop };
}
