// auxiliaryCNIChainName is refused, never accepted and ignored: in daemon-config.json the daemon does not start,
// and in the multus-shim configuration an ADD through the unchanged upstream shim fails before anything runs,
// each naming the file and the key. Upstream would append a passthru conflist completed from a CNI
// configuration subdirectory, which this daemon does not load.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { type ControlPlane, createNamespace, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import { type Daemon, startDaemon } from '../../src/daemon.ts';
import { DaemonConfigError } from '../../src/daemon-config.ts';
import { shimConfig, shimEnv, startFixtureDaemon, writeFixtureDaemonConfig } from '../daemon/daemon-fixture.ts';
import { NODE, type NodeFixture, createNodeFixture, createPod, createSandbox, removeNodeFixture } from '../pipeline/node-fixture.ts';
import { runShim } from '../server/multus-shim.ts';

const NS = 'parity-aux';
const REMEDY =
  'remove the key (see “Parity with Multus v4.2.3” in apps/multus-live-read-proxy/README.md), or run upstream’s multus-daemon on this node instead';

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

describe('auxiliaryCNIChainName', () => {
  it('in daemon-config.json stops the daemon’s start, naming the file and the key', async () => {
    const { config } = await writeFixtureDaemonConfig(node, {
      dir: `${node.root}/aux-daemon`,
      config: { clusterNetwork: '/etc/cni/net.d/10-primary.conflist', auxiliaryCNIChainName: 'aux' },
    });
    const failure = await startDaemon(
      { config, nodeName: NODE, kubeconfig: cp.kubeconfig, metricsPort: -1, kubeApiQps: 100, kubeApiBurst: 200 },
      { logger: pino({ level: 'silent' }) },
    ).then(
      async (daemon) => {
        await daemon.stop();
        return 'started';
      },
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(DaemonConfigError);
    expect((failure as Error).message).toBe(
      `UnsupportedDaemonConfigKey: ${config} key "auxiliaryCNIChainName": auxiliary CNI chain "aux" is not supported: its plugins would be loaded from a CNI configuration subdirectory, which this daemon does not read \u2014 ${REMEDY}`,
    );
  });

  describe('in the multus-shim configuration', () => {
    let daemon: Daemon;
    let socketDir: string;

    beforeAll(async () => {
      ({ daemon, socketDir } = await startFixtureDaemon(node, { kubeconfig: cp.kubeconfig, metricsPort: -1 }));
    });

    afterAll(async () => {
      await daemon.stop();
    });

    it('fails the ADD through the upstream shim before any delegate runs', async () => {
      const pod = await createPod(cp.adminClient, NS, 'aux-user');
      const sandbox = createSandbox();
      try {
        const env = shimEnv(node, 'ADD', 'c-aux', sandbox.path, { namespace: NS, name: 'aux-user', uid: pod.metadata.uid });
        const add = await runShim(env, shimConfig(socketDir, '1.0.0', { auxiliaryCNIChainName: 'aux' }));
        expect(add.code).not.toBe(0);
        const error = JSON.parse(add.stdout) as { msg: string; details?: string };
        expect(`${error.msg} ${error.details ?? ''}`).toContain(
          'UnsupportedDaemonConfigKey: the multus-shim configuration key "auxiliaryCNIChainName": auxiliary CNI chain "aux" is not supported',
        );
        expect(sandbox.links()).toEqual([]);
        // The same request without the key is served: the refusal is the key's, nothing else's.
        const plain = await runShim(env, shimConfig(socketDir));
        expect({ code: plain.code, stderr: plain.stderr }).toEqual({ code: 0, stderr: '' });
        await runShim({ ...env, CNI_COMMAND: 'DEL' }, shimConfig(socketDir));
      } finally {
        sandbox.remove();
      }
    });
  });
});
