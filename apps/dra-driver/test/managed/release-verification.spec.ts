// The release's first step (§8.4 step 1) on a real API server with the garbage collector: every owned
// shadow is read and verified against its checkpoint record — recorded UID, Pod owner, binding annotation,
// config bytes — before any is deleted or unprotected. A shadow edited by hand, owned by another Pod, or
// found under a lost Create's name with other content stops the release with ShadowConflict: nothing is
// deleted, no finalizer removed, the record kept, and `sriov-dra orphans` and the repair pass name the
// difference. Putting back what differs lets the same release finish. An owner reference removed (as an
// orphaning deletion of the Pod does) is no difference.
import { describe, expect, it, jest } from '@jest/globals';
import { ATTACHMENT_PROTECTION_FINALIZER, type SriovDraError, isSriovDraError } from '@sriov-dra/contract';
import { type ApiRequest, type KubeClient, type KubeObject, contentTypes, resourceTypes } from '@sriov-dra/k8s';
import type { ClaimRecord } from '../../src/checkpoint/checkpoint-record.ts';
import { sriovDra } from '../admin/run-sriov-dra.ts';
import {
  ActingClient,
  DEVICES,
  INJECTED_WRITE_FAILURE,
  type ManagedNode,
  NS,
  type NodeState,
  type Workload,
  createWorkload,
  useManagedNode,
} from './managed-node.ts';

const signal = new AbortController().signal;

let host: ManagedNode;
let admin: KubeClient;

useManagedNode((started) => {
  host = started;
  admin = started.admin;
});

jest.setTimeout(60_000);

/** What someone might write into a shadow by hand: valid, but not the configuration the record froze. */
const EDITED_CONFIG = '{"cniVersion":"1.0.0","name":"rail-a","type":"sriov","deviceID":"0000:3b:00.7"}';

interface Row {
  readonly name: string;
  readonly workload: Workload;
  readonly ref: ReturnType<Workload['ref']>;
}

let nextPod = 0;
/** A Pod of its own with one claim of two VFs. */
async function row(): Promise<Row> {
  nextPod += 1;
  const name = `verify-${String(nextPod)}`;
  const workload = await createWorkload(admin, name, { [`${name}-nics`]: [DEVICES[0] ?? '', DEVICES[1] ?? ''] });
  return { name, workload, ref: workload.ref(`${name}-nics`) };
}

async function failure(promise: Promise<unknown>): Promise<SriovDraError> {
  try {
    await promise;
  } catch (error) {
    if (isSriovDraError(error)) return error;
    throw error;
  }
  throw new Error('expected the release to be refused, and it finished');
}

/** The claim's second binding: the shadow a test edits, so that the first, exact one shows nothing is touched before all are verified. */
async function secondBinding(claimUID: string): Promise<{ attachmentID: string; shadow: { name: string; uid: string } }> {
  const record = (await host.records()).find((found: ClaimRecord) => found.claimUID === claimUID);
  const binding = record?.devices[1]?.managedBinding;
  if (binding === undefined) throw new Error(`claim ${claimUID} has no second managed binding`);
  return { attachmentID: binding.attachmentID, shadow: binding.shadow };
}

const readShadow = (name: string): Promise<KubeObject & { spec: { config: string } }> =>
  admin.get(resourceTypes.networkAttachmentDefinition, { namespace: NS, name });

const editConfig = (name: string, config: string): Promise<KubeObject> =>
  admin.patch(resourceTypes.networkAttachmentDefinition, { namespace: NS, name }, { spec: { config } }, contentTypes.mergePatch);

/** The node after a refused release: exactly as before it, but for the claim's bindings now Deleting. */
function refusedAt(before: NodeState): NodeState {
  return { ...before, bindings: before.bindings.map((binding) => ({ ...binding, phase: 'Deleting' })) };
}

/** What a node holds when nothing of the workload is left: its VFs back on the drivers they started with. */
const released = (): Omit<NodeState, 'selections'> => ({ bindings: [], shadows: [], cdi: [], drivers: host.initialDrivers });

async function releasedState(name: string): Promise<Omit<NodeState, 'selections'>> {
  const { bindings, shadows, cdi, drivers } = await host.state(name);
  return { bindings, shadows, cdi, drivers };
}

describe('release verifies every owned shadow before touching any', () => {
  it('refuses a recorded shadow whose config was edited by hand: nothing deleted, finalizers and record kept, the orphan report names it', async () => {
    const { name, workload, ref } = await row();
    await (await host.open()).prepare(ref, signal);
    const { attachmentID, shadow } = await secondBinding(ref.uid);
    const frozen = (await readShadow(shadow.name)).spec.config;
    await editConfig(shadow.name, EDITED_CONFIG);
    const before = await host.state(name);

    const refused = await failure((await host.open()).unprepare(ref, signal));
    expect(refused).toMatchObject({
      code: 'ShadowConflict',
      object: { kind: 'NetworkAttachmentDefinition', namespace: NS, name: shadow.name, uid: shadow.uid },
      detail: expect.stringContaining('spec.config differs'),
      remedy: expect.stringContaining(`the release of claim ${NS}/${ref.name} waits, its checkpoint record kept`),
    });
    expect(await host.state(name)).toEqual(refusedAt(before));

    const kubeconfig = host.cp.kubeconfigFor('admin', { groups: ['system:masters'] });
    const report = await sriovDra(...['orphans', '--node-name', host.node.name, '--plugins-dir', host.pluginsDir, '--kubeconfig', kubeconfig, '-o', 'json']);
    expect({ ...report, stdout: JSON.parse(report.stdout) as unknown }).toEqual({
      code: 0,
      stdout: {
        node: host.node.name,
        orphans: [
          {
            namespace: NS,
            name: shadow.name,
            uid: shadow.uid,
            protectedByFinalizer: true,
            terminating: false,
            reason: 'content-mismatch',
            podUID: workload.pod.metadata.uid,
            claimUID: ref.uid,
            attachmentID,
            difference: `its spec.config differs from the rendered configuration; the object under the shadow's name is not this binding's shadow and is left as it is (attachment ${attachmentID})`,
          },
        ],
      },
      stderr: '',
    });

    // The remedy: the frozen configuration put back, the same release finishes.
    await editConfig(shadow.name, frozen);
    await (await host.open()).unprepare(ref, signal);
    expect(await releasedState(name)).toEqual(released());
  });

  it('refuses a recorded shadow whose owner reference names another Pod, and the repair pass refuses it the same way', async () => {
    const { name, ref } = await row();
    await (await host.open()).prepare(ref, signal);
    const { shadow } = await secondBinding(ref.uid);
    const other = await admin.create(
      resourceTypes.pod,
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: `${name}-other`, namespace: NS }, spec: { containers: [{ name: 'c', image: 'registry.invalid/c' }] } },
      { namespace: NS },
    );
    await admin.patch(
      resourceTypes.networkAttachmentDefinition,
      { namespace: NS, name: shadow.name },
      [
        {
          op: 'replace',
          path: '/metadata/ownerReferences',
          value: [{ apiVersion: 'v1', kind: 'Pod', name: other.metadata.name, uid: other.metadata.uid, blockOwnerDeletion: false }],
        },
      ],
      contentTypes.jsonPatch,
    );
    const before = await host.state(name);

    const refused = await failure((await host.open()).unprepare(ref, signal));
    expect(refused).toMatchObject({
      code: 'ShadowConflict',
      object: { name: shadow.name, uid: shadow.uid },
      detail: expect.stringContaining(`owner reference to Pod UID ${other.metadata.uid}`),
    });
    expect(await host.state(name)).toEqual(refusedAt(before));

    // The repair worker resumes Deleting claims through the same release: refused alike, and reported.
    const pass = await (await host.repairWorker()).pass();
    expect(Object.fromEntries(pass.failed)).toEqual({ ShadowConflict: 1 });
    expect(pass.orphans).toEqual([
      expect.objectContaining({
        name: shadow.name,
        uid: shadow.uid,
        reason: 'content-mismatch',
        protectedByFinalizer: true,
        difference: expect.stringContaining(`owner reference to Pod UID ${other.metadata.uid}`),
      }),
    ]);
    expect(await host.state(name)).toEqual(refusedAt(before));

    // The remedy: the foreign reference removed (an absent one is allowed to a release), the release finishes.
    await admin.patch(
      resourceTypes.networkAttachmentDefinition,
      { namespace: NS, name: shadow.name },
      [{ op: 'remove', path: '/metadata/ownerReferences' }],
      contentTypes.jsonPatch,
    );
    await (await host.open()).unprepare(ref, signal);
    expect(await releasedState(name)).toEqual(released());
    await admin.delete(resourceTypes.pod, { namespace: NS, name: other.metadata.name }, { gracePeriodSeconds: 0 });
  });

  it('refuses, and does not forget, a lost Create’s shadow found under its name with other content', async () => {
    const { name, ref } = await row();
    // The shadows are created, but the write that would record their UIDs fails: the record keeps ''.
    const failUIDs = (next: Readonly<Record<string, ClaimRecord>>): boolean =>
      next[ref.uid]?.devices.some((device) => device.managedBinding?.shadow.uid !== '') === true;
    await expect((await host.open({ failWrite: failUIDs })).prepare(ref, signal)).rejects.toMatchObject({ message: INJECTED_WRITE_FAILURE });
    const { attachmentID, shadow } = await secondBinding(ref.uid);
    expect(shadow.uid).toBe('');
    const created = await readShadow(shadow.name);
    await editConfig(shadow.name, EDITED_CONFIG);
    const before = await host.state(name);
    expect(before.shadows.map((found) => [found.finalizers, found.deleting])).toEqual([
      [[ATTACHMENT_PROTECTION_FINALIZER], false],
      [[ATTACHMENT_PROTECTION_FINALIZER], false],
    ]);

    const refused = await failure((await host.open()).unprepare(ref, signal));
    expect(refused).toMatchObject({
      code: 'ShadowConflict',
      object: { name: shadow.name, uid: created.metadata.uid },
      detail: expect.stringContaining(`spec.config differs from the rendered configuration; the object under the shadow's name is not this binding's shadow`),
    });
    // Neither shadow deleted — not even the exact one — and the record, with its empty UIDs, kept.
    expect(await host.state(name)).toEqual(refusedAt(before));
    expect((await (await host.repairWorker()).pass()).orphans).toEqual([
      expect.objectContaining({ name: shadow.name, uid: created.metadata.uid, reason: 'content-mismatch', attachmentID, protectedByFinalizer: true }),
    ]);

    await editConfig(shadow.name, created.spec.config);
    await (await host.open()).unprepare(ref, signal);
    expect(await releasedState(name)).toEqual(released());
  });

  it('releases recorded shadows whose Pod owner reference is gone, as after an orphaning deletion of the Pod', async () => {
    const { name, ref } = await row();
    await (await host.open()).prepare(ref, signal);
    for (const shadow of (await host.state(name)).shadows) {
      await admin.patch(
        resourceTypes.networkAttachmentDefinition,
        { namespace: NS, name: shadow.name },
        [{ op: 'remove', path: '/metadata/ownerReferences' }],
        contentTypes.jsonPatch,
      );
    }
    await (await host.open()).unprepare(ref, signal);
    expect(await releasedState(name)).toEqual(released());
  });

  it('verifies again what its finalizer removal is built on: a shadow edited after its deletion keeps its finalizer and the record', async () => {
    const { name, ref } = await row();
    await (await host.open()).prepare(ref, signal);
    const { shadow } = await secondBinding(ref.uid);
    const frozen = (await readShadow(shadow.name)).spec.config;
    const finalizerRemoval = (request: ApiRequest): boolean =>
      request.method === 'PATCH' && request.path.endsWith(`/network-attachment-definitions/${shadow.name}`);
    // Another writer edits the Terminating shadow right before the driver's finalizer removal reaches it.
    const raced = new ActingClient(host, finalizerRemoval, () => editConfig(shadow.name, EDITED_CONFIG));
    try {
      const refused = await failure((await host.open({ client: raced })).unprepare(ref, signal));
      expect(raced.acted).toBe(true);
      expect(refused).toMatchObject({
        code: 'ShadowConflict',
        object: { name: shadow.name, uid: shadow.uid },
        detail: expect.stringContaining('spec.config differs'),
      });
    } finally {
      raced.close();
    }
    const state = await host.state(name);
    // The host was released (ReleaseComplete), the other shadow's obligation finished; this one stays protected.
    expect([state.bindings.map((binding) => binding.phase), state.shadows, state.drivers]).toEqual([
      ['ReleaseComplete', 'ReleaseComplete'],
      [{ name: shadow.name, uid: shadow.uid, finalizers: [ATTACHMENT_PROTECTION_FINALIZER], deleting: true }],
      host.initialDrivers,
    ]);

    await editConfig(shadow.name, frozen);
    await (await host.open()).unprepare(ref, signal);
    expect(await releasedState(name)).toEqual(released());
  });
});
