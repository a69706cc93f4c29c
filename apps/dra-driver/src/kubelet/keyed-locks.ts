/**
 * Serializes work per key — a claim UID in the kubelet runtime, a Pod UID for the managed bindings of
 * all the Pod's claims: a prepare and an unprepare (or two retries) of one key never run at the same
 * time, while different keys proceed in parallel. The lock is held until the work itself
 * settles, even when the caller stopped waiting for it, so a retry after a timeout queues behind the
 * still-running attempt instead of overlapping it.
 */
export class KeyedLocks {
  readonly #tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    // The tail never rejects, so work runs once the previous holder settled either way.
    const result = previous.then(work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      // Forget an idle key so the map does not grow with every claim or Pod the node ever saw.
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /** Keys with work running or queued. */
  get busy(): readonly string[] {
    return [...this.#tails.keys()];
  }
}
