/**
 * What the kubelet plugin runtime asks of the rest of the driver. The runtime owns the gRPC wire,
 * validation, per-claim serialization and deadlines; an implementation of ClaimPreparer owns the
 * actual work (§6: resolve the Pod, prepare the VFs, CDI, checkpoint, managed bindings).
 */

/** A claim as the kubelet names it, after validation (all three nonempty). */
export interface ClaimRef {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/** One device the kubelet must make available to the claim's containers. */
export interface PreparedDevice {
  /** Requests of the claim this device serves; empty means all of them. */
  readonly requestNames: readonly string[];
  readonly poolName: string;
  readonly deviceName: string;
  readonly cdiDeviceIds: readonly string[];
  /** Only DRA v1 carries it; a v1beta1 kubelet never sees it. */
  readonly shareId?: string;
}

/**
 * Both calls must be idempotent: the kubelet repeats them after a timeout or a restart, and a call the
 * runtime reported as timed out may still complete. The signal aborts when the call's deadline passes
 * or the kubelet cancels; stopping early is welcome but not required. A rejection becomes this claim's
 * error in the response, never a failure of the whole call.
 */
export interface ClaimPreparer {
  prepare(claim: ClaimRef, signal: AbortSignal): Promise<readonly PreparedDevice[]>;
  unprepare(claim: ClaimRef, signal: AbortSignal): Promise<void>;
}
