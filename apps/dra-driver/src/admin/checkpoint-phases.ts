import { join } from 'node:path';
import { DRIVER_NAME } from '@sriov-dra/contract';
import { CheckpointStore } from '../checkpoint/checkpoint-store.ts';
import { managedBindingsOf } from '../managed/binding-records.ts';

/** Binding phases by attachmentID from the checkpoint in a node's kubelet plugins directory, read without changing it. */
export async function checkpointPhases(pluginsDir: string): Promise<Map<string, string>> {
  const store = await CheckpointStore.open({ directory: join(pluginsDir, DRIVER_NAME) });
  return new Map(
    store
      .claims()
      .flatMap(managedBindingsOf)
      .map((binding) => [binding.attachmentID, binding.phase]),
  );
}
