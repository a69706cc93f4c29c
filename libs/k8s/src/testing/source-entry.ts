// A component's entry point as its own process, from the TypeScript sources (the workspace's
// `@sriov-dra/source` condition), with nothing of the test's environment but PATH and what the caller
// names: how a test sees what an administrator sees when the component starts or fails to.
import { type ChildProcess, spawn } from 'node:child_process';
import { type Server, createServer } from 'node:net';

export interface EntryExit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface LaunchedEntry {
  readonly child: ChildProcess;
  /** What it wrote to stdout so far. */
  readonly stdout: () => string;
  readonly exit: Promise<EntryExit>;
}

export function launchSourceEntry(main: string, args: readonly string[], env: Readonly<Record<string, string>> = {}): LaunchedEntry {
  const child = spawn(process.execPath, ['--conditions=@sriov-dra/source', main, ...args], {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exit = new Promise<EntryExit>((resolve) => {
    child.once('close', (code: number | null) => {
      resolve({ code, stdout, stderr });
    });
  });
  return { child, stdout: () => stdout, exit };
}

/** Runs the entry point to its exit. */
export function runSourceEntry(main: string, args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<EntryExit> {
  return launchSourceEntry(main, args, env).exit;
}

/** A TCP port something else already listens on, on all addresses as the components bind. */
export async function takenPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { port: address.port, server };
}
