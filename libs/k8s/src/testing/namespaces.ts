import { isApiError } from '../api-errors.ts';
import type { KubeClient } from '../client.ts';
import { resourceTypes } from '../resources.ts';

/**
 * Creates a namespace ready for Pods: with ServiceAccount admission on, a Pod is rejected until its
 * namespace has the `default` ServiceAccount, which only the controller manager would create — and
 * most test control planes run without one. When it does run, it may win the race, which is fine.
 */
export async function createNamespace(client: KubeClient, name: string): Promise<void> {
  await client.create(resourceTypes.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  try {
    await client.create(resourceTypes.serviceAccount, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }, { namespace: name });
  } catch (error) {
    if (!isApiError(error, 'AlreadyExists')) throw error;
  }
}
