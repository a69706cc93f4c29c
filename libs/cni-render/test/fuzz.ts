// npm run fuzz [runs] [differential inputs] [seed]: the cni-render properties with 10^6 runs each (the
// test suite runs 10^4), then the differential comparison against the real Go decoders with 10^5
// generated inputs (the test suite runs a few thousand). `npm run fuzz -- differential [inputs] [seed]`
// runs only the differential part. Exits non-zero on the first failing property or on any divergence.
import { GoPeer } from '../src/testing/index.ts';
import { formatSummary, generatedCases, runCases } from './differential/run.ts';
import { properties } from './properties.ts';

const args = process.argv.slice(2);
const differentialOnly = args[0] === 'differential';
const [runsArg, inputsArg, seedArg] = differentialOnly ? [undefined, ...args.slice(1)] : args;

if (!differentialOnly) {
  const runs = Number(runsArg ?? 1_000_000);
  for (const [name, check] of Object.entries(properties)) {
    const started = performance.now();
    check(runs);
    console.log(`${name}: ${runs} runs passed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
}

const inputs = Number(inputsArg ?? 100_000);
const seed = Number(seedArg ?? Date.now() % 2_147_483_647);
const peer = await GoPeer.start();
try {
  const summary = await runCases(peer, generatedCases(inputs, seed));
  console.log(`differential against Go (seed ${seed}): ${formatSummary(summary)}`);
  if (summary.divergences.size > 0) process.exitCode = 1;
} finally {
  await peer.close();
}
