import type { DriverMetrics } from '../metrics.ts';
import type { ClaimPreparer, ClaimRef, PreparedDevice } from './claim-preparer.ts';

/** Counts and times every prepare and unprepare of the preparer it wraps, by result, per claim. */
export class MeteredPreparer implements ClaimPreparer {
  private readonly inner: ClaimPreparer;
  private readonly metrics: DriverMetrics;

  constructor(inner: ClaimPreparer, metrics: DriverMetrics) {
    this.inner = inner;
    this.metrics = metrics;
  }

  prepare(claim: ClaimRef, signal: AbortSignal): Promise<readonly PreparedDevice[]> {
    return this.metrics.time(this.metrics.prepareDuration, () => this.inner.prepare(claim, signal), this.metrics.prepareRequests);
  }

  unprepare(claim: ClaimRef, signal: AbortSignal): Promise<void> {
    return this.metrics.time(this.metrics.unprepareDuration, () => this.inner.unprepare(claim, signal), this.metrics.unprepareRequests);
  }
}
