// Two keys of the multus-shim configuration, through the unchanged upstream shim. Inline `delegates` with no
// clusterNetwork (upstream's thin-plugin way of naming the Pod's networks) are refused before anything runs:
// this daemon plans every ADD from clusterNetwork. `kubeconfig` is not read, as upstream's thick daemon keeps
// its own client: a shim configuration naming a file that does not exist changes nothing.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ControlPlane, createNamespace, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import type { Daemon } from '../../src/daemon.ts';
import { shimConfig, shimEnv, startFixtureDaemon } from '../daemon/daemon-fixture.ts';
import { type NodeFixture, PRIMARY_BRIDGE, createNodeFixture, createPod, createSandbox, removeNodeFixture } from '../pipeline/node-fixture.ts';
import { runShim } from '../server/multus-shim.ts';

const NS = 'parity-shim-keys';
const INLINE_DELEGATE = {
  cniVersion: '1.0.0',
  name: 'inline',
  type: 'bridge',
  bridge: PRIMARY_BRIDGE,
  ipam: { type: 'host-local', subnet: '10.244.8.0/24' },
};

let cp: ControlPlane;
let node: NodeFixture;

beforeAll(async () => {
  cp = await startControlPlane();
  await installCrds(cp.adminClient);
  await createNamespace(cp.adminClient, NS);
  node = await createNodeFixture();
}, 120_000);

afterAll(async () => {
  await cp.stop();
  await removeNodeFixture(node);
});

describe('inline delegates without a clusterNetwork', () => {
  let daemon: Daemon;
  let socketDir: string;

  beforeAll(async () => {
    ({ daemon, socketDir } = await startFixtureDaemon(node, {
      kubeconfig: cp.kubeconfig,
      metricsPort: -1,
      dir: `${node.root}/inline-delegates`,
      config: { clusterNetwork: '' },
    }));
  });

  afterAll(async () => {
    await daemon.stop();
  });

  it('fail the ADD through the upstream shim before any delegate runs, naming the missing clusterNetwork', async () => {
    const pod = await createPod(cp.adminClient, NS, 'inline-user');
    const sandbox = createSandbox();
    try {
      const env = shimEnv(node, 'ADD', 'c-inline', sandbox.path, { namespace: NS, name: 'inline-user', uid: pod.metadata.uid });
      const add = await runShim(env, shimConfig(socketDir, '1.0.0', { delegates: [INLINE_DELEGATE] }));
      expect(add.code).not.toBe(0);
      const error = JSON.parse(add.stdout) as { msg: string; details?: string };
      expect(`${error.msg} ${error.details ?? ''}`).toContain('InvalidComponentSetting: the daemon configuration names no clusterNetwork');
      expect(sandbox.links()).toEqual([]);
    } finally {
      sandbox.remove();
    }
  });
});

describe('kubeconfig in the shim configuration', () => {
  let daemon: Daemon;
  let socketDir: string;

  beforeAll(async () => {
    ({ daemon, socketDir } = await startFixtureDaemon(node, { kubeconfig: cp.kubeconfig, metricsPort: -1, dir: `${node.root}/shim-kubeconfig` }));
  });

  afterAll(async () => {
    await daemon.stop();
  });

  it('is not read: a file that does not exist changes nothing, the Pod gets its cluster network', async () => {
    const pod = await createPod(cp.adminClient, NS, 'kubeconfig-user');
    const sandbox = createSandbox();
    try {
      const env = shimEnv(node, 'ADD', 'c-kubeconfig', sandbox.path, { namespace: NS, name: 'kubeconfig-user', uid: pod.metadata.uid });
      const config = shimConfig(socketDir, '1.0.0', { kubeconfig: '/nonexistent/multus.kubeconfig' });
      const add = await runShim(env, config);
      expect({ code: add.code, stderr: add.stderr }).toEqual({ code: 0, stderr: '' });
      expect(sandbox.links()).toEqual(['eth0 10.244.7.2']);
      const del = await runShim({ ...env, CNI_COMMAND: 'DEL' }, config);
      expect(del.code).toBe(0);
    } finally {
      sandbox.remove();
    }
  });
});
