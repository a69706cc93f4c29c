import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isSriovDraError } from '@sriov-dra/contract';
import type { ClaimRecord } from './checkpoint-record.ts';
import { CheckpointStore } from './checkpoint-store.ts';

const POD = { uid: '11111111-2222-3333-4444-555555555555', namespace: 'ai-workloads', name: 'gpu-sriov-pairs-demo' };
const OTHER_POD = { uid: '99999999-2222-3333-4444-555555555555', namespace: 'ai-workloads', name: 'other' };
const CLAIM_A = '0b1c2d3e-1111-4222-8333-444455556666';
const CLAIM_B = '0b1c2d3e-1111-4222-8333-777788889999';
const CLAIM_C = '0b1c2d3e-1111-4222-8333-aaaabbbbcccc';

const RENDERED = '{"cniVersion":"1.0.0","name":"rail-a","type":"sriov","deviceID":"0000:3b:02.0","ipam":{"type":"host-local","subnet":"10.56.217.0/24"}}';
const RENDERED_SHA256 = '16f6726e6a1b2c0898d8743172a723af220343bcadc00e4bedb6152927e0fdba';

function claimA(): ClaimRecord {
  return {
    claimUID: CLAIM_A,
    claimNamespace: 'ai-workloads',
    claimName: 'pairs-x',
    pod: { ...POD },
    devices: [
      {
        pool: 'node-a',
        device: '0000-3b-02-0',
        requestNames: ['nic'],
        pciAddress: '0000:3b:02.0',
        originalDriver: 'iavf',
        preparedDriver: 'iavf',
        cdiDeviceIDs: [`sriovnetwork.k8snetworkplumbingwg.io/vf=${CLAIM_A}-0000-3b-02-0`],
      },
    ],
  };
}

function managedClaimB(phase: 'Pending' | 'Ready' | 'Deleting' | 'ReleaseComplete' = 'Pending'): ClaimRecord {
  return {
    claimUID: CLAIM_B,
    claimNamespace: 'ai-workloads',
    claimName: 'pairs-y',
    pod: { ...POD },
    devices: [
      {
        pool: 'node-a',
        device: '0000-3b-02-1',
        requestNames: ['nic-1', 'nic/rail'],
        pciAddress: '0000:3b:02.1',
        originalDriver: 'iavf',
        preparedDriver: 'vfio-pci',
        cdiDeviceIDs: [`sriovnetwork.k8snetworkplumbingwg.io/vf=${CLAIM_B}-0000-3b-02-1`],
        managedBinding: {
          bindingVersion: 1,
          phase,
          attachmentID: 'a'.repeat(64),
          podUID: POD.uid,
          podNamespace: POD.namespace,
          podName: POD.name,
          claimUID: CLAIM_B,
          claimNamespace: 'ai-workloads',
          claimName: 'pairs-y',
          nodeName: 'node-a',
          nodeUID: '22222222-3333-4444-5555-666666666666',
          driver: 'sriovnetwork.k8snetworkplumbingwg.io',
          pool: 'node-a',
          device: '0000-3b-02-1',
          requestNames: ['nic-1', 'nic/rail'],
          pciAddress: '0000:3b:02.1',
          interface: 'net1',
          source: { namespace: 'infra', name: 'rail-a', uid: '33333333-4444-5555-6666-777777777777', resourceVersion: '4711' },
          shadow: { namespace: 'ai-workloads', name: 'dra-sriov-0123456789abcdef0123456789abcdef', uid: '' },
          renderedConfig: RENDERED,
          configSHA256: RENDERED_SHA256,
        },
      },
    ],
  };
}

function claimOfOtherPod(): ClaimRecord {
  return { ...claimA(), claimUID: CLAIM_C, claimName: 'solo', pod: { ...OTHER_POD }, devices: [] };
}

function managedBindingOf(device: ClaimRecord['devices'][number], phase: 'Pending' | 'Ready'): NonNullable<ClaimRecord['devices'][number]['managedBinding']> {
  if (device.managedBinding === undefined) throw new Error('fixture device has no managed binding');
  return { ...device.managedBinding, phase };
}

/** managedClaimB as plain data with its one managed binding edited, to write past the store's own checks. */
function editedBinding(edit: (binding: Record<string, unknown>) => unknown): unknown {
  const record = JSON.parse(JSON.stringify(managedClaimB())) as { devices: { managedBinding: Record<string, unknown> }[] };
  record.devices.forEach((device) => edit(device.managedBinding));
  return record;
}

let directory: string;
let file: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'checkpoint-'));
  file = join(directory, 'checkpoint.json');
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

function failingWrite(): Promise<void> {
  return Promise.reject(new Error('injected: disk full'));
}

describe('CheckpointStore', () => {
  it('starts empty without creating a file when none exists', async () => {
    const store = await CheckpointStore.open({ directory });
    expect(store.claims()).toEqual([]);
    expect(await readdir(directory)).toEqual([]);
  });

  it('writes a versioned file whose checksum is the SHA-256 of the canonical claims and version', async () => {
    const store = await CheckpointStore.open({ directory });
    await store.upsertClaim(claimA());
    const canonical =
      `{"claims":{"${CLAIM_A}":{"claimName":"pairs-x","claimNamespace":"ai-workloads","claimUID":"${CLAIM_A}",` +
      `"devices":[{"cdiDeviceIDs":["sriovnetwork.k8snetworkplumbingwg.io/vf=${CLAIM_A}-0000-3b-02-0"],"device":"0000-3b-02-0",` +
      `"originalDriver":"iavf","pciAddress":"0000:3b:02.0","pool":"node-a","preparedDriver":"iavf","requestNames":["nic"]}],` +
      `"pod":{"name":"gpu-sriov-pairs-demo","namespace":"ai-workloads","uid":"${POD.uid}"}}},"version":1}`;
    const written = JSON.parse(await readFile(file, 'utf8')) as unknown;
    expect(written).toEqual({
      version: 1,
      checksum: createHash('sha256').update(canonical).digest('hex'),
      claims: { [CLAIM_A]: claimA() },
    });
    expect(await readdir(directory)).toEqual(['checkpoint.json']);
  });

  it('reads back exactly what it wrote, managed bindings included', async () => {
    const store = await CheckpointStore.open({ directory });
    await store.upsertClaim(claimA());
    await store.upsertClaim(managedClaimB());
    await store.upsertClaim(claimOfOtherPod());
    const reopened = await CheckpointStore.open({ directory });
    expect(reopened.get(CLAIM_A)).toEqual(claimA());
    expect(reopened.get(CLAIM_B)).toEqual(managedClaimB());
    expect(reopened.claimsOfPod(POD.uid).map((record) => record.claimUID)).toEqual([CLAIM_A, CLAIM_B]);
    expect(reopened.claimsOfPod(OTHER_POD.uid).map((record) => record.claimUID)).toEqual([CLAIM_C]);
  });

  it('removes one claim and keeps the Pod\u2019s other claims, in memory and on disk', async () => {
    const store = await CheckpointStore.open({ directory });
    await store.upsertClaim(claimA());
    await store.upsertClaim(managedClaimB('ReleaseComplete'));
    await expect(store.removeClaim(CLAIM_B)).resolves.toBe(true);
    await expect(store.removeClaim(CLAIM_B)).resolves.toBe(false);
    expect(store.claimsOfPod(POD.uid)).toEqual([claimA()]);
    expect((await CheckpointStore.open({ directory })).claims()).toEqual([claimA()]);
  });

  it('hands out copies: changing one changes neither the store nor the next copy', async () => {
    const store = await CheckpointStore.open({ directory });
    const record = claimA();
    await store.upsertClaim(record);
    record.devices.forEach((device) => (device.pciAddress = '0000:3b:02.7'));
    store.get(CLAIM_A)?.devices.pop();
    expect(store.get(CLAIM_A)).toEqual(claimA());
  });

  it('updates one claim durably and leaves an unknown claim unwritten', async () => {
    const store = await CheckpointStore.open({ directory });
    await store.upsertClaim(managedClaimB('Pending'));
    const updated = await store.updateClaim(CLAIM_B, (record) => {
      return { ...record, devices: record.devices.map((device) => ({ ...device, managedBinding: managedBindingOf(device, 'Ready') })) };
    });
    expect(updated).toEqual(managedClaimB('Ready'));
    expect((await CheckpointStore.open({ directory })).get(CLAIM_B)).toEqual(managedClaimB('Ready'));
    const before = await readFile(file);
    await expect(store.updateClaim(CLAIM_A, (record) => record)).resolves.toBeUndefined();
    expect(await readFile(file)).toEqual(before);
  });

  it('refuses a claim UID still recorded for another Pod, naming the claim', async () => {
    const store = await CheckpointStore.open({ directory });
    await store.upsertClaim(claimA());
    const before = await readFile(file);
    const error = await store.upsertClaim({ ...claimA(), pod: { ...OTHER_POD } }).catch((caught: unknown) => caught);
    expect(isSriovDraError(error, 'ClaimReleaseInProgress') ? error.object : error).toEqual({
      kind: 'ResourceClaim',
      namespace: 'ai-workloads',
      name: 'pairs-x',
      uid: CLAIM_A,
    });
    expect(store.get(CLAIM_A)).toEqual(claimA());
    expect(await readFile(file)).toEqual(before);
  });

  it('refuses a record that would not read back, writing nothing', async () => {
    const store = await CheckpointStore.open({ directory });
    const bad = managedClaimB();
    bad.devices.forEach((device) => (device.managedBinding = { ...managedBindingOf(device, 'Pending'), configSHA256: 'b'.repeat(64) }));
    await expect(store.upsertClaim(bad)).rejects.toThrow(/configSHA256 is not the SHA-256 of renderedConfig/);
    expect(await readdir(directory)).toEqual([]);
  });

  describe('when a write fails', () => {
    it('rolls memory back and leaves the previous file intact', async () => {
      await (await CheckpointStore.open({ directory })).upsertClaim(claimA());
      const before = await readFile(file);
      const store = await CheckpointStore.open({ directory, write: failingWrite });
      await expect(store.upsertClaim(managedClaimB())).rejects.toThrow('injected: disk full');
      await expect(store.removeClaim(CLAIM_A)).rejects.toThrow('injected: disk full');
      await expect(store.updateClaim(CLAIM_A, (record) => ({ ...record, claimName: 'renamed' }))).rejects.toThrow('injected: disk full');
      expect(store.claims()).toEqual([claimA()]);
      expect(await readFile(file)).toEqual(before);
    });

    it('does not disturb mutations queued behind it', async () => {
      let calls = 0;
      const store = await CheckpointStore.open({
        directory,
        write: async (path, data) => {
          calls += 1;
          if (calls === 2) throw new Error('injected: second write fails');
          await writeFile(path, data);
        },
      });
      const results = await Promise.allSettled([store.upsertClaim(claimA()), store.upsertClaim(managedClaimB()), store.upsertClaim(claimOfOtherPod())]);
      expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(store.claims().map((record) => record.claimUID)).toEqual([CLAIM_A, CLAIM_C]);
      expect((await CheckpointStore.open({ directory })).claims().map((record) => record.claimUID)).toEqual([CLAIM_A, CLAIM_C]);
    });
  });

  it('loses no update when many writers run at once', async () => {
    const store = await CheckpointStore.open({ directory });
    const uids = Array.from({ length: 24 }, (_, index) => `0b1c2d3e-1111-4222-8333-${index.toString(16).padStart(12, '0')}`);
    await Promise.all(uids.map((claimUID) => store.upsertClaim({ ...claimA(), claimUID, devices: [] })));
    await Promise.all(uids.slice(0, 12).map((claimUID) => store.removeClaim(claimUID)));
    const reopened = await CheckpointStore.open({ directory });
    expect(reopened.claims().map((record) => record.claimUID)).toEqual(uids.slice(12));
  });
});

describe('CheckpointStore.open on a file it cannot trust', () => {
  async function expectRefusal(content: string, code: 'CheckpointCorrupt' | 'UnsupportedCheckpointVersion', detail: RegExp): Promise<void> {
    await writeFile(file, content);
    const error = await CheckpointStore.open({ directory }).catch((caught: unknown) => caught);
    expect(isSriovDraError(error) ? error.code : error).toBe(code);
    const message = (error as Error).message;
    expect(message).toMatch(detail);
    expect(message).toContain(file);
    expect(await readFile(file, 'utf8')).toBe(content);
    expect(await readdir(directory)).toEqual(['checkpoint.json']);
  }

  async function validFile(): Promise<string> {
    await (await CheckpointStore.open({ directory })).upsertClaim(managedClaimB());
    return readFile(file, 'utf8');
  }

  /** A document with a correct checksum over the given canonical body (keys sorted, no whitespace). */
  function checksummed(canonicalClaims: string, version = 1): string {
    const checksum = createHash('sha256').update(`{"claims":${canonicalClaims},"version":${version}}`).digest('hex');
    return `{"version":${version},"checksum":"${checksum}","claims":${canonicalClaims}}`;
  }

  it('refuses text that is not JSON', () => expectRefusal('{"version":1,', 'CheckpointCorrupt', /is not valid JSON/));

  it('refuses a truncated file', async () => {
    const text = await validFile();
    await expectRefusal(text.slice(0, text.length / 2), 'CheckpointCorrupt', /is not valid JSON/);
  });

  it('refuses duplicate keys, which another reader might resolve differently', () =>
    expectRefusal('{"version":1,"version":1,"checksum":"","claims":{}}', 'CheckpointCorrupt', /is not valid JSON/));

  it('refuses a JSON document that is not an object', () => expectRefusal('[]', 'CheckpointCorrupt', /is not a JSON object/));

  it('refuses a missing version', () => expectRefusal('{"claims":{}}', 'CheckpointCorrupt', /has no positive integer version/));

  it('refuses a fractional version', () => expectRefusal('{"version":1.5,"claims":{}}', 'CheckpointCorrupt', /holds the number 1.5/));

  it('reports an unknown version as an upgrade problem, before the checksum', () =>
    expectRefusal('{"version":2,"checksum":"nonsense","claims":{}}', 'UnsupportedCheckpointVersion', /has version 2; this driver reads version 1/));

  it('refuses a missing checksum', () => expectRefusal('{"version":1,"claims":{}}', 'CheckpointCorrupt', /has no SHA-256 checksum/));

  it('refuses an edited record', async () => {
    const text = await validFile();
    await expectRefusal(text.replace('"vfio-pci"', '"iavf"'), 'CheckpointCorrupt', /fails its checksum/);
  });

  it('accepts a reformatted file: the checksum covers meaning, not whitespace', async () => {
    const text = await validFile();
    await writeFile(file, JSON.stringify(JSON.parse(text)));
    expect((await CheckpointStore.open({ directory })).get(CLAIM_B)).toEqual(managedClaimB());
  });

  it('reports a managed binding of an unknown version as an upgrade problem', async () => {
    const canonical = canonicalOf({ [CLAIM_B]: editedBinding((binding) => (binding['bindingVersion'] = 2)) });
    await expectRefusal(checksummed(canonical), 'UnsupportedCheckpointVersion', new RegExp(`claim ${CLAIM_B} holds a managed binding of version 2`));
  });

  it.each([
    ['an unknown phase', (binding: Record<string, unknown>) => (binding['phase'] = 'Released'), /managedBinding.phase/],
    ['a binding of another claim', (binding: Record<string, unknown>) => (binding['claimUID'] = CLAIM_A), /managedBinding.claimUID/],
    ['an unknown field', (binding: Record<string, unknown>) => (binding['extra'] = true), /managedBinding/],
  ])('refuses a checksummed record with %s', async (_, edit, detail) => {
    await expectRefusal(checksummed(canonicalOf({ [CLAIM_B]: editedBinding(edit) })), 'CheckpointCorrupt', detail);
  });

  it('refuses a record filed under another claim UID', () =>
    expectRefusal(checksummed(canonicalOf({ [CLAIM_C]: claimA() })), 'CheckpointCorrupt', /must equal the key the record is filed under/));

  it('refuses an unreadable path with a typed error', async () => {
    const { mkdir } = await import('node:fs/promises');
    await mkdir(file);
    const error = await CheckpointStore.open({ directory }).catch((caught: unknown) => caught);
    expect(isSriovDraError(error) ? [error.code, error.detail] : error).toEqual(['CheckpointCorrupt', expect.stringMatching(/^cannot be read/)]);
  });
});

/** Sorted-key compact JSON, written out here independently of the codec under test. */
function canonicalOf(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalOf).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalOf((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
