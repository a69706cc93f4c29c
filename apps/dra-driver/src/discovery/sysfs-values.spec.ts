import { describe, expect, it } from '@jest/globals';
import { pcieRootOf } from './pcie-root.ts';
import { deviceNameOf } from './device-name.ts';
import type { SysfsResult } from './sysfs-error.ts';
import {
  isNetworkClass,
  parseCount,
  parseEswitchMode,
  parseLinkType,
  parseNumaNode,
  parseOperstate,
  parsePciClass,
  parsePciId,
  virtfnIndex,
} from './sysfs-values.ts';

function value<T>(result: SysfsResult<T>): T | string {
  return result.ok ? result.value : result.error.code;
}

const at = '/sys/x';

describe('sysfs attribute parsers', () => {
  it.each([
    ['0x15b3\n', '15b3'],
    ['0x101B\n', '101b'],
    ['15b3\n', 'MalformedSysfsValue'],
    ['0x15b\n', 'MalformedSysfsValue'],
    ['0x15b30\n', 'MalformedSysfsValue'],
    ['', 'MalformedSysfsValue'],
  ])('parsePciId(%j) → %j', (text, expected) => {
    expect(value(parsePciId(text, at))).toBe(expected);
  });

  it.each([
    ['0x020000\n', 0x020000],
    ['0x020700\n', 0x020700],
    ['0x0200\n', 'MalformedSysfsValue'],
  ])('parsePciClass(%j) → %j', (text, expected) => {
    expect(value(parsePciClass(text, at))).toBe(expected);
  });

  it('recognises the network controller base class only', () => {
    expect([0x020000, 0x020700, 0x028000, 0x010802, 0x060400, 0x030000].map(isNetworkClass)).toEqual([true, true, true, false, false, false]);
  });

  it.each([
    ['8\n', 8],
    ['0\n', 0],
    ['08\n', 'MalformedSysfsValue'],
    ['-1\n', 'MalformedSysfsValue'],
    ['eight\n', 'MalformedSysfsValue'],
    ['1.5\n', 'MalformedSysfsValue'],
  ])('parseCount(%j) → %j', (text, expected) => {
    expect(value(parseCount(text, at))).toBe(expected);
  });

  it.each([
    ['0\n', 0],
    ['3\n', 3],
    ['-1\n', undefined],
    ['-2\n', 'MalformedSysfsValue'],
    ['none\n', 'MalformedSysfsValue'],
  ])('parseNumaNode(%j) → %j', (text, expected) => {
    expect(value(parseNumaNode(text, at))).toBe(expected);
  });

  it.each([
    ['1\n', 'ethernet'],
    ['32\n', 'infiniband'],
    ['772\n', 'unknown'],
    ['ether\n', 'MalformedSysfsValue'],
  ])('parseLinkType(%j) → %j', (text, expected) => {
    expect(value(parseLinkType(text, at))).toBe(expected);
  });

  it.each([
    ['up\n', true],
    ['unknown\n', true],
    ['down\n', false],
    ['lowerlayerdown\n', false],
    ['dormant\n', false],
    ['UP\n', 'MalformedSysfsValue'],
  ])('parseOperstate(%j) → %j', (text, expected) => {
    expect(value(parseOperstate(text, at))).toBe(expected);
  });

  it.each([
    ['legacy\n', 'legacy'],
    ['switchdev\n', 'switchdev'],
    ['offload\n', 'MalformedSysfsValue'],
  ])('parseEswitchMode(%j) → %j', (text, expected) => {
    expect(value(parseEswitchMode(text, at))).toBe(expected);
  });

  it('names the file and the content in a malformed-value error', () => {
    const result = parseCount('eight\n', '/sys/bus/pci/devices/0000:3b:00.0/sriov_totalvfs');
    expect(result.ok ? '' : result.error.message).toBe(
      'MalformedSysfsValue: /sys/bus/pci/devices/0000:3b:00.0/sriov_totalvfs: holds "eight", expected a non-negative integer \u2014 the entry does not hold the kernel format; check the kernel and driver versions of this device',
    );
  });

  it.each([
    ['virtfn0', 0],
    ['virtfn17', 17],
    ['virtfn', undefined],
    ['virtfn01', undefined],
    ['virtfnx', undefined],
    ['physfn', undefined],
  ])('virtfnIndex(%j) → %j', (entry, expected) => {
    expect(virtfnIndex(entry)).toBe(expected);
  });
});

describe('pcieRootOf', () => {
  it.each([
    ['devices/pci0000:3a/0000:3a:00.0/0000:3b:00.2', 'pci0000:3a'],
    ['devices/pci0001:00/0001:00:02.0/0001:01:00.0', 'pci0001:00'],
    ['devices/pci0000:3a', undefined],
    ['devices/soc0/0000:3b:00.2', undefined],
    ['devices/platform/pci0000:3a/0000:3b:00.2', undefined],
    ['bus/pci/devices/0000:3b:00.2', undefined],
    ['', undefined],
  ])('%j → %j', (realPath, expected) => {
    expect(pcieRootOf(realPath)).toBe(expected);
  });
});

describe('deviceNameOf', () => {
  it('replaces every colon and dot of the PCI address', () => {
    expect(deviceNameOf('0000:3b:02.0')).toBe('0000-3b-02-0');
  });
});
