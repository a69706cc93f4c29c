// Adversarial inputs for the differential tests, built as text: duplicate keys, key spellings that
// encoding/json folds onto a struct field (case variants, K U+212A KELVIN SIGN ~ k, ſ U+017F LONG S ~ s),
// \u escapes inside keys, number forms float64 cannot hold, and the comma notation's corners. Most
// inputs stay close to valid so that both sides accept them and the decoded values are compared.
import fc from 'fast-check';
import { type CniCase, MERGE_POOL, type MergeCase, type SelectionsCase } from './compare.ts';

type Entry = readonly [key: string, value: string];

const str = (value: string): string => JSON.stringify(value);

function flipCase(text: string, flips: readonly boolean[]): string {
  return Array.from(text, (char, index) => (flips[index] === true ? (char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase()) : char)).join('');
}

/** Folds encoding/json applies but exact-key readers do not: k/K → KELVIN SIGN, s/S → LONG S. */
function unicodeFold(text: string, picks: readonly boolean[]): string {
  return Array.from(text, (char, index) => {
    if (picks[index] !== true) return char;
    if (char === 'k' || char === 'K') return '\u212a';
    if (char === 's' || char === 'S') return '\u017f';
    return char;
  }).join('');
}

/** The key as a JSON string literal with one character written as a \u escape (same key, other text). */
function escapeOne(text: string, at: number): string {
  const index = at % text.length;
  const code = text.charCodeAt(index).toString(16).padStart(4, '0');
  return `"${JSON.stringify(text.slice(0, index)).slice(1, -1)}\\u${code}${JSON.stringify(text.slice(index + 1)).slice(1, -1)}"`;
}

/** A JSON key literal for `key`: usually exact, sometimes another spelling that may or may not fold onto it. */
export function keyText(key: string): fc.Arbitrary<string> {
  const flags = fc.array(fc.boolean(), { minLength: key.length, maxLength: key.length });
  return fc.oneof(
    { weight: 60, arbitrary: fc.constant(str(key)) },
    { weight: 2, arbitrary: flags.map((flips) => str(flipCase(key, flips))) },
    { weight: 1, arbitrary: fc.constant(str(key.toUpperCase())) },
    { weight: 1, arbitrary: fc.constant(str(key.toLowerCase())) },
    { weight: 1, arbitrary: flags.map((picks) => str(unicodeFold(key, picks))) },
    { weight: 2, arbitrary: fc.nat().map((at) => escapeOne(key, at)) },
  );
}

const NUMBERS = [
  '0',
  '-0',
  '5',
  '9000',
  '9000.0',
  '1.0',
  '1E+2',
  '1e3',
  '0.1',
  '12345678901234567890',
  '-12345678901234567890',
  '1e308',
  '1e400',
  '-1e400',
  '1e-400',
];
export const numberText = fc.constantFrom(...NUMBERS);

const scalarText = fc.oneof(
  numberText,
  fc.constantFrom('true', 'false', 'null', '""', '"on"', '"x"', '"\\u0041"', '"\u00e9"', '"a\\"b"'),
  fc.string({ maxLength: 8 }).map(str),
);

const valueText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    scalarText,
    fc.array(tie('value'), { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
    fc.array(fc.tuple(fc.string({ maxLength: 6 }).map(str), tie('value')), { maxLength: 3 }).map((entries) => object(entries)),
  ),
})).value;

function object(entries: readonly Entry[], space = ''): string {
  return `{${entries.map(([key, value]) => `${space}${key}:${space === '' ? '' : ' '}${value}`).join(',')}${space === '' ? '' : '\n'}}`;
}

/** Entries in a random order, so that which of two folded keys comes last varies. */
function shuffled(entries: fc.Arbitrary<Entry[]>): fc.Arbitrary<Entry[]> {
  return entries.chain((list) =>
    fc.array(fc.nat(), { minLength: list.length, maxLength: list.length }).map((order) =>
      list
        .map((entry, index) => [order[index] ?? 0, index, entry] as const)
        .sort((a, b) => a[0] - b[0] || a[1] - b[1])
        .map(([, , entry]) => entry),
    ),
  );
}

/** The value in `percent` of the cases, otherwise absent. */
const optional = <T>(arbitrary: fc.Arbitrary<T>, percent: number): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: percent, arbitrary }, { weight: 100 - percent, arbitrary: fc.constant(undefined) });

const entry = (key: string, value: fc.Arbitrary<string>): fc.Arbitrary<Entry> => fc.tuple(keyText(key), value);

const PCI = '0000:03:00.1';
const deviceIdValue = fc.oneof(
  { weight: 3, arbitrary: fc.constant(str('')) },
  { weight: 2, arbitrary: fc.constant(str(PCI)) },
  { weight: 3, arbitrary: fc.constant(str('0000:99:00.1')) },
  { weight: 1, arbitrary: fc.constantFrom(str('pci:0000:03:00.1'), str('03:00.1'), '5', 'null', str('0000:03:00.1 ')) },
);

/** Extra keys of a device-plugin object: sriov-cni fields (several untagged), tuning fields, CNI fields. */
const pluginExtra: fc.Arbitrary<Entry> = fc.oneof(
  entry('mtu', fc.oneof(numberText, fc.constant('"9000"'))),
  entry('vlan', fc.oneof(numberText, fc.constant('"100"'))),
  entry('vlanQoS', numberText),
  entry('vlanProto', fc.constantFrom('"802.1q"', '"802.1ad"', '5')),
  entry('spoofchk', fc.constantFrom('"on"', '"off"', 'true')),
  entry('trust', fc.constantFrom('"on"', '"off"', '1')),
  entry('min_tx_rate', numberText),
  entry('max_tx_rate', numberText),
  entry('link_state', fc.constantFrom('"auto"', '"enable"', '5')),
  entry('MAC', fc.constantFrom('"aa:bb:cc:dd:ee:ff"', '5')),
  entry('Master', fc.constantFrom('"ens1f0"', '[]')),
  entry('VFID', fc.constantFrom('3', '"3"', '3.0')),
  entry('OrigVfState', fc.constantFrom('{}', '{"Vlan":1}', '"x"')),
  entry('logLevel', fc.constantFrom('"debug"', '5')),
  entry('dns', fc.constantFrom('{}', '{"nameservers":["192.0.2.53"]}', '"x"', '[]')),
  entry('capabilities', fc.constantFrom('{"mac":true}', '{"ips":true,"deviceID":true}', '{"mac":"yes"}', '[]')),
  entry('runtimeConfig', fc.constantFrom('{}', '{"mac":"aa:bb:cc:dd:ee:ff"}', '"x"')),
  entry('args', fc.constantFrom('{}', '{"cni":{"mtu":1500}}', '"x"')),
  entry('sysctl', fc.constantFrom('{"net.ipv4.conf.all.arp_notify":"1"}', '{"a":1}')),
  entry('prevResult', fc.constantFrom('{}', '"x"')),
  fc.tuple(fc.string({ maxLength: 6 }).map(str), valueText),
);

const ipamText: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 8,
    arbitrary: shuffled(
      fc
        .tuple(
          optional(entry('type', fc.constantFrom('"host-local"', '"whereabouts"', '"static"', '""', '5')), 90),
          optional(entry('range', fc.constantFrom('"192.0.2.0/24"', '"2001:db8::/64"')), 40),
          optional(entry('network_name', fc.constantFrom('"rail-a"', '""')), 25),
          optional(entry('node_slice_size', fc.constantFrom('"/28"', '""', 'false', 'null', '0')), 8),
          fc.array(fc.oneof(pluginExtra, fc.tuple(fc.constantFrom('"routes"', '"dataDir"', '"gateway"'), valueText)), { maxLength: 2 }),
        )
        .map(([type, range, network, slice, extras]) => [type, range, network, slice, ...extras].filter((item): item is Entry => item !== undefined)),
    ).map((entries) => object(entries)),
  },
  { weight: 1, arbitrary: fc.constantFrom('"host-local"', '[]', 'null', '5', 'true', '{}') },
);

/** A sriov plugin object's entries (for a single-plugin root they merge into the root). */
const sriovEntries: fc.Arbitrary<Entry[]> = fc
  .tuple(
    entry(
      'type',
      fc.oneof({ weight: 12, arbitrary: fc.constant('"sriov"') }, { weight: 1, arbitrary: fc.constantFrom('"SRIOV"', '"\u017friov"', '"tuning"', '""', '5') }),
    ),
    optional(
      fc.tuple(
        fc.oneof({ weight: 4, arbitrary: keyText('deviceID') }, { weight: 1, arbitrary: fc.constantFrom('"deviceid"', '"DeviceID"', '"deviceId"') }),
        deviceIdValue,
      ),
      35,
    ),
    optional(entry('pciBusID', deviceIdValue), 15),
    optional(entry('ipam', ipamText), 70),
    fc.array(pluginExtra, { maxLength: 3 }),
  )
  .map(([type, device, bus, ipam, extras]) => [type, device, bus, ipam, ...extras].filter((item): item is Entry => item !== undefined));

/** A second entry for a key already present: exact duplicate or a spelling that folds onto it. */
const duplicateEntry: fc.Arbitrary<Entry> = fc.oneof(
  fc.tuple(fc.constantFrom('"deviceID"', '"DeviceID"', '"deviceid"', '"DEVICEID"', '"device\\u0049D"'), deviceIdValue),
  fc.tuple(fc.constantFrom('"type"', '"Type"', '"TYPE"', '"\\u0074ype"'), fc.constantFrom('"sriov"', '"tuning"', '"macvlan"')),
  fc.tuple(fc.constantFrom('"ipam"', '"IPAM"', '"Ipam"'), ipamText),
  fc.tuple(fc.constantFrom('"name"', '"Name"', '"NAME"'), fc.constantFrom('"rail-a"', '"other"', '""')),
  fc.tuple(
    fc.constantFrom('"cniVersion"', '"CNIVersion"', '"cniver\\u017fion"', '"cniVer\u017fion"'),
    fc.constantFrom('"1.0.0"', '"0.4.0"', '"0.3.1"', '"9.9.9"'),
  ),
);

const tuningEntries: fc.Arbitrary<Entry[]> = fc
  .tuple(
    entry(
      'type',
      fc.oneof({ weight: 10, arbitrary: fc.constant('"tuning"') }, { weight: 1, arbitrary: fc.constantFrom('"sriov"', '"bridge"', '"host-device"', '""') }),
    ),
    fc.array(pluginExtra, { maxLength: 2 }),
    optional(fc.tuple(keyText('deviceID'), deviceIdValue), 5),
  )
  .map(([type, extras, device]) => [type, ...extras, device].filter((item): item is Entry => item !== undefined));

const rootCommon: fc.Arbitrary<Entry[]> = fc
  .tuple(
    optional(
      entry(
        'cniVersion',
        fc.oneof(
          { weight: 8, arbitrary: fc.constantFrom('"1.0.0"', '"0.4.0"', '"1.1.0"') },
          { weight: 1, arbitrary: fc.constantFrom('"0.3.1"', '""', '"2.0.0"', '1', '"1.0"', '"01.0.0"') },
        ),
      ),
      93,
    ),
    optional(
      entry(
        'name',
        fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom('"rail-a"', '"ai-workloads-rail-a"') },
          { weight: 1, arbitrary: fc.constantFrom('""', '"bad name"', '"Rail_A.1"', '5', '"-x"') },
        ),
      ),
      65,
    ),
    optional(
      fc.oneof(
        entry('cniVersions', fc.constantFrom('["1.0.0"]', '["0.4.0","1.1.0"]', '["9.9.9"]', '"1.0.0"', '[1]')),
        entry('disableCheck', fc.constantFrom('true', '"true"', '"TRUE"', '"yes"', '5')),
        entry('disableGC', fc.constantFrom('false', '"maybe"')),
        entry('loadOnlyInlinedPlugins', fc.constantFrom('true', '"false"', '1')),
      ),
      10,
    ),
  )
  .map((entries) => entries.filter((item): item is Entry => item !== undefined));

/** Occasionally one more entry for an existing key, placed anywhere. */
function withDuplicates(entries: fc.Arbitrary<Entry[]>): fc.Arbitrary<Entry[]> {
  return shuffled(
    fc
      .tuple(entries, fc.oneof({ weight: 7, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(duplicateEntry, { minLength: 1, maxLength: 2 }) }))
      .map(([a, b]) => [...a, ...b]),
  );
}

const space = fc.constantFrom('', '', '', '\n  ');

const singleConfig: fc.Arbitrary<string> = fc
  .tuple(withDuplicates(fc.tuple(rootCommon, sriovEntries).map(([a, b]) => [...a, ...b])), space)
  .map(([entries, ws]) => object(entries, ws));

const pluginList: fc.Arbitrary<string> = fc
  .tuple(
    withDuplicates(sriovEntries),
    fc.array(withDuplicates(tuningEntries), { maxLength: 2 }),
    fc.oneof(
      { weight: 12, arbitrary: fc.constant([]) },
      { weight: 1, arbitrary: fc.constantFrom(['5'], ['null'], ['[]'], ['{"type":"sriov"}'], ['{"TYPE":"tuning"}']) },
    ),
  )
  .map(([sriov, tunings, odd]) => `[${[object(sriov), ...tunings.map((tuning) => object(tuning)), ...odd].join(',')}]`);

const confListConfig: fc.Arbitrary<string> = fc
  .tuple(
    withDuplicates(
      fc
        .tuple(
          rootCommon,
          fc.tuple(
            fc.oneof(
              { weight: 12, arbitrary: fc.constant('"plugins"') },
              { weight: 1, arbitrary: fc.constantFrom('"Plugins"', '"plugin\u017f"', '"PLUGINS"') },
            ),
            pluginList,
          ),
          optional(fc.oneof(entry('deviceID', deviceIdValue), entry('type', fc.constantFrom('""', '"sriov"')), entry('ipam', ipamText)), 8),
        )
        .map(([common, plugins, extra]) => [...common, plugins, ...(extra === undefined ? [] : [extra])]),
    ),
    space,
  )
  .map(([entries, ws]) => object(entries, ws));

export const cniCase: fc.Arbitrary<CniCase> = fc
  .record({
    config: fc.oneof(
      { weight: 8, arbitrary: singleConfig },
      { weight: 8, arbitrary: confListConfig },
      {
        weight: 1,
        arbitrary: fc.constantFrom('', ' ', 'null', '[]', '"x"', '{}', '{"cniVersion":"1.0.0","type":"sriov"', '{"cniVersion":"1.0.0","type":"sriov"} x'),
      },
    ),
    pci: fc.oneof({ weight: 6, arbitrary: fc.constant(PCI) }, { weight: 1, arbitrary: fc.constantFrom('0000:AF:1F.7', 'pci:0000:03:00.2', ' 0000:03:00.1') }),
  })
  .map(({ config, pci }) => ({ kind: 'cni', config, pci, nadName: 'rail-a-net', nadNamespace: 'ai-workloads' }));

// Networks annotation.

const NAMES = [
  'net-a',
  'rail-a-net',
  'a',
  'a1',
  '1a',
  'A',
  'Net',
  'net.a',
  'net_a',
  '-a',
  'a-',
  '',
  ' a',
  'a b',
  'x'.repeat(64),
  'x'.repeat(254),
  '\u017f',
  'null',
  'default',
];
const NAMESPACES = ['ai-workloads', 'default', 'kube-system', '', 'AI', 'ns.a', 'n'.repeat(64), ' ns'];
const INTERFACES = [
  'eth1',
  'net1',
  'dra0',
  '',
  'eth0123456789ab',
  'eth0123456789abc',
  'a b',
  'a/b',
  'a:b',
  '.',
  '..',
  '\u00e9th1',
  'eth\u00e912345678901',
  '\u00a0eth',
  'eth\t1',
  'eth1 ',
];
const MACS = [
  'aa:bb:cc:dd:ee:ff',
  'AA-BB-CC-DD-EE-FF',
  'aabb.ccdd.eeff',
  '00:00:5e:00:53:01:02:03',
  '00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01',
  'aa:bb:cc:dd:ee',
  'zz:bb:cc:dd:ee:ff',
  'aa:bb:cc:dd:ee:ff:',
  'aabb.ccdd.ee',
  '',
  'aa-bb:cc-dd:ee-ff',
  'a:b:c:d:e:f',
];
const IPS = [
  '192.0.2.1',
  '192.0.2.1/24',
  '192.0.2.1/99',
  '192.0.2.1/33',
  '2001:db8::1',
  '2001:db8::1/64',
  '2001:db8::1/129',
  '::ffff:192.0.2.1',
  '01.2.3.4',
  '1.2.3',
  'fe80::1%eth0',
  '192.0.2.1/',
  '/24',
  '',
  ' 192.0.2.1',
  '192.0.2.1/024',
  '192.0.2.256',
];

const nameValue = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('"net-a"', '"rail-a-net"') },
  { weight: 2, arbitrary: fc.constantFrom(...NAMES).map(str) },
  { weight: 1, arbitrary: fc.constantFrom('5', 'null', '[]') },
);
const namespaceValue = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...NAMESPACES).map(str) }, { weight: 1, arbitrary: fc.constantFrom('5', 'null') });
const interfaceValue = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('"eth1"', '"dra0"') },
  { weight: 2, arbitrary: fc.constantFrom(...INTERFACES).map(str) },
  { weight: 1, arbitrary: fc.constantFrom('5', 'null') },
);
const macValue = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...MACS).map(str) }, { weight: 1, arbitrary: fc.constantFrom('5', 'null') });
const ipsValue = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.constantFrom(...IPS).map(str), { maxLength: 2 }).map((items) => `[${items.join(',')}]`) },
  { weight: 1, arbitrary: fc.constantFrom('"192.0.2.1"', 'null', '[5]', '[null]') },
);

const selectionEntries: fc.Arbitrary<Entry[]> = fc
  .tuple(
    optional(fc.tuple(keyText('name'), nameValue), 95),
    optional(fc.tuple(keyText('namespace'), namespaceValue), 50),
    optional(fc.tuple(keyText('interface'), interfaceValue), 50),
    optional(fc.tuple(keyText('interfaceRequest'), interfaceValue), 10),
    optional(fc.tuple(keyText('mac'), macValue), 20),
    optional(fc.tuple(keyText('ips'), ipsValue), 20),
    optional(fc.tuple(keyText('infiniband-guid'), macValue), 8),
    fc.array(
      fc.oneof(
        entry('deviceID', fc.constantFrom('"0000:03:00.1"', '5')),
        entry('cni-args', fc.constantFrom('{"a":"b"}', '{}', 'null', '"x"', '{"n":1e400}')),
        entry('default-route', fc.constantFrom('["192.0.2.254"]', '["x"]', '[]', '"192.0.2.254"')),
        entry('portMappings', fc.constantFrom('[{"hostPort":8080,"containerPort":80}]', '[{"hostPort":"x"}]')),
        entry('bandwidth', fc.constantFrom('{"ingressRate":1}', '{"ingressRate":1.5}', '"x"')),
        fc.tuple(fc.constantFrom('"x-extra"', '"Name"', '"NAMESPACE"', '"Interface"', '"MAC"', '"IPs"', '"name\u017fpace"'), valueText),
      ),
      { maxLength: 2 },
    ),
  )
  .map(([name, namespace, iface, request, mac, ips, guid, extras]) =>
    [name, namespace, iface, request, mac, ips, guid, ...extras].filter((item): item is Entry => item !== undefined),
  );

const selectionElement = fc.oneof(
  { weight: 20, arbitrary: shuffled(selectionEntries).map((entries) => object(entries)) },
  { weight: 1, arbitrary: fc.constantFrom('null', '"net-a"', '5', '[]') },
);

const jsonSelections = fc.oneof(
  { weight: 12, arbitrary: fc.tuple(fc.array(selectionElement, { maxLength: 3 }), space).map(([elements, ws]) => `${ws}[${elements.join(`,${ws}`)}]${ws}`) },
  { weight: 1, arbitrary: fc.constantFrom('{"name":"net-a"}', '"net-a"', '[', '[{"name":"net-a"}] x', 'null', '[]') },
);

const commaPart = (pool: readonly string[]) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('net-a', 'rail-a-net', 'a') },
    { weight: 2, arbitrary: fc.constantFrom(...pool.filter((item) => !/[[{"]/.test(item))) },
  );
/** Padding, including characters only one of Go's strings.TrimSpace and JavaScript's trim() removes. */
const pad = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom('', '', '', ' ', '\t', '  ') },
  { weight: 1, arbitrary: fc.constantFrom('\u00a0', '\ufeff', '\u0085', '\u2028', '\u3000', '\u200b', '\v') },
);

const commaItem = fc
  .tuple(
    pad,
    optional(fc.tuple(commaPart(NAMESPACES), pad), 35),
    commaPart(NAMES),
    pad,
    optional(fc.tuple(commaPart(INTERFACES), pad), 40),
    fc.constantFrom('', '', '', '', '/', '@', '/x', '@y'),
  )
  .map(
    ([lead, namespace, name, mid, iface, odd]) =>
      `${lead}${namespace === undefined ? '' : `${namespace[0]}${namespace[1]}/`}${name}${mid}${iface === undefined ? '' : `@${iface[1]}${iface[0]}`}${odd}`,
  );

const commaSelections = fc.oneof(
  { weight: 12, arbitrary: fc.array(commaItem, { minLength: 1, maxLength: 4 }).map((items) => items.join(',')) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(' ', '\t', '\n', ' \n ', ',', 'a,,b', 'a,', ',a', 'true', '5', '\u0085', '\ufeff', '\u00a0', '\ufeffnet-a', 'net-a\u0085'),
  },
);

export const selectionsCase: fc.Arbitrary<SelectionsCase> = fc
  .tuple(fc.oneof(jsonSelections, commaSelections), fc.constantFrom('ai-workloads', 'ai-workloads', 'default'))
  .map(([text, podNamespace]) => ({ kind: 'selections', text, podNamespace }));

/** An existing annotation (often foreign entries Multus reads in surprising ways) and the entries to add. */
export const mergeCase: fc.Arbitrary<MergeCase> = fc
  .tuple(selectionsCase, fc.subarray(MERGE_POOL.map((_entry, index) => index)))
  .map(([{ text }, desired]) => ({ kind: 'merge', text, desired }));

export const diffCase = fc.oneof({ weight: 4, arbitrary: cniCase }, { weight: 4, arbitrary: selectionsCase }, { weight: 1, arbitrary: mergeCase });
