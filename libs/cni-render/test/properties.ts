import { annotations, isSriovDraError, parseStrictJson, serializeJson } from '@sriov-dra/contract';
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

/** Foreign selections a user could have written: names never collide with templates or shadows. */
const foreignSelection = fc
  .record({
    name: fc.stringMatching(/^net-[a-z0-9]{1,8}$/),
    namespace: fc.option(fc.constantFrom('ai-workloads', 'infra'), { nil: undefined }),
    interface: fc.option(fc.stringMatching(/^eth[1-9]$/), { nil: undefined }),
    extra: fc.option(jsonValue, { nil: undefined }),
  })
  .map(({ name, namespace, interface: iface, extra }) => ({
    name,
    ...(namespace === undefined ? {} : { namespace }),
    ...(iface === undefined ? {} : { interface: iface }),
    ...(extra === undefined ? {} : { 'x-extra': serializeJson(extra) }),
  }));
const foreignList = fc.uniqueArray(foreignSelection, { maxLength: 5, selector: (selection) => selection.interface ?? Symbol() });

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
  'merge is idempotent': (numRuns) => {
    fc.assert(
      fc.property(foreignList, desired, (foreign, wanted) => {
        const start: Record<string, string> = foreign.length === 0 ? {} : { [annotations.networks]: JSON.stringify(foreign) };
        const once = mergeOnce({ pod: { ...POD, annotations: start }, desired: wanted });
        const again = mergeManagedSelections({ pod: { ...POD, annotations: once }, desired: wanted });
        if (!again.ok || again.value.changed) throw new Error('second merge changed something');
      }),
      { numRuns },
    );
  },
  'merge never drops or reorders foreign entries': (numRuns) => {
    fc.assert(
      fc.property(foreignList, desired, desired, (foreign, first, second) => {
        const start: Record<string, string> = foreign.length === 0 ? {} : { [annotations.networks]: JSON.stringify(foreign) };
        const merged = mergeOnce({
          pod: { ...POD, annotations: mergeOnce({ pod: { ...POD, annotations: start }, desired: first }) },
          desired: second,
          releasedClaims: [],
        });
        const selections = JSON.parse(merged[annotations.networks] ?? '[]') as { name: string }[];
        const kept = selections.filter((selection) => !selection.name.startsWith('dra-sriov-'));
        if (JSON.stringify(kept) !== JSON.stringify(foreign)) throw new Error('foreign entries changed');
      }),
      { numRuns },
    );
  },
  'parse∘serialize is the identity on valid selections': (numRuns) => {
    fc.assert(
      fc.property(foreignList, (foreign) => {
        const raw = JSON.stringify(foreign);
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
