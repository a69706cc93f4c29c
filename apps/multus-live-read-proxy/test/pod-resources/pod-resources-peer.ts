// The kubelet's PodResources v1 server (tools/pod-resources-peer: k8s.io/kubernetes v1.36.3's own server
// code behind the kubelet's rate limiter) on a unix socket of the test's, answering from a state file the
// test rewrites. Built by `tools/control-plane/build-binaries.sh pod-resources-peer` into the shared cache
// outside the repository, and refused when its stamp does not match the sources here.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stampedGoPeer } from '@sriov-dra/k8s/testing';

/** What the kubelet reports for one Pod: each container's device-plugin devices and DRA claims. */
export interface PeerPod {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly containers: readonly {
    readonly name: string;
    readonly devices?: readonly { readonly resourceName: string; readonly deviceIds: readonly string[] }[];
    readonly dynamicResources?: readonly {
      readonly claimName: string;
      readonly claimNamespace: string;
      readonly claimResources: readonly {
        readonly cdiDevices: readonly string[];
        readonly driverName: string;
        readonly poolName: string;
        readonly deviceName: string;
      }[];
    }[];
  }[];
}

export interface PodResourcesPeer {
  readonly socket: string;
  /** The calls the server answered so far, in order ("List" or "Get"). */
  calls(): Promise<string[]>;
  /** Replaces what the server reports from its next call on. */
  setPods(pods: readonly PeerPod[]): Promise<void>;
  /** SIGTERM: the server stops and its socket file goes with it. */
  stop(): Promise<void>;
  /** SIGKILL: the server dies and leaves its socket file behind, as a crashed kubelet does. */
  kill(): Promise<void>;
}

/** Starts the server on `<dir>/kubelet.sock` (the kubelet's file name) and resolves once it listens. */
export async function startPodResourcesPeer(dir: string, pods: readonly PeerPod[]): Promise<PodResourcesPeer> {
  const socket = join(dir, 'kubelet.sock');
  const state = join(dir, 'pod-resources-state.json');
  const setPods = (next: readonly PeerPod[]): Promise<void> => writeFile(state, JSON.stringify({ pods: next }));
  await setPods(pods);
  const child: ChildProcessWithoutNullStreams = spawn(stampedGoPeer('pod-resources-peer', 'pod-resources'), ['-socket', socket, '-state', state], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stderr: Buffer[] = [];
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      resolve();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer): void => {
      out += chunk.toString('utf8');
      if (out.includes('serving\n')) {
        child.stdout.off('data', onData);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      reject(new Error(`pod-resources peer exited (${String(code)}): ${Buffer.concat(stderr).toString('utf8')}`));
    });
  });
  const end = async (signal: NodeJS.Signals): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    await exited;
  };
  const calls = async (): Promise<string[]> => (await readFile(`${state}.calls`, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '');
  return { socket, calls, setPods, stop: () => end('SIGTERM'), kill: () => end('SIGKILL') };
}
