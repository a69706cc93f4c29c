// The Go delegate runner is the benchmark's measure of upstream's own delegate time; a runner that answered
// without running anything would make upstream look slower than it is. So: it really runs the plugins
// through libcni (a veth with a host-local address appears in the sandbox, DEL removes it and frees the
// lease), stops an ADD at the first failure, and reports libcni's errors.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type NodeFixture, createNodeFixture, createSandbox, removeNodeFixture } from '../pipeline/node-fixture.ts';
import { type GoDelegateCall, GoDelegateRunner } from './go-delegate-runner.ts';

let node: NodeFixture;
let runner: GoDelegateRunner;

beforeAll(async () => {
  node = await createNodeFixture();
  runner = GoDelegateRunner.start();
});

afterAll(async () => {
  runner.stop();
  await removeNodeFixture(node);
});

async function leases(): Promise<string[]> {
  const files = await readdir(join(node.hostLocalDir, 'primary')).catch(() => []);
  return files.filter((file) => /^\d+\.\d+\.\d+\.\d+$/.test(file));
}

function call(command: 'ADD' | 'DEL', sandbox: { path: string }, delegates: GoDelegateCall['delegates']): GoDelegateCall {
  return {
    command,
    containerID: 'runner-1',
    netns: sandbox.path,
    args: [['IgnoreUnknown', '1']],
    binDirs: node.binDirs,
    cacheDir: join(node.root, 'runner-cache'),
    delegates,
  };
}

describe('delegate-runner (libcni in Go)', () => {
  it('runs a conflist and a single plugin in order on ADD, and undoes them on DEL', async () => {
    const primary = await readFile(join(node.confDir, '10-primary.conflist'), 'utf8');
    const sriov = JSON.stringify({ cniVersion: '1.0.0', name: 'rail-a', type: 'sriov', deviceID: '0000:03:00.1' });
    const delegates = [
      { config: primary, ifName: 'eth0' },
      { config: sriov, ifName: 'net1' },
    ];
    const sandbox = createSandbox();
    try {
      const elapsedMs = await runner.run(call('ADD', sandbox, delegates));
      expect(elapsedMs).toBeGreaterThan(0);
      expect(sandbox.links()).toEqual([expect.stringMatching(/^eth0 10\.244\.7\.\d+$/)]);
      expect(await leases()).toHaveLength(1);
      expect((await node.sriovCalls()).map(({ command, ifName }) => `${command} ${ifName}`)).toEqual(['ADD net1']);

      await runner.run(call('DEL', sandbox, delegates));
      expect(sandbox.links()).toEqual([]);
      expect(await leases()).toEqual([]);
      expect((await node.sriovCalls()).map(({ command, ifName }) => `${command} ${ifName}`)).toEqual(['ADD net1', 'DEL net1']);
    } finally {
      sandbox.remove();
    }
  }, 30_000);

  it('stops an ADD at the first failing delegate and reports libcni’s error', async () => {
    const missing = JSON.stringify({ cniVersion: '1.0.0', name: 'nowhere', type: 'no-such-plugin' });
    const sriov = JSON.stringify({ cniVersion: '1.0.0', name: 'rail-b', type: 'sriov', deviceID: '0000:03:00.2' });
    const sandbox = createSandbox();
    const callsBefore = (await node.sriovCalls()).length;
    try {
      await expect(
        runner.run(
          call('ADD', sandbox, [
            { config: missing, ifName: 'net1' },
            { config: sriov, ifName: 'net2' },
          ]),
        ),
      ).rejects.toThrow('failed to find plugin "no-such-plugin"');
      expect((await node.sriovCalls()).length).toBe(callsBefore);
    } finally {
      sandbox.remove();
    }
  }, 30_000);
});
