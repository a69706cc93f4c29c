// Reproducible measurement noise for the growth specs: the same seed gives the same draws on every run.

/** Standard normal draws (Box–Muller over a 32-bit linear congruential generator). */
export function normalDraws(seed: number): () => number {
  let state = seed >>> 0;
  const uniform = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state + 0.5) / 2 ** 32;
  };
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}
