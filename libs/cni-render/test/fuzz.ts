// npm run fuzz [runs]: the cni-render properties with 10^6 runs each (the test suite runs 10^4).
import { properties } from './properties.ts';

const runs = Number(process.argv[2] ?? 1_000_000);
for (const [name, check] of Object.entries(properties)) {
  const started = performance.now();
  check(runs);
  console.log(`${name}: ${runs} runs passed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
