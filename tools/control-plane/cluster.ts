// npm run cluster:up / cluster:down — a local control plane for people (tests start their own).
//   up:    starts etcd, kube-apiserver, kube-controller-manager and kube-scheduler with the chart CRDs
//          installed, in a background supervisor, and prints the admin kubeconfig path.
//   down:  stops it and removes its files.
// State lives in $SRIOV_DRA_CACHE/cluster/state.json.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheRoot, installCrds, isProcessAlive as alive, startControlPlane } from '@sriov-dra/k8s/testing';

const stateDir = join(cacheRoot(), 'cluster');
const stateFile = join(stateDir, 'state.json');

interface State {
  readonly pid: number;
  readonly kubeconfig: string;
  readonly server: string;
  readonly dir: string;
}

function readState(): State | undefined {
  return existsSync(stateFile) ? (JSON.parse(readFileSync(stateFile, 'utf8')) as State) : undefined;
}

async function serve(): Promise<void> {
  const cp = await startControlPlane({ controllerManager: true, scheduler: true, keepDir: false });
  await installCrds(cp.adminClient);
  writeFileSync(stateFile, JSON.stringify({ pid: process.pid, kubeconfig: cp.kubeconfig, server: cp.server, dir: cp.dir } satisfies State));
  const shutdown = async (): Promise<void> => {
    await cp.stop();
    rmSync(stateFile, { force: true });
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
}

async function up(): Promise<void> {
  const existing = readState();
  if (existing !== undefined && alive(existing.pid)) {
    console.log(`already running (pid ${existing.pid})\nexport KUBECONFIG=${existing.kubeconfig}`);
    return;
  }
  mkdirSync(stateDir, { recursive: true });
  rmSync(stateFile, { force: true });
  const log = join(stateDir, 'supervisor.log');
  const out = openSync(log, 'w');
  const child = spawn(process.execPath, ['--conditions=@sriov-dra/source', fileURLToPath(import.meta.url), 'serve'], {
    detached: true,
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  child.unref();
  const deadline = Date.now() + 120_000;
  while (readState() === undefined) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`control plane did not start; see ${log}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const state = readState();
  console.log(`control plane up at ${state?.server ?? ''} (supervisor pid ${child.pid ?? ''})\nexport KUBECONFIG=${state?.kubeconfig ?? ''}`);
}

async function down(): Promise<void> {
  const state = readState();
  if (state === undefined || !alive(state.pid)) {
    rmSync(stateFile, { force: true });
    console.log('no control plane running');
    return;
  }
  process.kill(state.pid, 'SIGTERM');
  while (alive(state.pid)) await new Promise((resolve) => setTimeout(resolve, 200));
  console.log('control plane stopped');
}

const command = process.argv[2];
if (command === 'serve') await serve();
else if (command === 'up') await up();
else if (command === 'down') await down();
else {
  console.error('usage: cluster.ts up|down');
  process.exitCode = 2;
}
