import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { type SriovDraError, isSriovDraError } from '@sriov-dra/contract';
import { checkpointReadError, decodeCheckpoint, encodeCheckpoint } from './checkpoint-codec.ts';
import type { ClaimRecord } from './checkpoint-record.ts';

const FILE = '/var/lib/sriov-dra/checkpoint.json';
const POD = { uid: '11111111-2222-3333-4444-555555555555', namespace: 'ai-workloads', name: 'pairs-demo' };

function record(claimUID: string, claimName: string): ClaimRecord {
  return {
    claimUID,
    claimNamespace: 'ai-workloads',
    claimName,
    pod: { ...POD },
    devices: [
      {
        pool: 'node-a',
        device: '0000-3b-02-0',
        requestNames: ['nic'],
        pciAddress: '0000:3b:02.0',
        originalDriver: 'iavf',
        preparedDriver: 'iavf',
        cdiDeviceIDs: [`sriovnetwork.k8snetworkplumbingwg.io/vf=${claimUID}-0000-3b-02-0`],
      },
    ],
  };
}

const CLAIM_A = '0b1c2d3e-1111-4222-8333-aaaaaaaaaaaa';
const CLAIM_B = '0b1c2d3e-1111-4222-8333-bbbbbbbbbbbb';
const CLAIM_C = '0b1c2d3e-1111-4222-8333-cccccccccccc';

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

/** A document whose checksum is right for whatever `claims` holds, so only the content can be at fault. */
function checksummed(claims: unknown): string {
  const checksum = createHash('sha256')
    .update(`{"claims":${canonicalOf(claims)},"version":1}`)
    .digest('hex');
  return JSON.stringify({ version: 1, checksum, claims });
}

function refusal(text: string): SriovDraError {
  try {
    decodeCheckpoint(text, FILE);
  } catch (error) {
    if (isSriovDraError(error)) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

const CORRUPT_REMEDY = `stop the driver and keep ${FILE} as it is (it was not changed); restore it from a backup, or, once every VF on this node is released, move it aside so the driver starts with an empty checkpoint`;
const fileRef = { kind: 'checkpoint file', name: FILE };

describe('encodeCheckpoint', () => {
  it('files claims by UID in sorted order, whatever order they were recorded in', () => {
    const text = encodeCheckpoint(new Map([CLAIM_B, CLAIM_C, CLAIM_A].map((uid) => [uid, record(uid, `claim-${uid.slice(-1)}`)])));
    expect(Object.keys((JSON.parse(text) as { claims: object }).claims)).toEqual([CLAIM_A, CLAIM_B, CLAIM_C]);
    expect(text.endsWith('}\n')).toBe(true);
  });

  it('checksums what the file holds: a field left undefined is left out on both sides', () => {
    const withUndefined = record(CLAIM_A, 'pairs-x');
    const device = withUndefined.devices[0];
    if (device === undefined) throw new Error('fixture');
    const claims = new Map([[CLAIM_A, { ...withUndefined, devices: [{ ...device, managedBinding: undefined }] }]]);
    expect(decodeCheckpoint(encodeCheckpoint(claims), FILE)).toEqual(new Map([[CLAIM_A, record(CLAIM_A, 'pairs-x')]]));
  });
});

describe('decodeCheckpoint: versions', () => {
  it.each([
    ['0', '{"version":0,"checksum":"","claims":{}}'],
    ['-1', '{"version":-1,"checksum":"","claims":{}}'],
    ['"1"', '{"version":"1","checksum":"","claims":{}}'],
  ])('refuses version %s as damage, not as a version to upgrade from', (_case, text) => {
    expect(refusal(text).toJSON()).toEqual({ code: 'CheckpointCorrupt', detail: 'has no positive integer version', object: fileRef, remedy: CORRUPT_REMEDY });
  });

  it.each(['1.0', '1e0'])('refuses the number %s, which is not how an integer version is written', (raw) => {
    expect(refusal(`{"version":${raw},"checksum":"","claims":{}}`).detail).toBe(`holds the number ${raw}, which no checkpoint field allows`);
  });

  it('tells how to upgrade past an unsupported version, the file untouched', () => {
    expect(refusal('{"version":2,"checksum":"","claims":{}}').toJSON()).toEqual({
      code: 'UnsupportedCheckpointVersion',
      detail: 'has version 2; this driver reads version 1',
      object: fileRef,
      remedy: `run the driver release that wrote ${FILE}, drain the node and let it release every claim, then upgrade; the file was not changed`,
    });
  });

  it('tells how to release a claim holding a managed binding of another version', () => {
    const claim = { ...record(CLAIM_A, 'pairs-x'), devices: [{ ...record(CLAIM_A, 'pairs-x').devices[0], managedBinding: { bindingVersion: 2 } }] };
    expect(refusal(checksummed({ [CLAIM_A]: claim })).toJSON()).toEqual({
      code: 'UnsupportedCheckpointVersion',
      detail: `claim ${CLAIM_A} holds a managed binding of version 2; this driver reads version 1`,
      object: fileRef,
      remedy: `run the driver release that wrote ${FILE} until the claim is released; the file was not changed`,
    });
  });
});

describe('decodeCheckpoint: checksum', () => {
  it('refuses a checksum that is not a string, even one that spells a SHA-256 when read as text', () => {
    expect(refusal(`{"version":1,"checksum":["${'a'.repeat(64)}"],"claims":{}}`).detail).toBe('has no SHA-256 checksum');
  });

  it('names both checksums when they differ', () => {
    const text = checksummed({});
    const recorded = (JSON.parse(text) as { checksum: string }).checksum;
    const edited = text.replace('"claims":{}', `"claims":{"${CLAIM_A}":null}`);
    expect(refusal(edited).detail).toMatch(
      new RegExp(`^fails its checksum \\(recorded ${recorded}, computed [0-9a-f]{64}\\): it was edited or damaged after it was written$`),
    );
  });
});

describe('decodeCheckpoint: content under a correct checksum', () => {
  const device = record(CLAIM_A, 'pairs-x').devices[0];
  it.each<[string, unknown]>([
    ['claims that are null', null],
    ['claims that are a string', 'claims'],
    ['a record that is null', { [CLAIM_A]: null }],
    ['a record without devices', { [CLAIM_A]: { claimUID: CLAIM_A } }],
    ['devices that are not a list', { [CLAIM_A]: { ...record(CLAIM_A, 'pairs-x'), devices: {} } }],
    ['a device that is null', { [CLAIM_A]: { ...record(CLAIM_A, 'pairs-x'), devices: [null] } }],
    ['a managed binding that is null', { [CLAIM_A]: { ...record(CLAIM_A, 'pairs-x'), devices: [{ ...device, managedBinding: null }] } }],
    ['a managed binding that is a string', { [CLAIM_A]: { ...record(CLAIM_A, 'pairs-x'), devices: [{ ...device, managedBinding: 'Ready' }] } }],
    ['a binding version that is a string', { [CLAIM_A]: { ...record(CLAIM_A, 'pairs-x'), devices: [{ ...device, managedBinding: { bindingVersion: '2' } }] } }],
  ])('refuses %s as a schema mismatch', (_case, claims) => {
    const error = refusal(checksummed(claims));
    expect([error.code, error.detail]).toEqual(['CheckpointCorrupt', expect.stringMatching(/^does not match the checkpoint schema: /)]);
    expect(error.remedy).toBe(CORRUPT_REMEDY);
  });

  it('names the record filed under another claim UID', () => {
    expect(refusal(checksummed({ [CLAIM_B]: record(CLAIM_A, 'pairs-x') })).detail).toBe(
      `does not match the checkpoint schema: claims.${CLAIM_B}.claimUID: must equal the key the record is filed under`,
    );
  });

  it('reads back what was encoded', () => {
    const claims = new Map([
      [CLAIM_A, record(CLAIM_A, 'pairs-x')],
      [CLAIM_B, record(CLAIM_B, 'pairs-y')],
    ]);
    expect(decodeCheckpoint(encodeCheckpoint(claims), FILE)).toEqual(claims);
  });
});

describe('checkpointReadError', () => {
  it('names the file and the cause, and says nothing was changed', () => {
    const cause = new Error('EACCES: permission denied');
    const error = checkpointReadError(FILE, cause);
    expect(error.toJSON()).toEqual({
      code: 'CheckpointCorrupt',
      detail: 'cannot be read (EACCES: permission denied)',
      object: fileRef,
      remedy: `check the permissions and the filesystem of ${FILE}; nothing was changed`,
    });
    expect(error.cause).toBe(cause);
    expect(checkpointReadError(FILE, 'EIO').detail).toBe('cannot be read (EIO)');
  });
});
