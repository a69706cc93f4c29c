import { readdir } from 'node:fs/promises';
import type { Logger } from 'pino';
import { type KubeClient, type KubeObject, isApiError, isTransient, resourceTypes, withRetry } from '@sriov-dra/k8s';
import { isContainerID } from '../cache/delegate-cache.ts';
import { describePod } from './pod-identity.ts';
import { loadAttachmentRecord, loadTeardownRecord } from './teardown-store.ts';
import type { TeardownWorker } from './teardown-worker.ts';

/** A transient API failure (timeout, 429, 5xx) is retried briefly; anything else leaves the container alone. */
const GET_BACKOFF = { initialMs: 500, maxMs: 10_000, factor: 2, jitter: 0.2, attempts: 6 };

export interface CatchUpEffects {
  readonly client: KubeClient;
  readonly teardowns: Pick<TeardownWorker, 'pend'>;
  readonly logger: Logger;
}

/** Containers with a delegate cache file in cniDir (it also holds results/ and the daemon's own state). */
async function cachedContainers(cniDir: string): Promise<string[]> {
  try {
    return (await readdir(cniDir, { withFileTypes: true }))
      .filter((entry) => entry.isFile() && isContainerID(entry.name))
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Whether the Pod ADD recorded is gone from the API server: NotFound, or its name now holds another Pod. */
async function podGone(client: KubeClient, pod: { namespace: string; name: string; uid: string }, signal: AbortSignal): Promise<boolean> {
  let live: KubeObject;
  try {
    live = await withRetry(() => client.get(resourceTypes.pod, { namespace: pod.namespace, name: pod.name }, signal), {
      backoff: GET_BACKOFF,
      retryable: isTransient,
      signal,
    });
  } catch (error) {
    if (isApiError(error, 'NotFound')) return true;
    throw error;
  }
  return live.metadata.uid !== pod.uid;
}

/**
 * At start, the DELs the daemon missed while it was down (the upstream shim then reports success and
 * nothing reaches the daemon): every cached container whose Pod is really gone — one live GET each, at
 * start only — is torn down through the worker with the inputs its ADD recorded. A Pod that still exists
 * is left alone, as is a cache without an attachment record (written by upstream Multus or an earlier
 * release: no Pod identity to check, no DEL inputs) and a static Pod's.
 */
export async function catchUpGonePods(cniDir: string, effects: CatchUpEffects, signal: AbortSignal): Promise<void> {
  const { logger } = effects;
  for (const containerID of await cachedContainers(cniDir)) {
    signal.throwIfAborted();
    try {
      // A pending teardown is the worker's already.
      if ((await loadTeardownRecord(cniDir, containerID).catch(() => 'corrupt')) !== undefined) continue;
      const attachment = await loadAttachmentRecord(cniDir, containerID);
      if (attachment === undefined) {
        logger.info(
          { containerID },
          'delegate cache without an attachment record (upstream Multus or an earlier release wrote it): left for the runtime’s DEL',
        );
        continue;
      }
      const pod = describePod(attachment.pod);
      if (attachment.staticPod) {
        logger.info({ containerID, pod }, 'static Pod attachment: its mirror Pod says nothing about the sandbox; left for the runtime’s DEL');
        continue;
      }
      if (!(await podGone(effects.client, attachment.pod, signal))) continue;
      logger.info({ containerID, pod, podUID: attachment.pod.uid }, 'the Pod of a cached attachment is gone: tearing the attachment down');
      await effects.teardowns.pend(cniDir, attachment, 'PodGone', 'pod-gone');
    } catch (error) {
      if (signal.aborted) throw error;
      logger.error({ err: error, containerID }, 'start-up check of a cached attachment failed; left for the runtime’s DEL');
    }
  }
}
