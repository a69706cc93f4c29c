import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../client.ts';
import type { ResourceType } from '../resources.ts';

/**
 * Writes an object straight into etcd under the API server's key for it, past admission, validation and
 * webhooks: what an object stored under an older schema, or while a webhook was off, looks like to a
 * controller reading it today. Returns the object as written (UID and creation time filled in). For custom
 * resources only (stored as JSON); the API server serves it through its watch cache moments later.
 */
export async function storeObjectDirectly(
  etcdEndpoint: string,
  type: ResourceType,
  object: Record<string, unknown> & { metadata: { name: string; namespace?: string } },
): Promise<KubeObject> {
  const stored = {
    ...object,
    apiVersion: type.group === '' ? type.version : `${type.group}/${type.version}`,
    kind: type.kind,
    metadata: { uid: randomUUID(), creationTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'), generation: 1, ...object.metadata },
  };
  const namespace = object.metadata.namespace === undefined ? '' : `${object.metadata.namespace}/`;
  const key = `/registry/${type.group}/${type.resource}/${namespace}${object.metadata.name}`;
  const response = await fetch(`${etcdEndpoint}/v3/kv/put`, {
    method: 'POST',
    body: JSON.stringify({ key: Buffer.from(key).toString('base64'), value: Buffer.from(JSON.stringify(stored)).toString('base64') }),
  });
  if (!response.ok) throw new Error(`etcd put ${key}: HTTP ${String(response.status)} ${await response.text()}`);
  return stored as unknown as KubeObject;
}
