// Managed attachment interrupted by crashes of the real driver process (main.ts, --multus-auto-attach):
// each row takes one permission from the driver so a step is refused after the state before it is
// durable, kills the process with SIGKILL, gives the permission back and starts a new process on the same
// state directory, whose startup repair pass finishes the work without any kubelet call. Rows: the shadow
// Create refused after Pending; the shadow DELETE refused after Deleting; the Pod patch refused with the
// shadows created; the finalizer removal refused after ReleaseComplete. Real control plane with
// kube-scheduler, fake sysfs, and the kubelet's own Go code on the sockets.
// Needs the peer binary: tools/control-plane/build-binaries.sh kubelet-peer.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ATTACHMENT_PROTECTION_FINALIZER, annotations, labels } from '@sriov-dra/contract';
import { type KubeObject, readPod, resourceTypes } from '@sriov-dra/k8s';
import { type KubeletPeer, type RoleBindingBody, createRoleBinding, terminateChild, waitFor } from '@sriov-dra/k8s/testing';
import { createClaimConsumer } from './claim-consumer.ts';
import { applyDriverRbac } from './driver-identity.ts';
import { type DriverNode, NAMESPACE, NODE, WORKLOADS, createPairClaim, publishTemplate, startDriverNode } from './driver-node-fixture.ts';
import { killDriver, launchDriver } from './driver-process.ts';

const CONFIG = '{"cniVersion":"1.0.0","name":"rail-a","type":"sriov","ipam":{"type":"host-local","subnet":"192.0.2.0/24"}}';

/** The driver's managed-network permissions, reduced for one row at a time; the chart's grant is withdrawn meanwhile. */
const LIMITED_ROLE = 'managed-limited';
const CHART_BINDING = 'release-dra-driver-sriov-managed-networks';

function limitedRules(podVerbs: readonly string[], nadVerbs: readonly string[]): Record<string, unknown>[] {
  return [
    { apiGroups: [''], resources: ['pods'], verbs: ['get', ...podVerbs] },
    { apiGroups: ['k8s.cni.cncf.io'], resources: ['network-attachment-definitions'], verbs: [...nadVerbs] },
  ];
}

interface Recorded {
  readonly devices: readonly { readonly managedBinding?: { readonly phase: string; readonly shadow: { readonly name: string; readonly uid: string } } }[];
}

describe('a managed prepare interrupted by a crash of the driver process', () => {
  let node: DriverNode;
  let process_: ChildProcess | undefined;
  let peer: KubeletPeer | undefined;
  let claim: { namespace: string; name: string; uid: string };
  let second: { namespace: string; name: string; uid: string };

  const admin = () => node.cp.adminClient;
  const argv = () => [...node.baseArgv, '--configuration-mode', 'MULTUS', '--multus-auto-attach=true'];
  const launch = (name: string): Promise<ChildProcess> => launchDriver(argv(), path.join(node.dir, `${name}.log`));
  const shadows = async (): Promise<KubeObject[]> =>
    (await admin().list(resourceTypes.networkAttachmentDefinition, { namespace: WORKLOADS, labelSelector: labels.managedBy })).items;
  const crash = async (): Promise<void> => {
    await peer?.close();
    peer = undefined;
    if (process_ !== undefined) await killDriver(process_);
    process_ = undefined;
  };
  let chartBinding: RoleBindingBody | undefined;
  /** Withdraws the chart's managed-network grant and leaves the driver with `rules` only. */
  const limitTo = async (rules: Record<string, unknown>[]): Promise<void> => {
    await admin().patch(resourceTypes.clusterRole, { name: LIMITED_ROLE }, { rules }, 'application/merge-patch+json');
    const { metadata, roleRef, subjects } = await admin().get<KubeObject & Omit<RoleBindingBody, 'metadata'>>(resourceTypes.clusterRoleBinding, {
      name: CHART_BINDING,
    });
    chartBinding = { metadata: { name: metadata.name }, roleRef, subjects };
    await admin().delete(resourceTypes.clusterRoleBinding, { name: CHART_BINDING });
  };
  const restoreChartGrant = async (): Promise<void> => {
    if (chartBinding !== undefined) await createRoleBinding(admin(), chartBinding);
  };
  const phases = (): string[] =>
    Object.values(node.checkpointClaims<Recorded>()).flatMap((record) => record.devices.map((device) => device.managedBinding?.phase ?? 'none'));

  beforeAll(async () => {
    node = await startDriverNode('driver-crash', ['driver-rbac.yaml']);
    // Managed networks without the right to create or delete a shadow: a prepare gets as far as the
    // Create, a release as far as the DELETE.
    await admin().create(resourceTypes.clusterRole, { metadata: { name: LIMITED_ROLE }, rules: limitedRules(['patch'], ['get', 'list', 'patch']) });
    await createRoleBinding(admin(), {
      metadata: { name: LIMITED_ROLE },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: LIMITED_ROLE },
      subjects: [{ kind: 'ServiceAccount', namespace: NAMESPACE, name: 'dra-driver-sriov' }],
    });
    await publishTemplate(admin(), 'rail-a', CONFIG);
    const created = await createPairClaim(admin(), 'pair');
    claim = { namespace: WORKLOADS, name: 'pair', uid: created.metadata.uid };
  }, 180_000);

  afterAll(async () => {
    await peer?.close();
    if (process_ !== undefined) await terminateChild(process_);
    await node.stop(false);
  }, 120_000);

  it('records the claim Pending when the shadow Create is refused, and the crash loses nothing', async () => {
    process_ = await launch('first');
    // The driver publishes the VFs; only then can kube-scheduler place the consumer on the node.
    await createClaimConsumer(admin(), WORKLOADS, 'consumer', { resourceClaimName: 'pair' });
    await waitFor('Pod scheduled', async () => (await readPod(admin(), WORKLOADS, 'consumer')).spec.nodeName === NODE, { timeoutMs: 60_000 });
    peer = await node.register();
    const answer = await peer.send({ op: 'prepare', claims: [claim] });
    expect(answer).toMatchObject({ ok: true, result: { [claim.uid]: { error: expect.stringContaining('ApiForbidden') } } });
    expect(phases()).toEqual(['Pending', 'Pending']);
    expect(await shadows()).toEqual([]);

    await crash();
    expect(phases()).toEqual(['Pending', 'Pending']);
  }, 120_000);

  it('completes the binding in the next process’s startup repair, with no kubelet call', async () => {
    await applyDriverRbac(node.cp, NAMESPACE, ['managed-networks-rbac.yaml']);
    // The chart's grant is all the driver needs from now on.
    await admin().patch(resourceTypes.clusterRole, { name: LIMITED_ROLE }, { rules: [] }, 'application/merge-patch+json');
    process_ = await launch('second');
    await waitFor('the startup repair to make the claim Ready', () => Promise.resolve(phases().every((phase) => phase === 'Ready')), { timeoutMs: 60_000 });
    const created = await shadows();
    expect(created.map((shadow) => shadow.metadata.finalizers)).toEqual([[ATTACHMENT_PROTECTION_FINALIZER], [ATTACHMENT_PROTECTION_FINALIZER]]);
    const recorded = Object.values(node.checkpointClaims<Recorded>()).flatMap((record) => record.devices.map((device) => device.managedBinding?.shadow.uid));
    expect(recorded.sort()).toEqual(created.map((shadow) => shadow.metadata.uid).sort());
    const networks = JSON.parse((await readPod(admin(), WORKLOADS, 'consumer')).metadata.annotations?.[annotations.networks] ?? '[]') as { name: string }[];
    expect(networks.map((entry) => entry.name).sort()).toEqual(created.map((shadow) => shadow.metadata.name).sort());
  }, 120_000);

  it('finishes, in the next process’s startup repair, a release the kubelet started before a crash', async () => {
    await limitTo(limitedRules(['patch'], ['get', 'list', 'patch']));
    peer = await node.register();
    const answer = await peer.send({ op: 'unprepare', claims: [claim] });
    expect(answer).toMatchObject({ ok: true, result: { [claim.uid]: { error: expect.stringContaining('ApiForbidden') } } });
    expect(phases()).toEqual(['Deleting', 'Deleting']);
    await crash();

    await restoreChartGrant();
    process_ = await launch('third');
    await waitFor('the startup repair to finish the release', async () => Object.keys(node.checkpointClaims()).length === 0 && (await shadows()).length === 0, {
      timeoutMs: 60_000,
    });
    const values = (await readPod(admin(), WORKLOADS, 'consumer')).metadata.annotations ?? {};
    expect([values[annotations.networks], values[annotations.managedNetworks]]).toEqual([undefined, undefined]);
    expect(fs.readdirSync(node.cdiRoot)).toEqual([]);
  }, 120_000);

  it('completes, after a crash, a prepare whose shadows exist but whose Pod could not be patched', async () => {
    const created = await createPairClaim(admin(), 'pair-2');
    second = { namespace: WORKLOADS, name: 'pair-2', uid: created.metadata.uid };
    await createClaimConsumer(admin(), WORKLOADS, 'consumer-2', { resourceClaimName: 'pair-2' });
    await waitFor('Pod scheduled', async () => (await readPod(admin(), WORKLOADS, 'consumer-2')).spec.nodeName === NODE, { timeoutMs: 60_000 });
    await limitTo(limitedRules([], ['get', 'list', 'create', 'patch', 'delete']));
    peer = await node.register();
    expect(await peer.send({ op: 'prepare', claims: [second] })).toMatchObject({
      ok: true,
      result: { [second.uid]: { error: expect.stringContaining('ApiForbidden') } },
    });
    expect(phases()).toEqual(['Pending', 'Pending']);
    const made = await shadows();
    expect(made).toHaveLength(2);
    await crash();

    await restoreChartGrant();
    process_ = await launch('fourth');
    await waitFor('the startup repair to make the claim Ready', () => Promise.resolve(phases().every((phase) => phase === 'Ready')), { timeoutMs: 60_000 });
    // The shadows the crashed process created are the ones in use: adopted, not made again.
    expect((await shadows()).map((shadow) => shadow.metadata.uid).sort()).toEqual(made.map((shadow) => shadow.metadata.uid).sort());
    const networks = JSON.parse((await readPod(admin(), WORKLOADS, 'consumer-2')).metadata.annotations?.[annotations.networks] ?? '[]') as { name: string }[];
    expect(networks.map((entry) => entry.name).sort()).toEqual(made.map((shadow) => shadow.metadata.name).sort());
  }, 120_000);

  it('finishes, after a crash, a release that stopped at the finalizer removal', async () => {
    await limitTo(limitedRules(['patch'], ['get', 'list', 'create', 'delete']));
    peer = await node.register();
    expect(await peer.send({ op: 'unprepare', claims: [second] })).toMatchObject({
      ok: true,
      result: { [second.uid]: { error: expect.stringContaining('ApiForbidden') } },
    });
    expect(phases()).toEqual(['ReleaseComplete', 'ReleaseComplete']);
    expect((await shadows()).map((shadow) => [shadow.metadata.deletionTimestamp !== undefined, shadow.metadata.finalizers])).toEqual([
      [true, [ATTACHMENT_PROTECTION_FINALIZER]],
      [true, [ATTACHMENT_PROTECTION_FINALIZER]],
    ]);
    await crash();

    await restoreChartGrant();
    process_ = await launch('fifth');
    await waitFor('the startup repair to finish the release', async () => Object.keys(node.checkpointClaims()).length === 0 && (await shadows()).length === 0, {
      timeoutMs: 60_000,
    });
  }, 120_000);
});
