import { SriovDraError } from '@sriov-dra/contract';
import { type EventRecorder, Informer, type KubeClient, type KubeObject, isApiError, resourceTypes } from '@sriov-dra/k8s';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { OperatorMetrics } from '../metrics.ts';
import { type CrdManifest, crdManifestSchema } from './crd-manifest.ts';
import { carriesDraSchema } from './crd-plan.ts';
import { draSchemaProblem } from './dra-schema-check.ts';
import { UPSTREAM_OWNED_CRDS } from './upstream-owned-crds.ts';

/**
 * What the installed policy CRD means for the policies the API server serves: spec.dra kept (at this
 * generation of this CRD), or pruned. uid and generation are absent when the CRD is not installed.
 */
export type DraSchemaState =
  | { readonly served: true; readonly uid: string; readonly generation: number }
  | { readonly served: false; readonly error: SriovDraError; readonly uid?: string; readonly generation?: number };

/**
 * Called by a reconciliation after it read its caches and before its first write: whether the CRD is still
 * at the generation the controllers started under, serving spec.dra. A policy pruned by a later CRD reaches
 * a cache only after that CRD was stored, so a live read after the cache read sees the change (§3.1).
 */
export type DraSchemaFence = (signal?: AbortSignal) => Promise<boolean>;

/** The runtime remedy: the catalog's speaks of a start, this operator is already running. */
const REMEDY =
  'run `node-policy-operator crds apply` (docs/install-and-upgrade.md) to add spec.dra to the CRD; until then the operator writes and deletes nothing it derives from the policies, and resumes by itself once spec.dra is back';

/** The CRD the operator reads spec.dra from, as this release declares it. */
export function guardedCrd(crds: readonly CrdManifest[] = UPSTREAM_OWNED_CRDS): CrdManifest {
  const [crd, ...others] = crds.filter(carriesDraSchema);
  if (crd === undefined || others.length > 0) throw new Error('crds/ must give exactly one CRD a spec.dra');
  return crd;
}

// What the guard needs of a CRD as the API server returns it, beyond the manifest: its identity and the
// generation of its spec.
const installedIdentity = z.object({ metadata: z.object({ uid: z.string().min(1), generation: z.number().int() }) });

/** Judges the installed CRD (undefined: not installed) as the API server will serve the policies. */
export function judgeDraSchema(ours: CrdManifest, installed: unknown): DraSchemaState {
  // Called without an installed CRD, draSchemaProblem always finds one.
  if (installed === undefined) return { served: false, error: draSchemaProblem(ours, undefined, REMEDY) as SriovDraError };
  const manifest = crdManifestSchema.safeParse(installed);
  const identity = installedIdentity.safeParse(installed);
  if (!manifest.success || !identity.success) {
    const issue = (manifest.error ?? identity.error)?.issues[0];
    return {
      served: false,
      error: new SriovDraError('DraSchemaMissing', `the CRD read back is unreadable at ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`, {
        object: { kind: 'CustomResourceDefinition', name: ours.metadata.name },
        remedy: REMEDY,
      }),
    };
  }
  const { uid, generation } = identity.data.metadata;
  const error = draSchemaProblem(ours, manifest.data, REMEDY);
  return error === undefined ? { served: true, uid, generation } : { served: false, error, uid, generation };
}

/** Whether `next` is news after `current`: another verdict, or a later generation of a served CRD. */
export function isNews(current: DraSchemaState | undefined, next: DraSchemaState): boolean {
  if (current === undefined) return true;
  // An informer event can trail a live read the fence made: never step back to an older generation.
  if (next.uid !== undefined && next.uid === current.uid && (next.generation ?? 0) < (current.generation ?? 0)) return false;
  if (!current.served && !next.served) return current.error.message !== next.error.message;
  if (current.served && next.served) return current.uid !== next.uid || current.generation !== next.generation;
  return true;
}

/**
 * The fence of controllers started under `epoch`: reads the CRD live, hands what it found to `observed`
 * (the guard, which may learn of a change here first), and says whether it is still `epoch`.
 */
export function liveDraSchemaFence(
  client: KubeClient,
  ours: CrdManifest,
  epoch: DraSchemaState,
  observed: (state: DraSchemaState) => void = () => undefined,
): DraSchemaFence {
  return async (signal) => {
    let live: unknown;
    try {
      live = await client.get(resourceTypes.customResourceDefinition, { name: ours.metadata.name }, signal);
    } catch (error) {
      if (!isApiError(error, 'NotFound')) throw error;
    }
    const now = judgeDraSchema(ours, live);
    observed(now);
    return now.served && !isNews(epoch, now);
  };
}

export interface DraSchemaGuardOptions {
  readonly client: KubeClient;
  readonly logger: Logger;
  readonly recorder?: EventRecorder;
  readonly metrics?: OperatorMetrics;
  /** This release's copy of the CRD; default: the one crds/ gives spec.dra. */
  readonly crd?: CrdManifest;
}

/**
 * Runs `controllers` only while the policy CRD serves spec.dra. Upstream re-applying its own CRD (its
 * upgrade does) makes the API server prune spec.dra from every policy it serves, on reads of stored ones as
 * on writes; the informers relist and every policy reads as one without DRA, whose generated objects a
 * reconciliation would withdraw. So the CRD is watched by name; when it stops declaring spec.dra the
 * controllers are stopped, as on a lost Lease, and `DraSchemaMissing` is reported once (log, Warning Event
 * on the CRD, `sriov_dra_operator_dra_schema_missing`). When it declares spec.dra again (`crds apply`), or
 * after any other change of its spec, they are started anew: fresh informers list every policy as now
 * served. `fence` closes the window before the watch event arrives: each reconciliation re-reads the CRD
 * live before its first write. Returns when `signal` aborts, once the controllers stopped.
 */
export async function runWhileDraSchemaServed(
  options: DraSchemaGuardOptions,
  signal: AbortSignal,
  controllers: (signal: AbortSignal, fence: DraSchemaFence) => Promise<void>,
): Promise<void> {
  const { client, logger } = options;
  const ours = options.crd ?? guardedCrd();
  const name = ours.metadata.name;
  let state: DraSchemaState | undefined;
  let wake: () => void = () => undefined;

  const observe = (next: DraSchemaState): void => {
    const previous = state;
    if (!isNews(previous, next)) return;
    state = next;
    report(options, name, previous, next);
    wake();
  };
  const changed = (): Promise<void> =>
    new Promise((resolve) => {
      const done = (): void => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      wake = done;
      signal.addEventListener('abort', done, { once: true });
    });

  const informer = new Informer<KubeObject>(
    client,
    resourceTypes.customResourceDefinition,
    {
      onAdd: (crd) => {
        observe(judgeDraSchema(ours, crd));
      },
      onUpdate: (_previous, crd) => {
        observe(judgeDraSchema(ours, crd));
      },
      onDelete: () => {
        observe(judgeDraSchema(ours, undefined));
      },
    },
    {
      // The chart grants list and watch of this one CRD: the name selector is what makes that authorizable.
      fieldSelector: `metadata.name=${name}`,
      onError: (err, phase) => {
        logger.warn({ err, phase, resource: resourceTypes.customResourceDefinition.resource }, 'informer restarting');
      },
    },
  );
  const watching = informer.run(signal);
  await informer.waitForSync(signal).catch(() => undefined);
  if (state === undefined && !signal.aborted) observe(judgeDraSchema(ours, undefined));

  // Read through calls: both change asynchronously, which flow analysis cannot see.
  const stopped = (): boolean => signal.aborted;
  const current = (): DraSchemaState | undefined => state;
  while (!stopped()) {
    const epoch = current();
    if (epoch?.served !== true) {
      await changed();
      continue;
    }
    const stop = new AbortController();
    const running = controllers(stop.signal, liveDraSchemaFence(client, ours, epoch, observe));
    while (!stopped() && current() === epoch) await changed();
    const now = current() ?? epoch;
    stop.abort(stopped() ? signal.reason : now.served ? `the CRD ${name} changed (generation ${String(now.generation)})` : now.error.message);
    await running;
  }
  await watching;
}

function report(options: DraSchemaGuardOptions, name: string, previous: DraSchemaState | undefined, next: DraSchemaState): void {
  const { logger, recorder, metrics } = options;
  metrics?.draSchemaMissing.set(next.served ? 0 : 1);
  const regarding = next.uid === undefined ? undefined : { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name, uid: next.uid };
  if (!next.served) {
    logger.error({ code: next.error.code, crd: name }, next.error.message);
    if (regarding !== undefined) void recorder?.record(regarding, { type: 'Warning', reason: next.error.code, action: 'Pause', note: next.error.message });
    return;
  }
  if (previous === undefined) return;
  const message = previous.served
    ? 'the CRD changed: restarting the controllers, which read every policy anew'
    : 'the CRD declares spec.dra again: resuming the controllers, which read every policy anew';
  logger.info({ crd: name, generation: next.generation }, message);
  if (regarding !== undefined && !previous.served)
    void recorder?.record(regarding, { type: 'Normal', reason: 'DraSchemaServed', action: 'Resume', note: message });
}
