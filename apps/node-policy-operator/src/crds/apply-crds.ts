import { SriovDraError } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, conflictBackoff, delay, isApiError, resourcePath, resourceTypes, withRetry } from '@sriov-dra/k8s';
import { type CrdManifest, crdManifestSchema } from './crd-manifest.ts';
import { type CrdPlan, carriesDraSchema, planCrd } from './crd-plan.ts';
import { checkDraRoundTrip } from './dra-round-trip.ts';
import { UPSTREAM_OWNED_CRDS } from './upstream-owned-crds.ts';

export type CrdAction = 'created' | 'upgraded' | 'unchanged' | 'refused' | 'would create' | 'would upgrade';

export interface CrdResult {
  readonly name: string;
  readonly action: CrdAction;
  /** The fields an upgrade adds, e.g. "v1 spec.dra"; empty for every other action. */
  readonly added: readonly string[];
  readonly error?: SriovDraError;
}

export interface CrdsApplyReport {
  readonly results: readonly CrdResult[];
  /** One per CRD with spec.dra that was not refused; absent on a dry run. */
  readonly roundTrips: readonly RoundTrip[];
}

export interface RoundTrip {
  readonly name: string;
  readonly error?: SriovDraError;
  /** Admission refused the sample policy; the CRD's declared spec.dra was checked instead. */
  readonly admissionRefusal?: string;
}

export interface CrdsApplyOptions {
  readonly dryRun: boolean;
  /** An existing namespace for the round-trip policy. */
  readonly namespace: string;
  /** The CRDs to apply; crds/*.yaml as the image carries them unless a test gives others. */
  readonly crds?: readonly CrdManifest[];
  readonly roundTripTimeoutMs?: number;
}

const crdPath = (name?: string): string => resourcePath(resourceTypes.customResourceDefinition, name === undefined ? {} : { name });

async function readInstalled(client: KubeClient, name: string): Promise<CrdManifest | undefined> {
  let live: unknown;
  try {
    live = await client.get(resourceTypes.customResourceDefinition, { name });
  } catch (error) {
    if (isApiError(error, 'NotFound')) return undefined;
    throw error;
  }
  const parsed = crdManifestSchema.safeParse(live);
  if (!parsed.success) {
    throw new SriovDraError('InvalidApiObject', `not a CustomResourceDefinition this command can read: ${parsed.error.message}`, {
      object: { kind: 'CustomResourceDefinition', name },
    });
  }
  return parsed.data;
}

/** Carries out one plan; a Conflict or AlreadyExists means another writer moved first, and the caller re-plans. */
async function carryOut(client: KubeClient, plan: CrdPlan): Promise<void> {
  if (plan.action === 'create') {
    await client.request({
      method: 'POST',
      path: crdPath(),
      query: { fieldValidation: 'Strict' },
      body: plan.crd,
      object: { kind: 'CustomResourceDefinition', name: plan.name },
    });
  } else if (plan.action === 'upgrade') {
    // The body carries the resourceVersion the plan was made from: optimistic concurrency.
    await client.request({ method: 'PUT', path: crdPath(plan.name), body: plan.crd, object: { kind: 'CustomResourceDefinition', name: plan.name } });
  }
}

async function waitEstablished(client: KubeClient, name: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const live = await client.get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(resourceTypes.customResourceDefinition, {
      name,
    });
    if (live.status?.conditions?.some((condition) => condition.type === 'Established' && condition.status === 'True') === true) return;
    if (Date.now() >= deadline) return;
    await delay(200);
  }
}

const DONE: Record<CrdPlan['action'], { readonly real: CrdAction; readonly dry: CrdAction }> = {
  create: { real: 'created', dry: 'would create' },
  upgrade: { real: 'upgraded', dry: 'would upgrade' },
  unchanged: { real: 'unchanged', dry: 'unchanged' },
  refused: { real: 'refused', dry: 'refused' },
};

/**
 * `crds apply`: each CRD read, planned (planCrd) and written with optimistic concurrency, re-read and
 * re-planned when another writer got there first; then the spec.dra round trip on every CRD that has it.
 */
export async function applyUpstreamOwnedCrds(client: KubeClient, options: CrdsApplyOptions): Promise<CrdsApplyReport> {
  const results: CrdResult[] = [];
  for (const ours of options.crds ?? UPSTREAM_OWNED_CRDS) {
    const plan = await withRetry(
      async () => {
        const planned = planCrd(ours, await readInstalled(client, ours.metadata.name));
        if (!options.dryRun) await carryOut(client, planned);
        return planned;
      },
      { backoff: conflictBackoff, retryable: (error) => isApiError(error, 'Conflict', 'AlreadyExists') },
    );
    results.push({
      name: plan.name,
      action: options.dryRun ? DONE[plan.action].dry : DONE[plan.action].real,
      added: plan.action === 'upgrade' ? plan.added : [],
      ...(plan.action === 'refused' ? { error: plan.error } : {}),
    });
  }
  if (options.dryRun) return { results, roundTrips: [] };
  // An upgraded CRD stays Established; the round trip waits out the moment before its new schema is served.
  for (const result of results) if (result.action === 'created') await waitEstablished(client, result.name);
  const roundTrips: RoundTrip[] = [];
  for (const ours of options.crds ?? UPSTREAM_OWNED_CRDS) {
    const result = results.find((candidate) => candidate.name === ours.metadata.name);
    if (!carriesDraSchema(ours) || result?.action === 'refused') continue;
    roundTrips.push(await roundTrip(client, ours, options));
  }
  return { results, roundTrips };
}

async function roundTrip(client: KubeClient, ours: CrdManifest, options: CrdsApplyOptions): Promise<RoundTrip> {
  const name = ours.metadata.name;
  const checked = await checkDraRoundTrip(client, name, options.namespace, options.roundTripTimeoutMs);
  if (checked.outcome === 'kept') return { name };
  if (checked.outcome === 'failed') return { name, error: checked.error };
  // The sample never reached the schema; the next best proof is that every served version declares ours.
  const declared = planCrd(ours, await readInstalled(client, name)).action === 'unchanged';
  if (declared) return { name, admissionRefusal: checked.refusal };
  const detail = `admission refused the sample policy (${checked.refusal}) and the CRD does not declare this release's spec.dra in every served version`;
  return {
    name,
    admissionRefusal: checked.refusal,
    error: new SriovDraError('DraRoundTripFailed', detail, { object: { kind: 'CustomResourceDefinition', name } }),
  };
}

/** One line per CRD, then one per round trip, as the command prints them. */
export function formatCrdsReport(report: CrdsApplyReport): string[] {
  const lines = report.results.map((result) => {
    const what = result.action.padEnd(13);
    if (result.error !== undefined) return `${what} ${result.name}: ${result.error.message}`;
    const detail = result.added.length === 0 ? '' : ` (adds ${result.added.join(', ')})`;
    return `${what} ${result.name}${detail}`;
  });
  for (const trip of report.roundTrips) {
    if (trip.error !== undefined) lines.push(`round trip    ${trip.name}: ${trip.error.message}`);
    else if (trip.admissionRefusal !== undefined) {
      lines.push(
        `round trip    ${trip.name}: not run, admission refused the sample policy (${trip.admissionRefusal}); every served version declares this release's spec.dra`,
      );
    } else lines.push(`round trip    ${trip.name}: spec.dra kept as sent`);
  }
  return lines;
}

/** Whether the run succeeded: nothing refused, every round trip kept spec.dra. */
export function crdsApplySucceeded(report: CrdsApplyReport): boolean {
  return report.results.every((result) => result.action !== 'refused') && report.roundTrips.every((trip) => trip.error === undefined);
}
