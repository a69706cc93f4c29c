import type { Logger } from 'pino';
import { z } from 'zod';
import type { KeyedLocks } from './keyed-locks.ts';
import type { ClaimRef } from './claim-preparer.ts';
import { KubeletPluginError } from './kubelet-plugin-error.ts';

/** The kubelet marks all three fields REQUIRED; anything else is refused for that claim alone. */
const claimRefSchema = z.object({
  namespace: z.string().min(1),
  uid: z.string().min(1),
  name: z.string().min(1),
});

export type ClaimOutcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: Error };

export type ClaimVerb = 'prepare' | 'unprepare';

export interface ClaimBatchOptions {
  readonly verb: ClaimVerb;
  /** Time from the start of the call after which unfinished claims are answered with a timeout error. */
  readonly deadlineMs: number;
  readonly locks: KeyedLocks;
  /** Aborts when the kubelet cancels the call. */
  readonly cancelled: AbortSignal;
  readonly logger: Logger;
}

type ClaimWork<T> = (claim: ClaimRef, signal: AbortSignal) => Promise<T>;

export function describeClaim(claim: { readonly namespace?: unknown; readonly name?: unknown; readonly uid?: unknown }): string {
  const text = (value: unknown): string => (typeof value === 'string' && value !== '' ? value : '<empty>');
  return `ResourceClaim ${text(claim.namespace)}/${text(claim.name)} (uid ${text(claim.uid)})`;
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

/**
 * Runs one kubelet call's claims: each claim validated on its own, serialized with other calls for the
 * same claim UID, all claims concurrently, and the whole call answered by its deadline. Every requested
 * claim gets an entry keyed by its UID (the kubelet retries the call for any claim left out), and a
 * failing claim never fails the others.
 */
export async function runClaimBatch<T>(claims: readonly unknown[], options: ClaimBatchOptions, work: ClaimWork<T>): Promise<Map<string, ClaimOutcome<T>>> {
  const { verb, deadlineMs, locks, logger } = options;
  const controller = new AbortController();
  const onCancel = (): void => {
    controller.abort('cancelled');
  };
  options.cancelled.addEventListener('abort', onCancel, { once: true });
  if (options.cancelled.aborted) onCancel();
  const timer = setTimeout(() => {
    controller.abort('deadline');
  }, deadlineMs);
  const signal = controller.signal;

  const abortError = (claim: ClaimRef): KubeletPluginError =>
    signal.reason === 'deadline'
      ? new KubeletPluginError('ClaimCallDeadlineExceeded', describeClaim(claim), `${verb} did not finish within ${deadlineMs} ms`)
      : new KubeletPluginError('ClaimCallCancelled', describeClaim(claim), `the kubelet cancelled the ${verb} call`);

  const runOne = (claim: ClaimRef): Promise<ClaimOutcome<T>> =>
    new Promise((resolve) => {
      const onAbort = (): void => {
        resolve({ ok: false, error: abortError(claim) });
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const started = locks.run(claim.uid, async () => {
        // A claim still queued behind an earlier call when this call ends must not start afterwards.
        if (signal.aborted) throw abortError(claim);
        return work(claim, signal);
      });
      started.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          if (signal.aborted) logger.info({ claimUID: claim.uid, verb }, `${verb} of ${describeClaim(claim)} finished after its call ended`);
          resolve({ ok: true, value });
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          resolve({ ok: false, error: asError(error) });
        },
      );
    });

  const outcomes = new Map<string, ClaimOutcome<T>>();
  const running = new Map<string, { readonly claim: ClaimRef; readonly outcome: Promise<ClaimOutcome<T>> }>();
  for (const raw of claims) {
    const parsed = claimRefSchema.safeParse(raw);
    const rawRef = (typeof raw === 'object' && raw !== null ? raw : {}) as { namespace?: unknown; name?: unknown; uid?: unknown };
    const key = typeof rawRef.uid === 'string' ? rawRef.uid : '';
    if (!parsed.success) {
      const missing = parsed.error.issues.map((issue) => issue.path.join('.')).join(', ');
      outcomes.set(key, { ok: false, error: new KubeletPluginError('InvalidClaimReference', describeClaim(rawRef), `empty or missing ${missing}`) });
      continue;
    }
    const claim = parsed.data;
    const earlier = running.get(claim.uid);
    if (earlier !== undefined) {
      if (earlier.claim.namespace !== claim.namespace || earlier.claim.name !== claim.name) {
        const conflict = new KubeletPluginError(
          'InvalidClaimReference',
          describeClaim(claim),
          `the call lists this claim UID twice with different names (${describeClaim(earlier.claim)})`,
        );
        running.set(claim.uid, { claim, outcome: earlier.outcome.then(() => ({ ok: false, error: conflict })) });
      }
      continue;
    }
    running.set(claim.uid, { claim, outcome: runOne(claim) });
  }
  try {
    for (const [uid, { outcome }] of running) {
      const result = await outcome;
      // A malformed entry sharing this UID already answered it; that refusal stands.
      if (!outcomes.has(uid)) outcomes.set(uid, result);
    }
  } finally {
    clearTimeout(timer);
    options.cancelled.removeEventListener('abort', onCancel);
  }
  return outcomes;
}
