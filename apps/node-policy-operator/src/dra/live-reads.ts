import { type KubeClient, type KubeObject, type ResourceType, isApiError } from '@sriov-dra/k8s';
import { referenceKey } from './dra-plan.ts';
import type { LiveRead } from './source-reference.ts';

/**
 * Per namespace, up to this many objects are read by GET; more by one LIST of that namespace. Both read the
 * API server's current state (a LIST without resourceVersion is a consistent read), but under the client's
 * QPS budget a LIST costs one request where the GETs of a cold start cost hundreds — and a namespace of
 * Pod shadows is not listed for a handful of source NADs.
 */
const GETS_PER_NAMESPACE = 8;

type Place = { readonly namespace: string; readonly name: string };

function refusal<T>(error: unknown): LiveRead<T> {
  if (isApiError(error, 'NotFound')) return { kind: 'not-found' };
  if (isApiError(error, 'Forbidden')) return { kind: 'forbidden', message: error.message };
  throw error;
}

async function readOne<T extends KubeObject>(client: KubeClient, type: ResourceType, at: Place, signal?: AbortSignal): Promise<LiveRead<T>> {
  try {
    return { kind: 'found', object: await client.get<T>(type, at, signal) };
  } catch (error) {
    return refusal(error);
  }
}

async function readNamespace<T extends KubeObject>(
  client: KubeClient,
  type: ResourceType,
  namespace: string,
  names: readonly string[],
  signal?: AbortSignal,
): Promise<[string, LiveRead<T>][]> {
  let found: Map<string, T>;
  try {
    found = new Map((await client.listAll<T>(type, { namespace, ...(signal === undefined ? {} : { signal }) })).map((item) => [item.metadata.name, item]));
  } catch (error) {
    const read = refusal<T>(error);
    return names.map((name) => [referenceKey({ namespace, name }), read]);
  }
  return names.map((name) => {
    const object = found.get(name);
    return [referenceKey({ namespace, name }), object === undefined ? { kind: 'not-found' } : { kind: 'found', object }];
  });
}

/**
 * The objects at `places`, read from the API server now, keyed `<namespace>/<name>`: what §12.2.3 requires
 * before a generated object publishes a source NAD. A refusal is the read's outcome; other failures throw.
 */
export async function readLive<T extends KubeObject>(
  client: KubeClient,
  type: ResourceType,
  places: readonly Place[],
  signal?: AbortSignal,
): Promise<Map<string, LiveRead<T>>> {
  const byNamespace = new Map<string, Set<string>>();
  for (const place of places) byNamespace.set(place.namespace, (byNamespace.get(place.namespace) ?? new Set()).add(place.name));
  const reads = await Promise.all(
    [...byNamespace].map(async ([namespace, names]) =>
      names.size > GETS_PER_NAMESPACE
        ? readNamespace<T>(client, type, namespace, [...names], signal)
        : Promise.all(
            [...names].map(async (name) => [referenceKey({ namespace, name }), await readOne<T>(client, type, { namespace, name }, signal)] as const),
          ),
    ),
  );
  return new Map(reads.flat());
}
