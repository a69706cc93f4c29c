// Property tests draw their cases from one seed per run so a CI run is reproducible: a counterexample
// found once is found again. PROPERTY_SEED picks another seed ("random" for a fresh one each run, which
// `npm run fuzz` and exploratory runs use); fast-check prints the seed with every counterexample.
import fc from 'fast-check';

const configured = process.env['PROPERTY_SEED'] || '20261130';
if (configured !== 'random') {
  const seed = Number(configured);
  if (!Number.isSafeInteger(seed)) throw new Error(`PROPERTY_SEED must be an integer or "random", not ${JSON.stringify(configured)}`);
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
}
