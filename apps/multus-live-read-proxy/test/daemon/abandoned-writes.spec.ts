// A daemon killed mid-write leaves the temporary file of an atomic replacement behind; the next daemon
// removes its own before it serves, and nothing another component wrote into the shared CNI directory.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type NodeFixture, createNodeFixture, removeNodeFixture } from '../pipeline/node-fixture.ts';
import { type FixtureDaemon, startFixtureDaemon } from './daemon-fixture.ts';

let node: NodeFixture;
let started: FixtureDaemon | undefined;

beforeAll(async () => {
  node = await createNodeFixture();
});

afterAll(async () => {
  await started?.daemon.stop();
  await removeNodeFixture(node);
});

describe('daemon startup after a crash', () => {
  it('removes the unfinished writes of its delegate cache, result cache and entry configuration only', async () => {
    const cniConfigDir = join(node.root, 'cni-net.d');
    const results = join(node.cniDir, 'results');
    await mkdir(cniConfigDir, { recursive: true });
    await mkdir(results, { recursive: true });
    const ours = [
      join(node.cniDir, '.0f3c9a2e7b1d.0123456789ab.tmp'),
      join(results, '.primary-0f3c9a2e7b1d-eth0.0123456789ab.tmp'),
      join(cniConfigDir, '.00-multus.conf.0123456789ab.tmp'),
    ];
    const theirs = [join(cniConfigDir, '.10-calico.conflist.0123456789ab.tmp'), join(node.cniDir, '0f3c9a2e7b1d')];
    for (const file of [...ours, ...theirs]) await writeFile(file, '{"cut":');

    // No API server is needed to start: the informers retry in the background.
    started = await startFixtureDaemon(node, { kubeconfig: await unreachableKubeconfig(), config: { cniConfigDir } });

    expect([...ours, ...theirs].map((file) => existsSync(file))).toEqual([false, false, false, true, true]);
  });
});

async function unreachableKubeconfig(): Promise<string> {
  const path = join(node.root, 'kubeconfig');
  await writeFile(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'none', cluster: { server: 'https://127.0.0.1:9' } }],
      users: [{ name: 'none', user: { token: 'none' } }],
      contexts: [{ name: 'none', context: { cluster: 'none', user: 'none' } }],
      'current-context': 'none',
    }),
  );
  return path;
}
