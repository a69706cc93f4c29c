import { describe, expect, it } from '@jest/globals';
import { policySelectsNode, selectNicVfs } from './nic-selection.ts';
import type { NodeInventory } from './node-inventory.ts';
import type { NodePolicy } from './node-policy.ts';

const inventory: NodeInventory = {
  node: 'worker-1',
  pfs: [
    {
      name: 'ens1f0',
      altNames: ['enp59s0f0np0'],
      pciAddress: '0000:3b:00.0',
      vendor: '15b3',
      deviceID: '1017',
      vfs: [0, 1, 2].map((id) => ({ pciAddress: `0000:3b:00.${String(id + 2)}`, vfID: id })),
    },
    { name: 'ens2f0', altNames: [], pciAddress: '0000:86:00.0', vendor: '8086', deviceID: '159b', vfs: [{ pciAddress: '0000:86:01.0', vfID: 0 }] },
  ],
};

function policy(nicSelector: NodePolicy['spec']['nicSelector'], nodeSelector: Record<string, string> = {}): NodePolicy {
  return { metadata: { name: 'p', namespace: 'ops', uid: 'u' }, spec: { resourceName: 'r', nicSelector, nodeSelector } };
}

describe('selectNicVfs', () => {
  it('selects whole PFs by PF PCI address', () => {
    expect(selectNicVfs(policy({ vendor: '15b3' }), inventory)).toEqual({
      kind: 'selected',
      vfs: inventory.pfs[0]?.vfs,
      filters: [{ pfPciAddresses: ['0000:3b:00.0'] }],
    });
  });

  it('selects a VF range by VF PCI address, matching an alternative PF name too', () => {
    expect(selectNicVfs(policy({ pfNames: ['enp59s0f0np0#1-2'] }), inventory)).toEqual({
      kind: 'selected',
      vfs: [
        { pciAddress: '0000:3b:00.3', vfID: 1 },
        { pciAddress: '0000:3b:00.4', vfID: 2 },
      ],
      filters: [{ pciAddresses: ['0000:3b:00.3', '0000:3b:00.4'] }],
    });
  });

  it.each([
    ['vendor', { vendor: '8086' }, ['0000:86:00.0']],
    ['deviceID', { deviceID: '1017' }, ['0000:3b:00.0']],
    ['rootDevices', { rootDevices: ['0000:86:00.0'] }, ['0000:86:00.0']],
    ['all fields ANDed', { vendor: '15b3', pfNames: ['ens2f0'] }, []],
  ])('ANDs %s like upstream', (_case, nicSelector, pfs) => {
    const selection = selectNicVfs(policy(nicSelector), inventory);
    expect(selection.kind === 'selected' ? selection.filters : selection).toEqual(pfs.length === 0 ? [] : [{ pfPciAddresses: pfs }]);
  });

  it.each([
    ['a netFilter', { netFilter: 'openstack/NetworkID:abc' }, 'netFilter'],
    ['an unreadable range', { pfNames: ['ens1f0#a-b'] }, 'unreadable VF range'],
    ['one PF with two ranges', { pfNames: ['ens1f0#0-0', 'ens1f0#1-2'] }, 'different VF ranges'],
  ])('refuses %s instead of guessing', (_case, nicSelector, reason) => {
    expect(selectNicVfs(policy(nicSelector), inventory)).toEqual({ kind: 'untranslatable', reason: expect.stringContaining(reason) });
  });
});

describe('selectNicVfs: VF ranges as upstream’s ParseVfRange reads them (strconv.Atoi)', () => {
  const rangeOf = (pfName: string) => {
    const selection = selectNicVfs(policy({ pfNames: [pfName] }), inventory);
    return selection.kind === 'selected' ? selection.vfs.map((vf) => vf.vfID) : selection.kind;
  };

  it.each([
    ['multi-digit bounds', 'ens1f0#01-10', [1, 2]],
    ['explicit signs', 'ens1f0#+0-+1', [0, 1]],
    ['a range past the last VF', 'ens1f0#2-99', [2]],
  ])('reads %s', (_case, pfName, vfIDs) => {
    expect(rangeOf(pfName)).toEqual(vfIDs);
  });

  it.each([
    ['text before the range', 'ens1f0#x0-1'],
    ['text after the range', 'ens1f0#0-1x'],
    ['a missing bound', 'ens1f0#0-'],
  ])('refuses %s', (_case, pfName) => {
    expect(rangeOf(pfName)).toBe('untranslatable');
  });
});

describe('selectNicVfs: several PF names', () => {
  it('selects every PF the list names, each with its own range, and sorts each filter by address', () => {
    expect(selectNicVfs(policy({ pfNames: ['ens2f0', 'ens1f0#0-1'] }), inventory)).toEqual({
      kind: 'selected',
      vfs: [
        { pciAddress: '0000:3b:00.2', vfID: 0 },
        { pciAddress: '0000:3b:00.3', vfID: 1 },
        { pciAddress: '0000:86:01.0', vfID: 0 },
      ],
      filters: [{ pfPciAddresses: ['0000:86:00.0'] }, { pciAddresses: ['0000:3b:00.2', '0000:3b:00.3'] }],
    });
  });

  it('lists addresses in order whatever order the inventory reports them in', () => {
    const [first, second] = inventory.pfs;
    if (first === undefined || second === undefined) throw new Error('fixture');
    const reordered: NodeInventory = { node: 'worker-1', pfs: [second, { ...first, vfs: first.vfs.toReversed() }] };
    expect(selectNicVfs(policy({ vendor: '' }), reordered)).toMatchObject({ filters: [{ pfPciAddresses: ['0000:3b:00.0', '0000:86:00.0'] }] });
    expect(selectNicVfs(policy({ pfNames: ['ens1f0#0-2'] }), reordered)).toMatchObject({
      filters: [{ pciAddresses: ['0000:3b:00.2', '0000:3b:00.3', '0000:3b:00.4'] }],
    });
  });
});

describe('policySelectsNode', () => {
  it('requires every label of the nodeSelector, and an empty selector selects every node', () => {
    expect(policySelectsNode(policy({}, { a: '1', b: '2' }), { a: '1', b: '2', c: '3' })).toBe(true);
    expect(policySelectsNode(policy({}, { a: '1', b: '2' }), { a: '1' })).toBe(false);
    expect(policySelectsNode(policy({}), {})).toBe(true);
  });
});
