import { spawn } from 'node:child_process';
import { multusBinaries } from '@sriov-dra/k8s/testing';

export interface ShimRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Executes the upstream multus-shim the way a container runtime executes a CNI plugin: the CNI_*
 * variables in its environment (and nothing else, so the environment the daemon receives is exactly
 * this one), the network configuration on stdin.
 */
export async function runShim(env: Readonly<Record<string, string>>, stdin: Buffer | string): Promise<ShimRun> {
  const child = spawn(multusBinaries().multusShim, [], { env: { ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  child.stdin.end(stdin);
  const code = await exited;
  return { code, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') };
}
