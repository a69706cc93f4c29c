import { describe, expect, it } from '@jest/globals';
import { isPciAddress } from '@sriov-dra/contract';
import { expectsValid, loadFixtures } from '@sriov-dra/contract/fixtures';
import { checkShadowSemantics } from './shadow-semantics.ts';

const PCI = '0000:03:00.1';
const object = { kind: 'NetworkAttachmentDefinition', namespace: 'ai-workloads', name: 'dra-sriov-71179501bb6cd083245331b0ff5857fa' };

function verdict(config: string, pci = PCI): string {
  const result = checkShadowSemantics(config, pci, object);
  return result.ok ? 'ok' : `${result.error.code}: ${result.error.detail}`;
}

const IPAM = '{"type":"host-local","ranges":[[{"subnet":"192.0.2.0/24"}]]}';
const single = (fields: string): string => `{"cniVersion":"1.0.0","name":"rail-a","type":"sriov","ipam":${IPAM}${fields}}`;
const conflist = (...plugins: string[]): string => `{"cniVersion":"1.0.0","name":"rail-a","plugins":[${plugins.join(',')}]}`;
const SRIOV = `{"type":"sriov","deviceID":"${PCI}","ipam":${IPAM}}`;

// Indented the way Go's json.MarshalIndent writes, with its escapes of & < > and an escaped digit in the
// PCI address: the bytes differ from anything this repository renders, the meaning is the bound VF.
const GO_WRITTEN = [
  '{',
  '    "cniVersion": "1.0.0",',
  '    "name": "rail-a",',
  '    "plugins": [',
  '        {',
  '            "deviceID": "\\u0030000:03:00.1",',
  '            "ipam": {"ranges": [[{"subnet": "192.0.2.0/24"}]], "type": "host-local"},',
  '            "pciBusID": "0000:03:00.1",',
  '            "type": "sriov",',
  '            "vlan": 12345678901234567890',
  '        },',
  '        {',
  '            "mtu": 9000,',
  '            "note": "rails \\u003ca\\u003e \\u0026 \\u003cb\\u003e",',
  '            "type": "tuning"',
  '        }',
  '    ]',
  '}',
].join('\n');

describe('checkShadowSemantics', () => {
  it('accepts the bound VF whatever the formatting and escapes, as Go decodes them', () => {
    expect(verdict(single(`,"deviceID":"${PCI}"`))).toBe('ok');
    expect(verdict(conflist(SRIOV, '{"type":"tuning","mtu":9000}'))).toBe('ok');
    expect(verdict(GO_WRITTEN)).toBe('ok');
    expect(verdict(single(',"deviceID":"0000:03:00.\\u0031","pciBusID":null'))).toBe('ok');
    // A metaplugin or the root repeating the same VF disagrees with nothing.
    expect(verdict(conflist(SRIOV, `{"type":"tuning","deviceID":"${PCI}","pciBusID":""}`))).toBe('ok');
    // Go reads null and "" as unset: a pciBusID or a metaplugin deviceID left so names no other device.
    expect(verdict(single(`,"deviceID":"${PCI}","pciBusID":""`))).toBe('ok');
    expect(verdict(conflist(SRIOV, '{"type":"tuning","deviceID":null,"pciBusID":null}'))).toBe('ok');
  });

  it('passes every configuration the shared render fixtures freeze, for its allocated VF', () => {
    const rendered = loadFixtures('render').filter(expectsValid);
    expect(rendered.length).toBeGreaterThan(10);
    for (const fixture of rendered) {
      const bytes = fixture.expect['bytes'];
      // The allocation as the driver states it in the binding: canonical (one fixture spells it pci:0000:3B:02.7).
      const pci = (fixture.input as { pciAddress: string }).pciAddress.replace(/^pci:/, '').toLowerCase();
      if (typeof bytes !== 'string' || !isPciAddress(pci)) throw new Error(`fixture ${fixture.id} states no bytes or a canonical PCI`);
      expect([fixture.id, verdict(bytes, pci)]).toEqual([fixture.id, 'ok']);
    }
  });

  it.each([
    ['two sriov entries', conflist(SRIOV, SRIOV), 'has 2 sriov plugin entries; a shadow hands its one VF to exactly one'],
    ['no sriov entry', conflist('{"type":"tuning"}'), 'has 0 sriov plugin entries'],
    ['a metaplugin off the allowlist', conflist(SRIOV, '{"type":"bridge"}'), 'chains "bridge" at plugins[1]; only tuning may follow sriov'],
    ['sriov after a metaplugin', conflist('{"type":"tuning"}', SRIOV), 'starts with "tuning"; the sriov entry must come first'],
    ['a single plugin other than sriov', '{"cniVersion":"1.0.0","name":"r","type":"macvlan"}', 'is a single "macvlan" plugin, not sriov'],
    ['a root type beside plugins', `{"cniVersion":"1.0.0","name":"r","type":"sriov","deviceID":"${PCI}","plugins":[${SRIOV}]}`, 'has both a root type'],
    ['an empty plugins list', conflist(), 'has neither a root type nor a nonempty plugins list'],
    ['the deviceID of another VF', single(',"deviceID":"0000:03:00.2"'), 'hands the sriov plugin deviceID "0000:03:00.2", not the bound VF 0000:03:00.1'],
    ['an escaped deviceID of another VF', single(',"deviceID":"0000:03:00.\\u0032"'), 'deviceID "0000:03:00.2", not the bound VF'],
    ['no deviceID', single(''), 'hands the sriov plugin deviceID missing'],
    ['a numeric deviceID', single(',"deviceID":1'), 'hands the sriov plugin deviceID 1'],
    ['a pciBusID of another VF', single(`,"deviceID":"${PCI}","pciBusID":"0000:03:00.2"`), 'names pciBusID "0000:03:00.2" at the sriov plugin'],
    [
      'a metaplugin naming another VF',
      conflist(SRIOV, '{"type":"tuning","pciBusID":"0000:03:00.2"}'),
      'names plugins[1].pciBusID "0000:03:00.2", which disagrees',
    ],
    [
      'a conflist root naming another VF',
      `{"cniVersion":"1.0.0","name":"r","deviceID":"0000:03:00.2","plugins":[${SRIOV}]}`,
      'names at its root deviceID "0000:03:00.2"',
    ],
    ['deviceID spelled as Go folds it', single(`,"DeviceID":"${PCI}"`), 'spells deviceID as "DeviceID"'],
    ['type spelled as Go folds it', conflist(`{"Type":"sriov","deviceID":"${PCI}"}`), 'spells plugins[0].type as "Type"'],
    ['a folded duplicate of deviceID', single(`,"deviceID":"${PCI}","DEVICEID":"0000:03:00.2"`), 'is not strict JSON (duplicate-key)'],
    ['an exact duplicate key', single(`,"deviceID":"${PCI}","deviceID":"${PCI}"`), 'is not strict JSON (duplicate-key)'],
    ['a number beyond float64', single(`,"deviceID":"${PCI}","mtu":1e400`), 'is not strict JSON (number-range)'],
    ['malformed JSON', '{"cniVersion":', 'is not strict JSON (syntax)'],
    ['an array root', `[${SRIOV}]`, 'is not a JSON object'],
    ['a root type spelled as Go folds it', `{"cniVersion":"1.0.0","name":"r","Type":"sriov","deviceID":"${PCI}"}`, 'spells type as "Type"'],
    ['plugins spelled as Go folds it', `{"cniVersion":"1.0.0","name":"r","Plugins":[${SRIOV}]}`, 'spells plugins as "Plugins"'],
    ['a conflist deviceID spelled as Go folds it', conflist(`{"type":"sriov","DeviceID":"${PCI}"}`), 'spells plugins[0].deviceID as "DeviceID"'],
    ['pciBusID spelled as Go folds it', single(`,"deviceID":"${PCI}","PCIBusID":"${PCI}"`), 'spells pciBusID as "PCIBusID"'],
    ['a metaplugin field spelled as Go folds it', conflist(SRIOV, `{"type":"tuning","DeviceID":"${PCI}"}`), 'spells plugins[1].deviceID as "DeviceID"'],
    ['a plugin that is not an object', conflist(SRIOV, '"tuning"'), 'plugins[1] is not an object'],
    ['a plugin type that is not a name', conflist(SRIOV, '{"type":7}'), 'plugins[1].type is 7, not a plugin name'],
  ])('refuses %s', (_case, config, message) => {
    const result = verdict(config);
    expect(result.startsWith('ManagedShadowMismatch: spec.config ')).toBe(true);
    expect(result).toContain(message);
  });
});

describe('checkShadowSemantics refusals', () => {
  it('name the shadow and tell the operator how to recover', () => {
    const result = checkShadowSemantics(single(',"deviceID":"0000:03:00.2"'), PCI, object);
    expect(result.ok ? 'accepted' : [result.error.object, result.error.remedy]).toEqual([
      object,
      'the shadow no longer carries a configuration the driver renders: recreate the Pod so the driver binds its VF again, and stop other writers from editing driver-owned NADs',
    ]);
  });
});
