// The driver as the DaemonSet runs it: src/main.ts in a process of its own over a node's directories,
// for the tests that restart or kill it against the same state.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@sriov-dra/k8s/testing';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

/**
 * Starts the driver with `argv`, its output in `logFile`, and resolves once its log says the kubelet
 * sockets are served: a killed process's socket files may still be there, so their presence proves nothing.
 */
export async function launchDriver(argv: readonly string[], logFile: string): Promise<ChildProcess> {
  const log = fs.openSync(logFile, 'w');
  const child = spawn(process.execPath, ['--conditions=@sriov-dra/source', MAIN, ...argv], { stdio: ['ignore', log, log] });
  fs.closeSync(log);
  await waitFor('the driver to serve the kubelet sockets', () => Promise.resolve(fs.readFileSync(logFile, 'utf8').includes('kubelet plugin serving')), {
    timeoutMs: 60_000,
    alive: () => child.exitCode === null,
    describe: () => fs.readFileSync(logFile, 'utf8'),
  });
  return child;
}

/** SIGKILL, as a node crash or the OOM killer ends it: no cleanup of any kind runs. */
export async function killDriver(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
