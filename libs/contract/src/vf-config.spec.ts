import { describe, expect, it } from '@jest/globals';
import { validateVfConfig } from './vf-config.ts';

const vfConfig = (fields: Record<string, unknown>) => ({ apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1', kind: 'VfConfig', ...fields });

describe('validateVfConfig', () => {
  it.each([
    ['driver ""', { driver: '' }, 'ok'],
    ['driver default', { driver: 'default' }, 'ok'],
    ['driver vfio-pci', { driver: 'vfio-pci' }, 'ok'],
    ['a 64-character driver', { driver: `a${'b'.repeat(63)}` }, 'ok'],
    ['a 65-character driver', { driver: `a${'b'.repeat(64)}` }, 'InvalidVfConfig'],
    ['a driver starting with "-"', { driver: '-x' }, 'InvalidVfConfig'],
    ['a driver with a slash', { driver: 'a/b' }, 'InvalidVfConfig'],
    ['ifName ""', { ifName: '' }, 'ok'],
    ['a 15-byte ifName', { ifName: 'a'.repeat(15) }, 'ok'],
    ['a 16-byte ifName', { ifName: 'a'.repeat(16) }, 'InvalidVfConfig'],
    ['netAttachDefName ""', { netAttachDefName: '' }, 'ok'],
    ['a 253-character netAttachDefName', { netAttachDefName: 'a'.repeat(253) }, 'ok'],
    ['a 254-character netAttachDefName', { netAttachDefName: 'a'.repeat(254) }, 'InvalidVfConfig'],
    ['netAttachDefNamespace ""', { netAttachDefNamespace: '' }, 'ok'],
    ['a 63-character netAttachDefNamespace', { netAttachDefNamespace: 'a'.repeat(63) }, 'ok'],
    ['a 64-character netAttachDefNamespace', { netAttachDefNamespace: 'a'.repeat(64) }, 'InvalidVfConfig'],
    ['a dotted netAttachDefNamespace', { netAttachDefNamespace: 'a.b' }, 'InvalidVfConfig'],
    ['addVhostMount false', { addVhostMount: false }, 'ok'],
    ['addVhostMount "true"', { addVhostMount: 'true' }, 'InvalidVfConfig'],
    ['an unknown field', { ifname: 'dra0' }, 'InvalidVfConfig'],
    ['another kind', { kind: 'VFConfig' }, 'InvalidVfConfig'],
    ['another API version', { apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1' }, 'InvalidVfConfig'],
  ])('%s', (_case, fields, expected) => {
    const result = validateVfConfig(vfConfig(fields));
    expect(result.ok ? 'ok' : result.error.code).toBe(expected);
  });

  it('returns the fields it was given', () => {
    const fields = { driver: 'vfio-pci', ifName: 'net1', netAttachDefName: 'rail-a-net', netAttachDefNamespace: 'infra', addVhostMount: true };
    expect(validateVfConfig(vfConfig(fields))).toEqual({ ok: true, value: vfConfig(fields) });
  });
});
