// Streams cases through our code and the Go peer, applies the pass rule, and groups what disagrees.
import fc from 'fast-check';
import { loadFixtures } from '@sriov-dra/contract/fixtures';
import { type DiffCase, type Divergence, compare, evaluateTs, goRequests } from './compare.ts';
import { diffCase } from './generators.ts';
import type { GoPeer } from '../../src/testing/index.ts';

/** Variants within a class: our message and Go's with quoted and numeric details blanked. */
const MAX_VARIANTS = 5;
const variantOf = (divergence: Divergence): string => `${divergence.ts.slice(0, 160)}|${divergence.go.slice(0, 160)}`.replace(/"[^"]*"|\d+/g, '…');

export interface DivergenceClass {
  readonly count: number;
  /** The shortest input of the class. */
  readonly example: Divergence;
  /** Up to MAX_VARIANTS other shortest inputs whose messages differ from the example's. */
  readonly variants: ReadonlyMap<string, Divergence>;
}

export interface RunSummary {
  readonly cases: number;
  readonly goRequests: number;
  readonly bothAccept: number;
  readonly bothReject: number;
  /** Outcome counts per input kind: "cni both accept", "selections divergent", … */
  readonly outcomes: ReadonlyMap<string, number>;
  readonly accepted: ReadonlyMap<string, number>;
  readonly divergences: ReadonlyMap<string, DivergenceClass>;
  readonly milliseconds: number;
}

const inputText = (input: DiffCase): string => (input.kind === 'cni' ? input.config : input.text);

/** Runs the cases, `window` of them in flight at a time so the Go process always has work queued. */
export async function runCases(peer: GoPeer, cases: Iterable<DiffCase>, window = 256): Promise<RunSummary> {
  const started = performance.now();
  const divergences = new Map<string, DivergenceClass>();
  const accepted = new Map<string, number>();
  let count = 0;
  let requests = 0;
  let bothAccept = 0;
  let bothReject = 0;
  const outcomes = new Map<string, number>();
  const tally = (key: string): void => {
    outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  };

  const check = async (input: DiffCase): Promise<void> => {
    const ts = evaluateTs(input);
    const wanted = goRequests(input, ts);
    requests += wanted.length;
    const answers = await Promise.all(wanted.map((request) => peer.send(request)));
    const verdict = compare(input, ts, answers);
    if (verdict.acceptedAs !== undefined) {
      accepted.set(verdict.acceptedAs, (accepted.get(verdict.acceptedAs) ?? 0) + 1);
      tally(`${input.kind} accepted divergence`);
    } else if (verdict.divergences.length > 0) tally(`${input.kind} divergent`);
    else if (ts.ok) {
      bothAccept++;
      tally(`${input.kind} both accept`);
    } else {
      bothReject++;
      tally(`${input.kind} both reject`);
    }
    for (const divergence of verdict.divergences) {
      const known = divergences.get(divergence.class);
      const shorter = known === undefined || inputText(divergence.input).length < inputText(known.example.input).length;
      const variants = new Map(known?.variants);
      const variant = variantOf(divergence);
      const seen = variants.get(variant);
      if (seen === undefined ? variants.size < MAX_VARIANTS : inputText(divergence.input).length < inputText(seen.input).length)
        variants.set(variant, divergence);
      divergences.set(divergence.class, { count: (known?.count ?? 0) + 1, example: shorter ? divergence : known.example, variants });
    }
  };

  let inFlight: Promise<void>[] = [];
  for (const input of cases) {
    // Annotation and config values are UTF-8 in the API; a lone surrogate has no such encoding.
    if (!inputText(input).isWellFormed()) continue;
    count++;
    inFlight.push(check(input));
    if (inFlight.length >= window) {
      await Promise.all(inFlight);
      inFlight = [];
    }
  }
  await Promise.all(inFlight);
  return { cases: count, goRequests: requests, bothAccept, bothReject, outcomes, accepted, divergences, milliseconds: performance.now() - started };
}

/** Generated cases, reproducible from the seed. */
export function* generatedCases(count: number, seed: number, chunk = 5_000): Generator<DiffCase> {
  for (let done = 0, index = 0; done < count; index++) {
    const size = Math.min(chunk, count - done);
    yield* fc.sample(diffCase, { numRuns: size, seed: seed + index });
    done += size;
  }
}

/** Every shared fixture the Go code has a counterpart for: render sources and generated selections. */
export function fixtureCases(): { readonly id: string; readonly input: DiffCase }[] {
  const render = loadFixtures('render').map((fixture) => {
    const input = fixture.input as { sourceNad: { metadata: { name: string; namespace?: string }; spec?: { config?: string } }; pciAddress: string };
    return {
      id: fixture.id,
      input: {
        kind: 'cni',
        config: input.sourceNad.spec?.config ?? '',
        pci: input.pciAddress,
        nadName: input.sourceNad.metadata.name,
        nadNamespace: input.sourceNad.metadata.namespace ?? 'default',
      } satisfies DiffCase,
    };
  });
  // A generated selection the contract refuses is still an annotation Multus parses: as one.
  const selections = loadFixtures('generated-selection').map((fixture) => ({
    id: fixture.id,
    input: { kind: 'selections', text: fixture.inputRaw ?? JSON.stringify([fixture.input]), podNamespace: 'ai-workloads' } satisfies DiffCase,
  }));
  return [...render, ...selections];
}

export function formatSummary(summary: RunSummary): string {
  const perThousand = summary.cases === 0 ? 0 : (summary.milliseconds / summary.cases) * 1000;
  const lines = [
    `${summary.cases} inputs (${summary.goRequests} Go requests) in ${(summary.milliseconds / 1000).toFixed(1)} s, ${perThousand.toFixed(0)} ms per 1,000 inputs: ` +
      `${summary.bothAccept} accepted by both, ${summary.bothReject} rejected by both, ` +
      `${[...summary.accepted.values()].reduce((a, b) => a + b, 0)} accepted divergences (${[...summary.accepted].map(([id, n]) => `${id} ${n}`).join(', ') || 'none'}), ` +
      `${[...summary.divergences.values()].reduce((a, b) => a + b.count, 0)} divergences in ${summary.divergences.size} classes`,
    `  by kind: ${[...summary.outcomes]
      .sort()
      .map(([key, n]) => `${key} ${n}`)
      .join(', ')}`,
  ];
  for (const [name, { count, example, variants }] of [...summary.divergences].sort((a, b) => b[1].count - a[1].count)) {
    lines.push(
      '',
      `DIVERGENCE ${name} (${count}×); shortest input:`,
      `  input: ${JSON.stringify(example.input)}`,
      `  ours:  ${example.ts}`,
      `  Go:    ${example.go}`,
    );
    const others = [...variants.values()].filter((variant) => variantOf(variant) !== variantOf(example));
    if (others.length > 0)
      lines.push('  other variants:', ...others.map((variant) => `    ${JSON.stringify(variant.input)} (ours: ${variant.ts.slice(0, 160)})`));
  }
  return lines.join('\n');
}
