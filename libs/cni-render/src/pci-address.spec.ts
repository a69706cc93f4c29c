import { describe, expect, it } from '@jest/globals';
import { normalizePciAddress } from './pci-address.ts';

describe('normalizePciAddress', () => {
  it.each([
    ['0000:03:00.1', '0000:03:00.1'],
    ['0000:AF:1F.7', '0000:af:1f.7'],
    [' pci:0000:03:00.1\n', '0000:03:00.1'],
    ['PCI:000A:03:00.1', '000a:03:00.1'],
  ])('reads %j as %s', (input, expected) => {
    const result = normalizePciAddress(input);
    expect(result.ok ? result.value : result.error.code).toBe(expected);
  });

  it.each([
    ['03:00.1', '"03:00.1" is not a PCI address of the form 0000:03:00.1'],
    ['pci:03:00.1', '"pci:03:00.1" is not a PCI address of the form 0000:03:00.1'],
    ['0000:03:00.8', '"0000:03:00.8" is not a PCI address of the form 0000:03:00.1'],
    ['pcipci:0000:03:00.1', '"pcipci:0000:03:00.1" is not a PCI address of the form 0000:03:00.1'],
    ['', '"" is not a PCI address of the form 0000:03:00.1'],
  ])('rejects %j, quoting it', (input, detail) => {
    const result = normalizePciAddress(input);
    expect(result.ok ? result.value : { code: result.error.code, detail: result.error.detail }).toEqual({ code: 'InvalidPciAddress', detail });
  });
});
