/**
 * Serializes work per claim UID: a prepare and an unprepare (or two retries) of one claim never run at
 * the same time, while different claims proceed in parallel. The lock is held until the work itself
 * settles, even when the caller stopped waiting for it, so a retry after a timeout queues behind the
 * still-running attempt instead of overlapping it.
 */
export class ClaimLocks {
  readonly #tails = new Map<string, Promise<unknown>>();

  run<T>(uid: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(uid) ?? Promise.resolve();
    // The tail never rejects, so work runs once the previous holder settled either way.
    const result = previous.then(work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(uid, tail);
    void tail.then(() => {
      // Forget an idle claim so the map does not grow with every claim the node ever saw.
      if (this.#tails.get(uid) === tail) this.#tails.delete(uid);
    });
    return result;
  }

  /** Claim UIDs with work running or queued. */
  get busy(): readonly string[] {
    return [...this.#tails.keys()];
  }
}
