import { describe, expect, it } from '@jest/globals';
import { type AttachmentRecord, decodeAttachmentRecord, encodeAttachmentRecord } from '../../src/teardown/attachment-record.ts';
import { type TeardownRecord, decodeTeardownRecord, encodeTeardownRecord } from '../../src/teardown/teardown-record.ts';
import { isTeardownStateError } from '../../src/teardown/teardown-state-error.ts';

const PATH = '/var/lib/cni/multus/.sriov-dra/teardowns/c-1.json';

const del = {
  netns: '/var/run/netns/cni-1',
  ifName: 'eth0',
  cniArgs: [
    ['IgnoreUnknown', '1'],
    ['K8S_POD_NAMESPACE', 'ai'],
    ['K8S_POD_NAME', 'trainer'],
  ] as [string, string][],
  cniPath: '/opt/cni/bin',
  config: '{"cniVersion":"1.0.0","name":"multus-cni-network","type":"multus-shim","runtimeConfig":{"portMappings":[{"hostPort":80}]}}',
};

const record: TeardownRecord = {
  version: 1,
  containerID: 'c-1',
  del,
  pod: { namespace: 'ai', name: 'trainer', uid: '0c3b7f5e-6a0e-4c2b-9c84-2f1f7f0b6d11' },
  reason: 'DelFailed',
  attempts: 3,
  lastError: 'ai/rail-a: injected',
  pendingSince: '2026-01-01T00:00:00.000Z',
  lastAttemptAt: '2026-01-01T00:00:07.000Z',
};

const attachment: AttachmentRecord = { version: 1, containerID: 'c-1', del, pod: record.pod, staticPod: false };

function corruptionOf(decode: () => unknown): { code: string; path: string; message: string } | 'decoded' {
  try {
    decode();
    return 'decoded';
  } catch (error) {
    if (!isTeardownStateError(error)) throw error;
    return { code: error.code, path: error.path, message: error.message };
  }
}

describe('the teardown record codec', () => {
  it('decodes what it encodes, every DEL input intact', () => {
    expect(decodeTeardownRecord(encodeTeardownRecord(record), PATH)).toEqual(record);
  });

  it.each([
    ['not JSON', '{"version":1,', 'not JSON'],
    ['a list', '[]', 'the record'],
    ['another version', JSON.stringify({ ...record, version: 2 }), 'version'],
    ['no DEL inputs', JSON.stringify({ ...record, del: undefined }), 'del'],
    ['a CNI_ARGS pair of three', JSON.stringify({ ...record, del: { ...del, cniArgs: [['a', 'b', 'c']] } }), 'del.cniArgs.0'],
    ['an empty interface name', JSON.stringify({ ...record, del: { ...del, ifName: '' } }), 'del.ifName'],
    ['negative attempts', JSON.stringify({ ...record, attempts: -1 }), 'attempts'],
    ['an unknown reason', JSON.stringify({ ...record, reason: 'Whim' }), 'reason'],
  ])('refuses %s with TeardownRecordCorrupt naming the file and the field', (_, text, where) => {
    const corruption = corruptionOf(() => decodeTeardownRecord(Buffer.from(text), PATH));
    expect(corruption).toMatchObject({ code: 'TeardownRecordCorrupt', path: PATH });
    expect(corruption === 'decoded' ? '' : corruption.message).toContain(`${PATH}: ${where}`);
  });
});

describe('the attachment record codec', () => {
  it('decodes what it encodes', () => {
    expect(decodeAttachmentRecord(encodeAttachmentRecord(attachment), PATH)).toEqual(attachment);
  });

  it('refuses a record without its Pod or with a static flag that is not a boolean, with AttachmentRecordCorrupt', () => {
    expect(corruptionOf(() => decodeAttachmentRecord(Buffer.from(JSON.stringify({ ...attachment, pod: undefined })), PATH))).toMatchObject({
      code: 'AttachmentRecordCorrupt',
    });
    expect(corruptionOf(() => decodeAttachmentRecord(Buffer.from(JSON.stringify({ ...attachment, staticPod: 'no' })), PATH))).toMatchObject({
      code: 'AttachmentRecordCorrupt',
    });
  });
});
