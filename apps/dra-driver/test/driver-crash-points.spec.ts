// Crash consistency of managed attachment on the real driver process: in each round the process is
// killed (SIGKILL) a few milliseconds further into a kubelet prepare, a new process is started on the same
// state directory and the kubelet repeats the call; then the same for unprepare. Wherever the kill lands —
// before the checkpoint, between a shadow Create and its UID's persistence, before the Pod patch, before
// Ready, or anywhere in the release — the repeated call must succeed and leave exactly the expected state:
// after prepare, two protected shadows recorded Ready and on the Pod; after unprepare, nothing at all.
// Needs the peer binary: tools/control-plane/build-binaries.sh kubelet-peer.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ATTACHMENT_PROTECTION_FINALIZER, annotations, labels } from '@sriov-dra/contract';
import { type KubeObject, readPod, resourceTypes } from '@sriov-dra/k8s';
import { type KubeletPeer, terminateChild, waitFor } from '@sriov-dra/k8s/testing';
import { createClaimConsumer } from './claim-consumer.ts';
import { type DriverNode, NODE, WORKLOADS, createPairClaim, publishTemplate, startDriverNode } from './driver-node-fixture.ts';
import { killDriver, launchDriver } from './driver-process.ts';

const CONFIG = '{"cniVersion":"1.0.0","name":"rail-a","type":"sriov","ipam":{"type":"host-local","subnet":"192.0.2.0/24"}}';
/** Kill delays after the kubelet's call was sent; a managed prepare or release takes some tens of milliseconds here. */
const KILL_AFTER_MS = [0, 5, 10, 15, 20, 30, 45, 70];

interface Recorded {
  readonly devices: readonly { readonly managedBinding?: { readonly phase: string; readonly shadow: { readonly uid: string } } }[];
}

describe('managed prepare and unprepare killed at any moment', () => {
  let node: DriverNode;
  let driver: ChildProcess | undefined;
  let peer: KubeletPeer | undefined;
  let claim: { namespace: string; name: string; uid: string };
  let starts = 0;

  const admin = () => node.cp.adminClient;
  /** A new driver process on the same directories, registered with a new kubelet peer. */
  const launch = async (): Promise<void> => {
    starts += 1;
    const argv = [...node.baseArgv, '--configuration-mode', 'MULTUS', '--multus-auto-attach=true'];
    driver = await launchDriver(argv, path.join(node.dir, `driver-${starts}.log`));
    peer = await node.register();
  };
  /** SIGKILL first: closing the kubelet peer first would wait for the call in flight. */
  const kill = async (): Promise<void> => {
    if (driver !== undefined) await killDriver(driver);
    driver = undefined;
    await peer?.close();
    peer = undefined;
  };
  const shadows = async (): Promise<KubeObject[]> =>
    (await admin().list(resourceTypes.networkAttachmentDefinition, { namespace: WORKLOADS, labelSelector: labels.managedBy })).items;
  const records = () => Object.values(node.checkpointClaims<Recorded>());

  /** Sends the call, kills the process `afterMs` later whatever the call's state, then starts a new one. */
  const interrupt = async (op: 'prepare' | 'unprepare', afterMs: number): Promise<void> => {
    const sent = peer?.send({ op, claims: [claim] }).catch(() => undefined);
    await delay(afterMs);
    await kill();
    await sent;
    await launch();
  };

  beforeAll(async () => {
    node = await startDriverNode('driver-crash-points', ['driver-rbac.yaml', 'managed-networks-rbac.yaml']);
    await publishTemplate(admin(), 'rail-a', CONFIG);
    claim = { namespace: WORKLOADS, name: 'pair', uid: (await createPairClaim(admin(), 'pair')).metadata.uid };
    await launch();
    // The driver publishes the VFs; only then can kube-scheduler place the consumer on the node.
    await createClaimConsumer(admin(), WORKLOADS, 'consumer', { resourceClaimName: 'pair' });
    await waitFor('Pod scheduled', async () => (await readPod(admin(), WORKLOADS, 'consumer')).spec.nodeName === NODE, { timeoutMs: 60_000 });
  }, 180_000);

  afterAll(async () => {
    await peer?.close();
    if (driver !== undefined) await terminateChild(driver);
    await node.stop(false);
  }, 120_000);

  it.each(KILL_AFTER_MS)(
    'converges when killed %i ms into a prepare and again into the unprepare',
    async (afterMs) => {
      await interrupt('prepare', afterMs);
      expect(await peer?.send({ op: 'prepare', claims: [claim] })).toMatchObject({ ok: true, result: { [claim.uid]: { error: '' } } });
      const prepared = await shadows();
      expect(prepared.map((shadow) => shadow.metadata.finalizers)).toEqual([[ATTACHMENT_PROTECTION_FINALIZER], [ATTACHMENT_PROTECTION_FINALIZER]]);
      const bindings = records().flatMap((record) => record.devices.map((device) => device.managedBinding));
      expect(bindings.map((binding) => binding?.phase)).toEqual(['Ready', 'Ready']);
      expect(bindings.map((binding) => binding?.shadow.uid).sort()).toEqual(prepared.map((shadow) => shadow.metadata.uid).sort());
      const networks = JSON.parse((await readPod(admin(), WORKLOADS, 'consumer')).metadata.annotations?.[annotations.networks] ?? '[]') as { name: string }[];
      expect(networks.map((entry) => entry.name).sort()).toEqual(prepared.map((shadow) => shadow.metadata.name).sort());

      await interrupt('unprepare', afterMs);
      expect(await peer?.send({ op: 'unprepare', claims: [claim] })).toMatchObject({ ok: true, result: { [claim.uid]: { error: '' } } });
      expect(await shadows()).toEqual([]);
      expect(records()).toEqual([]);
      expect(fs.readdirSync(node.cdiRoot)).toEqual([]);
      const left = (await readPod(admin(), WORKLOADS, 'consumer')).metadata.annotations ?? {};
      expect([left[annotations.networks], left[annotations.managedNetworks]]).toEqual([undefined, undefined]);
    },
    120_000,
  );
});
