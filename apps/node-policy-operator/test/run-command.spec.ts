// `node-policy-operator run` as a process of its own, as the Deployment starts it: it logs where its health
// endpoint listens, becomes ready, reconciles, and on SIGTERM releases the Lease and exits 0.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const OPERATOR_NS = 'sriov-network-operator';

let cp: ControlPlane;
let client: KubeClient;

beforeAll(async () => {
  cp = await startControlPlane();
  client = cp.adminClient;
  await installCrds(client);
  await createNamespace(client, OPERATOR_NS);
}, 120_000);

afterAll(async () => {
  await cp.stop();
});

describe('node-policy-operator run', () => {
  it('serves /readyz, provisions a SriovNetwork’s NAD, and releases its Lease on SIGTERM', async () => {
    const kubeconfig = cp.kubeconfigFor('operator', { groups: ['system:masters'] });
    const child: ChildProcess = spawn(
      process.execPath,
      [
        '--conditions=@sriov-dra/source',
        MAIN,
        'run',
        '--operator-namespace',
        OPERATOR_NS,
        '--kubeconfig',
        kubeconfig,
        '--health-port',
        '0',
        '--identity',
        'replica-1',
      ],
      { env: { PATH: process.env['PATH'] ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    try {
      let healthPort = 0;
      await waitFor(
        'the startup log line',
        () => {
          const line = stdout.split('\n').find((candidate) => candidate.includes('"operator started"'));
          if (line !== undefined) healthPort = (JSON.parse(line) as { healthPort: number }).healthPort;
          return Promise.resolve(line !== undefined);
        },
        { timeoutMs: 30_000, alive: () => child.exitCode === null },
      );
      await waitFor('ready', async () => (await fetch(`http://127.0.0.1:${String(healthPort)}/readyz`)).status === 200, { timeoutMs: 30_000 });
      await client.create(
        resourceTypes.sriovNetwork,
        {
          apiVersion: 'sriovnetwork.openshift.io/v1',
          kind: 'SriovNetwork',
          metadata: { name: 'rail-a', namespace: OPERATOR_NS },
          spec: { resourceName: 'rail' },
        },
        { namespace: OPERATOR_NS },
      );
      await waitFor(
        'the NAD',
        () =>
          client.get(resourceTypes.networkAttachmentDefinition, { namespace: OPERATOR_NS, name: 'rail-a' }).then(
            () => true,
            () => false,
          ),
        { timeoutMs: 30_000 },
      );
      const lease = await client.get<KubeObject & { spec: { holderIdentity?: string } }>(resourceTypes.lease, {
        namespace: OPERATOR_NS,
        name: 'sriov-dra-node-policy-operator',
      });
      expect(lease.spec.holderIdentity).toBe('replica-1');

      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(0);
      const released = await client.get<KubeObject & { spec: { holderIdentity?: string } }>(resourceTypes.lease, {
        namespace: OPERATOR_NS,
        name: 'sriov-dra-node-policy-operator',
      });
      expect(released.spec.holderIdentity ?? '').toBe('');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 90_000);
});
