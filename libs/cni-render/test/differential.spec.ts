// Differential tests against the real Go code (tools/go-peers: Multus v4.2.3, libcni v1.3.0, plugin-shaped
// structs): the render and generated-selection fixtures (the shared fixtures the Go code has a counterpart
// for), the pinned minimal inputs and a few thousand seeded adversarial inputs go through our render,
// selection parse/serialize and merge, and through the Go peer. The pass rule is in differential/compare.ts,
// the accepted exceptions in differential/accepted.ts. `npm run fuzz` runs 10^5 inputs; DIFFERENTIAL_RUNS
// and DIFFERENTIAL_SEED change this suite's count and seed. Needs the peer binary: `npm run binaries`.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type CniCase, type DiffCase, type TsCniView, type TsMergeView, compare, evaluateTs, goRequests } from './differential/compare.ts';
import { GoPeer, type GoRequest } from '../src/testing/index.ts';
import { PINNED } from './differential/pinned.ts';
import { CIDR_CASES, IP_CASES, MAC_CASES } from './go-net-cases.ts';
import { fixtureCases, formatSummary, generatedCases, runCases } from './differential/run.ts';

const GENERATED = Number(process.env['DIFFERENTIAL_RUNS'] ?? 3_000);
const SEED = Number(process.env['DIFFERENTIAL_SEED'] ?? 20_261_130);

let started: GoPeer | undefined;

beforeAll(async () => {
  // Never skipped: without the peer this suite fails, saying how to build it.
  started = await GoPeer.start();
});

afterAll(async () => {
  await started?.close();
});

const peer = {
  send: (request: GoRequest) => running().send(request),
};

function running(): GoPeer {
  if (started === undefined) throw new Error('the Go peer did not start');
  return started;
}

async function goAnswers(input: DiffCase) {
  const ts = evaluateTs(input);
  return { ts, answers: await Promise.all(goRequests(input, ts).map((request) => peer.send(request))) };
}

describe('the pass rule itself', () => {
  const valid: CniCase = {
    kind: 'cni',
    config: '{"cniVersion":"1.0.0","plugins":[{"type":"sriov","ipam":{"type":"host-local","ranges":[[{"subnet":"192.0.2.0/24"}]]}},{"type":"tuning"}]}',
    pci: '0000:03:00.1',
    nadName: 'rail-a-net',
    nadNamespace: 'ai-workloads',
  };

  it('agrees on a valid conflist', async () => {
    const { ts, answers } = await goAnswers(valid);
    expect(compare(valid, ts, answers).divergences).toEqual([]);
  });

  // A harness that cannot fail proves nothing: feed it our real output with one field altered.
  it.each([
    ['deviceID', (view: TsCniView): TsCniView => ({ ...view, deviceID: '0000:99:00.1' }), 'the sriov deviceID libcni delivers'],
    ['plugin types', (view: TsCniView): TsCniView => ({ ...view, types: ['sriov'] }), 'the executed plugin types'],
    ['IPAM', (view: TsCniView): TsCniView => ({ ...view, ipam: { type: 'host-local' } }), 'the IPAM the sriov plugin delivers'],
    ['name', (view: TsCniView): TsCniView => ({ ...view, name: 'other' }), 'the CNI network name'],
    ['cniVersion', (view: TsCniView): TsCniView => ({ ...view, cniVersion: '0.4.0' }), 'the cniVersion'],
  ])('flags a different %s', async (_field, alter, expected) => {
    const { ts, answers } = await goAnswers(valid);
    if (!ts.ok) throw new Error(ts.message);
    const classes = compare(valid, { ok: true, view: alter(ts.view as TsCniView) }, answers).divergences.map((divergence) => divergence.class);
    expect(classes.some((name) => name.includes(expected))).toBe(true);
  });

  it('flags an input ours accepts and Go rejects, and one ours rejects and Go accepts', async () => {
    const overflow: CniCase = { ...valid, config: valid.config.replace('"tuning"}', '"tuning","x":1e400}') };
    const { ts } = await goAnswers(valid);
    const source = await peer.send({ kind: 'cni', config: overflow.config, nadName: overflow.nadName, nadNamespace: overflow.nadNamespace });
    const classes = compare(overflow, ts, [source, source]).divergences.map((divergence) => divergence.class);
    expect(classes).toEqual(['cni: ours renders, Go rejects the shadow (multus-delegate: a number beyond float64)']);
    const selection: DiffCase = { kind: 'selections', text: '[{"name":"net-a"}]', podNamespace: 'ai-workloads' };
    const { answers } = await goAnswers(selection);
    expect(compare(selection, { ok: false, code: 'MalformedNetworkSelections', message: 'altered' }, answers).divergences).toHaveLength(1);
  });

  it('flags a merged annotation Multus reads differently', async () => {
    const merge: DiffCase = { kind: 'merge', text: 'infra/net-a@eth1', desired: [0, 2] };
    const { ts, answers } = await goAnswers(merge);
    if (!ts.ok) throw new Error(ts.message);
    expect(compare(merge, ts, answers).divergences).toEqual([]);
    const view = ts.view as TsMergeView;
    const altered: TsMergeView = { ...view, expected: view.expected.map((tuple, index) => (index === 1 ? { ...tuple, interface: 'dra9' } : tuple)) };
    expect(compare(merge, { ok: true, view: altered }, answers).divergences).toHaveLength(1);
  });
});

describe('differential: our code against the real Go decoders', () => {
  it('agrees on every shared fixture', async () => {
    const summary = await runCases(
      running(),
      fixtureCases().map((fixture) => fixture.input),
    );
    expect(summary.cases).toBeGreaterThanOrEqual(40);
    if (summary.divergences.size > 0) throw new Error(formatSummary(summary));
  });

  it('agrees on the pinned inputs', async () => {
    const summary = await runCases(running(), PINNED);
    if (summary.divergences.size > 0) throw new Error(formatSummary(summary));
  });

  it(`agrees on ${GENERATED} generated adversarial inputs (seed ${SEED})`, async () => {
    const summary = await runCases(running(), generatedCases(GENERATED, SEED));
    expect(summary.cases).toBeGreaterThan(GENERATED * 0.99);
    if (summary.divergences.size > 0) throw new Error(`seed ${SEED}: ${formatSummary(summary)}`);
  }, 120_000);
});

// The address table the go-net unit tests use, checked row by row against Multus's own validation of a
// selection's mac and ips (net.ParseMAC; net.ParseCIDR for an entry with "/", else net.ParseIP).
describe("Go's verdict on the address table", () => {
  async function goAccepts(element: Record<string, unknown>): Promise<boolean> {
    const answer = await peer.send({ kind: 'selections', text: JSON.stringify([{ name: 'net-a', ...element }]), podNamespace: 'ai-workloads' });
    return answer.ok;
  }

  // Multus validates a mac only when one is given, so the empty row cannot be asked this way.
  it.each(MAC_CASES.filter(([text]) => text !== ''))('net.ParseMAC(%j) succeeds: %s', async (text, valid) => {
    expect(await goAccepts({ mac: text })).toBe(valid);
  });

  it.each(IP_CASES.filter(([text]) => !text.includes('/')))('net.ParseIP(%j) succeeds: %s', async (text, valid) => {
    expect(await goAccepts({ ips: [text] })).toBe(valid);
  });

  // Multus takes an entry without "/" as an address, so only the table's rows with one ask ParseCIDR.
  it.each(CIDR_CASES.filter(([text]) => text.includes('/')))('net.ParseCIDR(%j) succeeds: %s', async (text, valid) => {
    expect(await goAccepts({ ips: [text] })).toBe(valid);
  });
});
