// Property tests, 10^4 runs each (npm run fuzz runs the same properties 10^6 times).
import { describe, it } from '@jest/globals';
import { properties } from './properties.ts';

describe('cni-render properties', () => {
  it.each(Object.entries(properties))('%s', (_name, check) => {
    check(10_000);
  });
});
