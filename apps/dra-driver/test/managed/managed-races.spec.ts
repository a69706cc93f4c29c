// Races between managed prepares and releases on a real API server, run the way the kubelet plugin
// runtime runs them: each call under its claim's lock (KeyedLocks, as dra-service takes it), the
// preparer taking the Pod's lock inside. Each scenario is repeated, since a race shows only sometimes;
// every repetition must end in the one consistent state.
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it, jest } from '@jest/globals';
import { isSriovDraError } from '@sriov-dra/contract';
import { type ApiRequest, type KubeClient, resourceTypes } from '@sriov-dra/k8s';
import type { ClaimRef } from '../../src/kubelet/claim-preparer.ts';
import { KeyedLocks } from '../../src/kubelet/keyed-locks.ts';
import type { ManagedPreparer } from '../../src/managed/managed-preparer.ts';
import { ActingClient, DEVICES, type ManagedNode, NS, createWorkload, podSelections, useManagedNode } from './managed-node.ts';

const signal = new AbortController().signal;
const ROUNDS = 6;

let host: ManagedNode;
let admin: KubeClient;

useManagedNode((started) => {
  host = started;
  admin = started.admin;
});

jest.setTimeout(120_000);

/** The kubelet plugin runtime's view: one call per claim at a time. */
function runtime(preparer: ManagedPreparer) {
  const locks = new KeyedLocks();
  return {
    prepare: (ref: ClaimRef) => locks.run(ref.uid, () => preparer.prepare(ref, signal)),
    unprepare: (ref: ClaimRef) => locks.run(ref.uid, () => preparer.unprepare(ref, signal)),
  };
}

async function registryClaims(pod: string): Promise<string[]> {
  return ((await podSelections(admin, pod)).registry?.entries ?? []).map((entry) => String(entry['claimUID'])).sort();
}

describe('managed races', () => {
  it('a release of one claim and the prepare of another claim of the same Pod leave exactly the prepared claim attached', async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const pod = `pair-${round}`;
      const workload = await createWorkload(admin, pod, { [`${pod}-a`]: [DEVICES[0] ?? ''], [`${pod}-b`]: [DEVICES[1] ?? ''] });
      const [a, b] = [workload.ref(`${pod}-a`), workload.ref(`${pod}-b`)];
      const calls = runtime(await host.open());
      await calls.prepare(a);
      await Promise.all([calls.unprepare(a), calls.prepare(b)]);

      expect(await registryClaims(pod)).toEqual([b.uid]);
      const state = await host.state(pod);
      expect(state.bindings.map((binding) => [binding.claim, binding.phase])).toEqual([[`${pod}-b`, 'Ready']]);
      expect(state.shadows.map((shadow) => shadow.uid)).toEqual(state.bindings.map((binding) => binding.shadowUID));
      await calls.unprepare(b);
      expect(await host.records()).toEqual([]);
      await admin.delete(resourceTypes.pod, { namespace: NS, name: pod }, { gracePeriodSeconds: 0 });
    }
  });

  it('a release started while another claim of the Pod is about to write the Pod waits for it: the released entries never come back', async () => {
    const pod = 'slow-writer';
    const workload = await createWorkload(admin, pod, { [`${pod}-a`]: [DEVICES[0] ?? ''], [`${pod}-b`]: [DEVICES[1] ?? ''] });
    const [a, b] = [workload.ref(`${pod}-a`), workload.ref(`${pod}-b`)];
    await (await host.open()).prepare(a, signal);
    // b's selections are computed, its Pod patch about to go out; the patch is slow to leave. a's release
    // begins meanwhile. Were it to run now, b's patch would meet a Pod a's release had just written,
    // re-read it and merge b's earlier view back in — a's entries with it.
    const aboutToPatch = Promise.withResolvers<undefined>();
    const podPatch = (request: ApiRequest): boolean => request.method === 'PATCH' && request.path.endsWith(`/pods/${pod}`);
    const client = new ActingClient(host, podPatch, async () => {
      aboutToPatch.resolve(undefined);
      await delay(1_000);
    });
    const calls = runtime(await host.open({ client }));
    const prepared = calls.prepare(b);
    await aboutToPatch.promise;
    await Promise.all([calls.unprepare(a), prepared]);
    client.close();

    expect(await registryClaims(pod)).toEqual([b.uid]);
    const state = await host.state(pod);
    expect(state.bindings.map((binding) => [binding.claim, binding.phase])).toEqual([[`${pod}-b`, 'Ready']]);
    const networks = (await podSelections(admin, pod)).networks as { name: string }[];
    expect(networks.map((entry) => entry.name)).toEqual(state.shadows.map((shadow) => shadow.name));
    await calls.unprepare(b);
    expect(await host.records()).toEqual([]);
  });

  it('all claims of a Pod prepared at once get distinct interfaces, every one of them on the Pod', async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const pod = `trio-${round}`;
      const names = ['x', 'y', 'z'].map((suffix) => `${pod}-${suffix}`);
      const workload = await createWorkload(admin, pod, Object.fromEntries(names.map((name, index) => [name, [DEVICES[index + 2] ?? '']])));
      const calls = runtime(await host.open());
      await Promise.all(names.map((name) => calls.prepare(workload.ref(name))));

      expect(await registryClaims(pod)).toEqual(names.map((name) => workload.ref(name).uid).sort());
      const networks = (await podSelections(admin, pod)).networks as { interface: string }[];
      expect(networks.map((entry) => entry.interface).sort()).toEqual(['dra0', 'dra1', 'dra2']);
      await Promise.all(names.map((name) => calls.unprepare(workload.ref(name))));
      expect([await host.records(), (await host.state(pod)).shadows]).toEqual([[], []]);
      await admin.delete(resourceTypes.pod, { namespace: NS, name: pod }, { gracePeriodSeconds: 0 });
    }
  });

  it('a claim reused by a new Pod during the old Pod’s release is refused or waits, and never mixes the two', async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const claim = `reused-${round}`;
      const first = await createWorkload(admin, `old-${round}`, { [claim]: [DEVICES[5] ?? ''] });
      const calls = runtime(await host.open());
      await calls.prepare(first.ref(claim));
      await admin.delete(resourceTypes.pod, { namespace: NS, name: `old-${round}` }, { gracePeriodSeconds: 0 });
      const second = await createWorkload(admin, `new-${round}`, { [claim]: [DEVICES[5] ?? ''] });

      const [released, prepared] = await Promise.allSettled([calls.unprepare(first.ref(claim)), calls.prepare(second.ref(claim))]);
      expect(released.status).toBe('fulfilled');
      if (prepared.status === 'rejected') {
        expect(isSriovDraError(prepared.reason) && prepared.reason.code).toBe('ClaimReleaseInProgress');
        await calls.prepare(second.ref(claim));
      }
      const state = await host.state(`new-${round}`);
      expect(state.bindings.map((binding) => [binding.pod, binding.phase])).toEqual([[second.pod.metadata.uid, 'Ready']]);
      expect(state.shadows.map((shadow) => shadow.uid)).toEqual(state.bindings.map((binding) => binding.shadowUID));
      await calls.unprepare(second.ref(claim));
      await admin.delete(resourceTypes.pod, { namespace: NS, name: `new-${round}` }, { gracePeriodSeconds: 0 });
      await admin.delete(resourceTypes.resourceClaim, { namespace: NS, name: claim });
    }
  });
});
