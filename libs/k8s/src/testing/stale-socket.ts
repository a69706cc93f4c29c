import { spawn } from 'node:child_process';

/**
 * Leaves a unix socket file at `path` the way a crashed daemon or kubelet plugin does: a child process listens on it and
 * is killed with SIGKILL, so nothing unlinks the file.
 */
export async function leaveStaleSocket(path: string): Promise<void> {
  const child = spawn(process.execPath, ['-e', "require('node:net').createServer().listen(process.argv[1], () => process.stdout.write('up'))", path], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => {
      resolve();
    });
    child.once('error', reject);
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
