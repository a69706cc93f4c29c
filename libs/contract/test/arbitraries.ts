import fc from 'fast-check';
import type { BindingIdentityTuple } from '../src/identity.ts';

const label = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/);
const subdomain = fc.array(label, { minLength: 1, maxLength: 3 }).map((labels) => labels.join('.'));

/** Valid identity tuples as the API server could report them. */
export const identityTupleArbitrary: fc.Arbitrary<BindingIdentityTuple> = fc.record({
  protocolVersion: fc.constant(1),
  nodeUID: fc.uuid(),
  podUID: fc.uuid(),
  claimUID: fc.uuid(),
  driver: subdomain.filter((value) => value.length <= 63),
  pool: fc.array(subdomain, { minLength: 1, maxLength: 2 }).map((parts) => parts.join('/')),
  device: label,
});
