import {
  type JsonObject,
  type JsonValue,
  type RegistryEntry,
  JsonNumber,
  annotations,
  isJsonObject,
  isSriovDraError,
  parseStrictJson,
  serializeJson,
} from '@sriov-dra/contract';
import fc from 'fast-check';
import { type MergeInput, mergeManagedSelections } from '../src/selections/merge.ts';
import { parseNetworkSelections } from '../src/selections/parse.ts';
import { serializeNetworkSelections } from '../src/selections/serialize.ts';
import { renderShadowConfig } from '../src/shadow-config.ts';
import { jsonValue, pciAddress, sourceConfig } from './arbitraries.ts';
import { CLAIM_A, CLAIM_B, POD, managed } from './managed.ts';

const nad = (config: string) => ({ metadata: { name: 'rail-a-net', namespace: 'ai-workloads' }, spec: { config } });

/** Calls `run`; anything thrown other than a typed SriovDraError fails the property. */
function typedOnly(run: () => unknown): void {
  try {
    run();
  } catch (error) {
    if (!isSriovDraError(error)) throw error;
  }
}

const desiredPool = [
  managed(CLAIM_A, '0000-03-00-1', 'dra0', 'rail-a-net'),
  managed(CLAIM_A, '0000-83-00-1', 'dra1', 'rail-b-net'),
  managed(CLAIM_B, '0000-03-00-2', 'dra2', 'rail-c-net'),
];
const desired = fc.subarray(desiredPool);

/**
 * Foreign selections a user could have written, as exact JSON text: names never collide with templates
 * or shadows; options Multus reads (ips, mac) and fields unknown to it, nested and with numbers float64
 * cannot hold, ride along.
 */
const foreignSelection = fc
  .record({
    name: fc.stringMatching(/^net-[a-z0-9]{1,8}$/),
    namespace: fc.option(fc.constantFrom('ai-workloads', 'infra'), { nil: undefined }),
    interface: fc.option(fc.stringMatching(/^eth[1-9]$/), { nil: undefined }),
    ips: fc.option(fc.constantFrom(['192.0.2.9/24'], ['2001:db8::7', '198.51.100.1']), { nil: undefined }),
    mac: fc.option(fc.constantFrom('02:00:00:00:00:01', '0A-1B-2C-3D-4E-5F'), { nil: undefined }),
    extra: fc.option(jsonValue, { nil: undefined }),
  })
  .map(({ name, namespace, interface: iface, ips, mac, extra }) => {
    const entry: JsonObject = new Map<string, JsonValue>([['name', name]]);
    if (namespace !== undefined) entry.set('namespace', namespace);
    if (iface !== undefined) entry.set('interface', iface);
    if (ips !== undefined) entry.set('ips', [...ips]);
    if (mac !== undefined) entry.set('mac', mac);
    if (extra !== undefined) entry.set('x-extra', extra);
    return { interface: iface, text: serializeJson(entry) };
  });
const foreignList = fc
  .uniqueArray(foreignSelection, { maxLength: 5, selector: (selection) => selection.interface ?? Symbol() })
  .map((selections) => selections.map((selection) => selection.text));

const networksOf = (texts: readonly string[]): Record<string, string> => (texts.length === 0 ? {} : { [annotations.networks]: `[${texts.join(',')}]` });

/** The texts a merge must publish for managed entries, written out rather than produced by the code under test. */
const selectionText = (entry: RegistryEntry): string => `{"name":"${entry.name}","namespace":"${entry.namespace}","interface":"${entry.interface}"}`;
const registryText = (entries: readonly RegistryEntry[]): string =>
  `{"version":1,"podUID":"${POD.uid}","entries":[${entries
    .map(
      (entry) =>
        `{"attachmentID":"${entry.attachmentID}","claimUID":"${entry.claimUID}","namespace":"${entry.namespace}","name":"${entry.name}","uid":"${entry.uid}","interface":"${entry.interface}","configSHA256":"${entry.configSHA256}"}`,
    )
    .join(',')}]}`;

/** Equal JSON values; object key order aside, since a render may reorder keys (§7 step 8). */
function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a instanceof JsonNumber || b instanceof JsonNumber) return a instanceof JsonNumber && b instanceof JsonNumber && a.raw === b.raw;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, index) => sameJson(item, b[index]));
  }
  if (isJsonObject(a) || isJsonObject(b)) {
    return isJsonObject(a) && isJsonObject(b) && a.size === b.size && [...a].every(([key, value]) => b.has(key) && sameJson(value, b.get(key)));
  }
  return a === b;
}

/** `object` without the given keys. */
function without(object: JsonObject, ...keys: string[]): JsonObject {
  return new Map([...object].filter(([key]) => !keys.includes(key)));
}

function mergeOnce(input: MergeInput): Record<string, string> {
  const result = mergeManagedSelections(input);
  if (!result.ok) throw result.error;
  const out = Object.fromEntries(
    Object.entries(input.pod.annotations ?? {}).filter(([key]) => key !== annotations.networks && key !== annotations.managedNetworks),
  );
  if (result.value.networks !== null) out[annotations.networks] = result.value.networks;
  if (result.value.registry !== null) out[annotations.managedNetworks] = result.value.registry;
  return out;
}

/** Each property, checked with the given number of runs (10^4 in tests, 10^6 in npm run fuzz). */
export const properties: Record<string, (numRuns: number) => void> = {
  'strict JSON: serialize(parse(serialize(v))) is stable and lossless': (numRuns) => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        const text = serializeJson(value);
        const parsed = parseStrictJson(text);
        if (!parsed.ok) throw new Error(parsed.error.message);
        if (serializeJson(parsed.value) !== text) throw new Error('not lossless');
      }),
      { numRuns },
    );
  },
  'render is stable on its own output': (numRuns) => {
    fc.assert(
      fc.property(sourceConfig, pciAddress, (config, pci) => {
        const first = renderShadowConfig(nad(serializeJson(config)), pci);
        if (!first.ok) throw first.error;
        const second = renderShadowConfig(nad(first.value.bytes), pci);
        if (!second.ok) throw second.error;
        if (second.value.bytes !== first.value.bytes || second.value.sha256 !== first.value.sha256) throw new Error('render is not stable');
      }),
      { numRuns },
    );
  },
  'render changes only deviceID on the sriov entry and a missing name; IPAM and everything else are kept': (numRuns) => {
    fc.assert(
      fc.property(sourceConfig, pciAddress, (config, pci) => {
        const rendered = renderShadowConfig(nad(serializeJson(config)), pci);
        if (!rendered.ok) throw rendered.error;
        const output = parseStrictJson(rendered.value.bytes);
        if (!output.ok || !isJsonObject(output.value)) throw new Error(`rendered bytes are not a JSON object: ${rendered.value.bytes}`);
        const root = output.value;
        // The NAD is named rail-a-net; a source without a name takes that one (§7 step 3).
        const expectedName = config.get('name') ?? 'rail-a-net';
        if (root.get('name') !== expectedName) throw new Error(`name ${serializeJson(root.get('name') ?? null)}, expected ${serializeJson(expectedName)}`);
        const sourcePlugins = config.get('plugins');
        const sourceSriov = Array.isArray(sourcePlugins) ? sourcePlugins[0] : config;
        const plugins = root.get('plugins');
        const sriov = Array.isArray(plugins) ? plugins[0] : root;
        if (!isJsonObject(sourceSriov) || !isJsonObject(sriov)) throw new Error('no sriov entry');
        if (sriov.get('deviceID') !== pci) throw new Error(`deviceID ${serializeJson(sriov.get('deviceID') ?? null)}, expected ${pci}`);
        if (!sameJson(sriov.get('ipam'), sourceSriov.get('ipam'))) throw new Error('the IPAM subtree changed');
        if (!sameJson(without(sriov, 'deviceID', 'name'), without(sourceSriov, 'name'))) throw new Error('the sriov entry changed beyond deviceID');
        if (Array.isArray(sourcePlugins)) {
          // A conflist: the root and every metaplugin are untouched, so no deviceID reaches them.
          if (!Array.isArray(plugins) || !sameJson(plugins.slice(1), sourcePlugins.slice(1))) throw new Error('a metaplugin changed');
          if (!sameJson(without(root, 'plugins', 'name'), without(config, 'plugins', 'name'))) throw new Error('the conflist root changed');
        }
      }),
      { numRuns },
    );
  },
  'merge is idempotent': (numRuns) => {
    fc.assert(
      fc.property(foreignList, desired, (foreign, wanted) => {
        const once = mergeOnce({ pod: { ...POD, annotations: networksOf(foreign) }, desired: wanted });
        const again = mergeManagedSelections({ pod: { ...POD, annotations: once }, desired: wanted });
        if (!again.ok || again.value.changed) throw new Error('second merge changed something');
      }),
      { numRuns },
    );
  },
  'merge keeps foreign entries verbatim and in order, and publishes exactly the managed entries': (numRuns) => {
    fc.assert(
      fc.property(foreignList, desired, desired, (foreign, first, second) => {
        const merged = mergeOnce({
          pod: { ...POD, annotations: { other: 'kept', ...mergeOnce({ pod: { ...POD, annotations: networksOf(foreign) }, desired: first }) } },
          desired: second,
          releasedClaims: [],
        });
        // Attachments no longer desired but not released stay (§9 rule 7); new ones follow in desired order.
        const managedEntries = [...first, ...second.filter((selection) => !first.includes(selection))].map((selection) => selection.entry);
        const expected: Record<string, string> = { other: 'kept', ...networksOf([...foreign, ...managedEntries.map(selectionText)]) };
        if (managedEntries.length > 0) expected[annotations.managedNetworks] = registryText(managedEntries);
        if (JSON.stringify(merged) !== JSON.stringify(expected)) throw new Error(`published ${JSON.stringify(merged)}, expected ${JSON.stringify(expected)}`);
      }),
      { numRuns },
    );
  },
  'merge releasing a claim drops exactly its entries': (numRuns) => {
    fc.assert(
      fc.property(foreignList, desired, fc.constantFrom(CLAIM_A, CLAIM_B), (foreign, wanted, claim) => {
        const before = mergeOnce({ pod: { ...POD, annotations: networksOf(foreign) }, desired: wanted });
        const remaining = wanted.filter((selection) => selection.entry.claimUID !== claim);
        const after = mergeOnce({ pod: { ...POD, annotations: before }, desired: remaining, releasedClaims: [claim] });
        const expected = networksOf([...foreign, ...remaining.map((selection) => selectionText(selection.entry))]);
        if (remaining.length > 0) expected[annotations.managedNetworks] = registryText(remaining.map((selection) => selection.entry));
        if (JSON.stringify(after) !== JSON.stringify(expected)) throw new Error(`published ${JSON.stringify(after)}, expected ${JSON.stringify(expected)}`);
      }),
      { numRuns },
    );
  },
  'parse∘serialize is the identity on valid selections': (numRuns) => {
    fc.assert(
      fc.property(foreignList, (foreign) => {
        const raw = `[${foreign.join(',')}]`;
        const parsed = parseNetworkSelections(raw, POD.namespace);
        if (!parsed.ok) throw parsed.error;
        const text = serializeNetworkSelections(parsed.value);
        if (text !== raw) throw new Error(`serialize changed ${raw} into ${text}`);
        const again = parseNetworkSelections(text, POD.namespace);
        if (!again.ok || serializeNetworkSelections(again.value) !== text) throw new Error('not stable');
      }),
      { numRuns },
    );
  },
  'arbitrary text never produces an untyped exception': (numRuns) => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.string({ unit: 'binary' })), pciAddress, (text, pci) => {
        typedOnly(() => parseStrictJson(text));
        typedOnly(() => renderShadowConfig(nad(text), pci));
        typedOnly(() => renderShadowConfig(nad('{"cniVersion":"1.0.0","type":"sriov"}'), text));
        typedOnly(() => parseNetworkSelections(text, POD.namespace));
        typedOnly(() =>
          mergeManagedSelections({ pod: { ...POD, annotations: { [annotations.networks]: text, [annotations.managedNetworks]: text } }, desired: desiredPool }),
        );
      }),
      { numRuns },
    );
  },
};
