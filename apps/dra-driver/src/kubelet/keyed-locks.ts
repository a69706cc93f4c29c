/**
 * Serializes work per key — a claim UID in the kubelet runtime, a Pod UID for the managed bindings of
 * all the Pod's claims: a prepare and an unprepare (or two retries) of one key never run at the same
 * time, while different keys proceed in parallel. The lock is held until the work itself
 * settles, even when the caller stopped waiting for it, so a retry after a timeout queues behind the
 * still-running attempt instead of overlapping it.
 */
export class KeyedLocks {
  readonly #tails = new Map<string, Promise<unknown>>();

  /**
   * Runs `work` once every earlier holder of `key` settled. `queued` tells it whether it had to wait: what
   * its caller checked before asking for the lock may have changed meanwhile and must be checked again.
   */
  run<T>(key: string, work: (queued: boolean) => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key);
    // The tail never rejects, so work runs once the previous holder settled either way.
    const result = (previous ?? Promise.resolve()).then(() => work(previous !== undefined));
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
