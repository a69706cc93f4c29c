import { describe, expect, it } from '@jest/globals';
import { type InterfaceRequest, assignDelegateInterfaces } from './interface-assignment.ts';

const pod = { kind: 'Pod', namespace: 'ai-workloads', name: 'trainer' };
const master: InterfaceRequest = { name: 'kube-system/primary', master: true };

function names(delegates: readonly InterfaceRequest[], runtimeIfName = 'eth0'): string {
  const result = assignDelegateInterfaces(delegates, runtimeIfName, pod);
  return result.ok ? result.value.join(',') : `${result.error.code}: ${result.error.detail}`;
}

describe('assignDelegateInterfaces', () => {
  it('gives the master the runtime interface and numbers the others by their position, as Multus does', () => {
    expect(names([master, { name: 'a/x', master: false }, { name: 'a/y', master: false }])).toBe('eth0,net1,net2');
    expect(names([master, { name: 'a/x', master: false }], 'eth7')).toBe('eth7,net1');
  });

  it('lets an explicit request win, without shifting the positions of the others', () => {
    expect(names([master, { name: 'a/x', master: false, ifnameRequest: 'dra0' }, { name: 'a/y', master: false }])).toBe('eth0,dra0,net2');
    expect(
      names([
        { ...master, ifnameRequest: 'primary0' },
        { name: 'a/x', master: false },
      ]),
    ).toBe('primary0,net1');
  });

  it('refuses a collision over the full list before anything runs, naming both networks', () => {
    expect(names([master, { name: 'a/x', master: false, ifnameRequest: 'net2' }, { name: 'a/y', master: false }])).toBe(
      'DuplicateInterfaceName: networks a/x and a/y both resolve to interface net2; no delegate was run',
    );
    expect(names([master, { name: 'a/x', master: false, ifnameRequest: 'eth0' }])).toBe(
      'DuplicateInterfaceName: networks kube-system/primary and a/x both resolve to interface eth0; no delegate was run',
    );
  });

  it('refuses an interface name the kernel would refuse', () => {
    expect(names([master, { name: 'a/x', master: false, ifnameRequest: 'sixteen-bytes-xx' }])).toBe(
      'InvalidInterfaceName: network a/x would get interface "sixteen-bytes-xx"',
    );
  });
});

describe('assignDelegateInterfaces details', () => {
  it('reads an empty interface request as none', () => {
    expect(names([master, { name: 'a/x', master: false, ifnameRequest: '' }])).toBe('eth0,net1');
  });

  it('names the Pod in each refusal', () => {
    for (const delegates of [
      [master, { name: 'a/x', master: false, ifnameRequest: 'net1' }, { name: 'a/y', master: false, ifnameRequest: 'net1' }],
      [master, { name: 'a/x', master: false, ifnameRequest: 'a'.repeat(16) }],
    ]) {
      const result = assignDelegateInterfaces(delegates, 'eth0', pod);
      expect(result.ok ? 'accepted' : result.error.object).toEqual(pod);
    }
  });
});
