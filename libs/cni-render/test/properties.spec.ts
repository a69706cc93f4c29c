// Property tests, 10^4 runs each (npm run fuzz runs the same properties 10^6 times). PROPERTY_RUNS
// overrides the count, e.g. for mutation testing, which reruns the suite once per mutant; the seed is
// fixed by tools/jest-property-seed.js (PROPERTY_SEED=random explores).
import { describe, it } from '@jest/globals';
import { properties } from './properties.ts';

function runs(): number {
  const configured = process.env['PROPERTY_RUNS'];
  if (configured === undefined) return 10_000;
  const count = Number(configured);
  if (!Number.isSafeInteger(count) || count < 1) throw new Error(`PROPERTY_RUNS must be a positive integer, not ${JSON.stringify(configured)}`);
  return count;
}

describe('cni-render properties', () => {
  const numRuns = runs();
  it.each(Object.entries(properties))('%s', (_name, check) => {
    check(numRuns);
  });
});
