import { stat } from 'node:fs/promises';
import { Metadata, credentials } from '@grpc/grpc-js';
import { podResourcesV1 } from '@sriov-dra/kubelet-api';
import { PodResourcesError } from './pod-resources-error.ts';

/** Upstream's bounds on one List: a 10 s deadline and a 16 MiB answer. */
const LIST_TIMEOUT_MS = 10_000;
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/**
 * Every Pod's resources as the kubelet reports them (PodResourcesLister.List, v1), over a connection
 * made for this call and closed after it, bounded by upstream's deadline and by the ADD's signal.
 * A socket that is not there fails with PodResourcesSocketMissing before anything is dialled.
 */
export async function listPodResources(socketPath: string, signal: AbortSignal): Promise<podResourcesV1.PodResources[]> {
  try {
    await stat(socketPath);
  } catch (error) {
    throw new PodResourcesError('PodResourcesSocketMissing', socketPath, 'the kubelet’s PodResources socket is not there', error);
  }
  signal.throwIfAborted();
  const client = new podResourcesV1.PodResourcesListerClient(`unix:${socketPath}`, credentials.createInsecure(), {
    'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
  });
  try {
    const response = await new Promise<podResourcesV1.ListPodResourcesResponse>((resolve, reject) => {
      const call = client.list({}, new Metadata(), { deadline: Date.now() + LIST_TIMEOUT_MS }, (error, answer) => {
        signal.removeEventListener('abort', cancel);
        if (error === null) resolve(answer);
        else reject(error);
      });
      function cancel(): void {
        call.cancel();
      }
      signal.addEventListener('abort', cancel, { once: true });
    });
    return response.podResources;
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    const detail = error instanceof Error ? error.message : String(error);
    throw new PodResourcesError('PodResourcesListFailed', socketPath, `List failed: ${detail}`, error);
  } finally {
    client.close();
  }
}
