// Pod registry v1 rules no field schema expresses, each refusal with its exact detail and object; the
// generated selection an entry stands for.
import { describe, expect, it } from '@jest/globals';
import { selectionOf, validateRegistry } from './registry.ts';
import { generatedSelectionJSON, validateGeneratedSelection } from './selection.ts';

const POD = { kind: 'Pod', namespace: 'ai-workloads', name: 'gpu-pairs' };
const ID_A = '71179501bb6cd083245331b0ff5857fa31e1b3479ee5e9985da63f7c301d31cc';
// Shares its first 32 hex digits, and so its shadow name, with ID_A.
const ID_A2 = '71179501bb6cd083245331b0ff5857fa0000000000000000000000000000000a';
const ID_B = 'c9afd2dbce57b7000f7c9a2e769dd192baf67d0db95c5754663382d34312aa81';

const entry = (attachmentID: string, name: string, iface: string, namespace = 'ai-workloads') => ({
  attachmentID,
  claimUID: 'a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607',
  namespace,
  name,
  uid: '4f3e2d1c-0b9a-4877-9665-5443322110ff',
  interface: iface,
  configSHA256: 'e654abd54aaf09229ef47364500f74ea465ecff6062ce081fcdc62c8bfd1c28d',
});
const A = entry(ID_A, 'dra-sriov-71179501bb6cd083245331b0ff5857fa', 'dra0');
const B = entry(ID_B, 'dra-sriov-c9afd2dbce57b7000f7c9a2e769dd192', 'dra1');

function refusal(entries: unknown[]) {
  const result = validateRegistry({ version: 1, podUID: '11111111-2222-3333-4444-555555555555', entries }, POD);
  return result.ok ? 'valid' : { code: result.error.code, detail: result.error.detail, object: result.error.object };
}

describe('validateRegistry', () => {
  it('accepts distinct entries in one namespace', () => {
    expect(refusal([A, B])).toBe('valid');
  });

  it.each([
    ['an attachment recorded twice', [A, B, A], 'DuplicateAttachmentID', `entries[2]: attachmentID ${ID_A} appears twice`],
    [
      'a name not derived from the attachment',
      [B, { ...A, name: 'dra-sriov-c9afd2dbce57b7000f7c9a2e769dd192' }],
      'InvalidManagedNetworksRegistry',
      `entries[1]: name dra-sriov-c9afd2dbce57b7000f7c9a2e769dd192 does not derive from attachmentID ${ID_A}`,
    ],
    [
      'two attachments whose shadow names collide',
      [A, entry(ID_A2, 'dra-sriov-71179501bb6cd083245331b0ff5857fa', 'dra1')],
      'DuplicateSelectionIdentity',
      'entries[1]: shadow ai-workloads/dra-sriov-71179501bb6cd083245331b0ff5857fa appears twice',
    ],
    ['one interface twice', [A, { ...B, interface: 'dra0' }], 'DuplicateSelectionIdentity', 'entries[1]: interface dra0 appears twice'],
    [
      'shadows in two namespaces',
      [A, { ...B, namespace: 'infra' }],
      'InvalidManagedNetworksRegistry',
      'entries[1]: namespace infra differs from ai-workloads; shadows live in the Pod namespace',
    ],
  ])('refuses %s, naming the object', (_case, entries, code, detail) => {
    expect(refusal(entries)).toEqual({ code, detail, object: POD });
  });
});

describe('the selection an entry stands for', () => {
  it('is name, namespace and interface, in that order', () => {
    expect(Object.entries(generatedSelectionJSON(selectionOf(A)))).toEqual([
      ['name', 'dra-sriov-71179501bb6cd083245331b0ff5857fa'],
      ['namespace', 'ai-workloads'],
      ['interface', 'dra0'],
    ]);
  });

  it('is refused with an extra field, naming the networks annotation by default', () => {
    const result = validateGeneratedSelection({ ...selectionOf(A), deviceID: '0000:03:00.1' });
    expect(result.ok ? 'valid' : [result.error.code, result.error.object]).toEqual([
      'InvalidGeneratedSelection',
      { kind: 'NetworkSelection', field: 'annotation k8s.v1.cni.cncf.io/networks' },
    ]);
  });
});
