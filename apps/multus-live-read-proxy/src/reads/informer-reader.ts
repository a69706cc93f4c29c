import { SriovDraError } from '@sriov-dra/contract';
import { type KubeObject, delay, networkAttachmentDefinitionSchema, podSchema, readPod } from '@sriov-dra/k8s';
import type { z } from 'zod';
import { nadNotFound, podReadFailure, PodNetworkReadError } from './pod-network-read-error.ts';
import type { PodNetworkReader } from './pod-network-reader.ts';
import type { SharedPodNetworkInformers } from './shared-informers.ts';

/** Upstream Multus v4.2.3 (pkg/multus GetPod): the informer is polled every 50 ms for 2.5 s. */
export interface InformerPodWait {
  readonly pollMs: number;
  readonly windowMs: number;
}

export const UPSTREAM_POD_WAIT: InformerPodWait = { pollMs: 50, windowMs: 2_500 };

/**
 * Upstream Multus's reads, kept so the stale-read race can be shown and so a daemon without
 * `liveNetworkConfigOnAdd` behaves as upstream does. A Pod missing from the cache is polled for (the
 * cache may lag the API server), then read with one live GET; a NAD comes only from the cache, and a
 * miss is upstream's "cannot find a network-attachment-definition", with no live fallback. Whatever
 * the cache holds, however old, is the answer. These are ADD semantics: DEL reads its delegate cache.
 */
export function informerReader(shared: SharedPodNetworkInformers, wait: InformerPodWait = UPSTREAM_POD_WAIT): PodNetworkReader {
  return {
    mode: 'informer',
    async readPod(namespace, name, signal) {
      const subject = `Pod ${namespace}/${name}`;
      const deadline = performance.now() + wait.windowMs;
      for (;;) {
        const cached = shared.pods.get(`${namespace}/${name}`);
        if (cached !== undefined) return validated(podSchema, cached, subject, 'PodReadFailed');
        if (performance.now() >= deadline) break;
        try {
          await delay(wait.pollMs, signal);
        } catch (error) {
          throw new PodNetworkReadError('PodReadFailed', 'informer', subject, 'the request was cancelled while waiting for the Pod cache', error);
        }
      }
      try {
        return await readPod(shared.client, namespace, name, signal);
      } catch (error) {
        throw podReadFailure('informer', namespace, name, error, `the live GET after ${wait.windowMs} ms without the Pod in the cache`);
      }
    },
    async readNetworkAttachmentDefinition(namespace, name, signal) {
      const subject = `NetworkAttachmentDefinition ${namespace}/${name}`;
      // A daemon that reads live by its own configuration watches NADs only from the first request that
      // does not; that request waits for the first listing rather than take an empty cache for a miss.
      shared.watchNetworkAttachmentDefinitions();
      try {
        await shared.networkAttachmentDefinitions.waitForSync(signal);
      } catch (error) {
        throw new PodNetworkReadError(
          'NetworkAttachmentDefinitionReadFailed',
          'informer',
          subject,
          'the request was cancelled while the NAD cache made its first listing',
          error,
        );
      }
      // Settled from the cache alone: a miss is final, never a reason to ask the API server.
      const cached = shared.networkAttachmentDefinitions.get(`${namespace}/${name}`);
      if (cached === undefined) throw nadNotFound('informer', namespace, name);
      return validated(networkAttachmentDefinitionSchema, cached, subject, 'NetworkAttachmentDefinitionReadFailed');
    },
  };
}

/** A cached object passed the same checks a live read applies, or is reported like a malformed response. */
function validated<T>(schema: z.ZodType<T>, object: KubeObject, subject: string, code: 'PodReadFailed' | 'NetworkAttachmentDefinitionReadFailed'): T {
  const parsed = schema.safeParse(object);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const cause = new SriovDraError('InvalidApiObject', `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  throw new PodNetworkReadError(code, 'informer', subject, `the cached object is malformed: ${cause.detail}`, cause);
}
