import { Registry, collectDefaultMetrics } from 'prom-client';

let shared: Registry | undefined;

/**
 * The Node.js process metrics (CPU, resident memory, heap, event-loop delay, GC, handles) under
 * prom-client's standard `process_` and `nodejs_` names, which no service metric (`sriov_dra_…`) uses.
 * One registry per process, made on first use: every collection starts its own event-loop delay
 * monitor and GC observer, so two services (or a restart) in one process share them rather than
 * stacking them, and prom-client's global default registry stays untouched.
 */
export function processMetricsRegistry(): Registry {
  if (shared === undefined) {
    shared = new Registry();
    collectDefaultMetrics({ register: shared });
  }
  return shared;
}
