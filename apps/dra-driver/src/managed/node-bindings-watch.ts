import { Informer, type KubeClient, type KubeObject, type Pod, podSchema, resourceTypes } from '@sriov-dra/k8s';
import { nodeShadowSelector } from './orphan-scan.ts';
import type { ShadowObject } from './shadow-verification.ts';

/**
 * The objects the repair worker (§8.3) checks its bindings against, as two watches see them: the Pods
 * scheduled to this node (field selector spec.nodeName, as the kubelet watches its own) and this node's
 * shadows (the managed-by and node-UID labels, across all namespaces, as the orphan report needs them).
 * A healthy binding is then confirmed without a request; a cache only ever tells the worker where to
 * look — every write it makes is decided on objects read live.
 */
export class NodeBindingsWatch {
  readonly #pods: Informer<KubeObject>;
  readonly #shadows: Informer<ShadowObject>;
  /** Whether each cached Pod decodes as one, checked once for as long as the cache holds that version of it. */
  readonly #decodes = new WeakMap<KubeObject, boolean>();
  #running: { readonly stop: AbortController; readonly done: Promise<void> } | undefined;

  constructor(client: KubeClient, node: { readonly name: string; readonly uid: string }, onError: (error: unknown, watched: 'pods' | 'shadows') => void) {
    this.#pods = new Informer<KubeObject>(
      client,
      resourceTypes.pod,
      {},
      {
        fieldSelector: `spec.nodeName=${node.name}`,
        onError: (error) => {
          onError(error, 'pods');
        },
      },
    );
    this.#shadows = new Informer<ShadowObject>(
      client,
      resourceTypes.networkAttachmentDefinition,
      {},
      {
        labelSelector: nodeShadowSelector(node.uid),
        onError: (error) => {
          onError(error, 'shadows');
        },
      },
    );
  }

  start(): void {
    if (this.#running !== undefined) return;
    const stop = new AbortController();
    this.#running = { stop, done: Promise.all([this.#pods.run(stop.signal), this.#shadows.run(stop.signal)]).then(() => undefined) };
  }

  async stop(): Promise<void> {
    const running = this.#running;
    this.#running = undefined;
    running?.stop.abort();
    await running?.done;
  }

  /** Resolves once both watches have listed; rejects when `signal` aborts first. */
  async synced(signal?: AbortSignal): Promise<void> {
    await Promise.all([this.#pods.waitForSync(signal), this.#shadows.waitForSync(signal)]);
  }

  /** The Pod as last seen on this node; undefined when the watch does not have it or it does not decode as a Pod. */
  pod(namespace: string, name: string): Pod | undefined {
    const cached = this.#pods.get(`${namespace}/${name}`);
    if (cached === undefined) return undefined;
    let decodes = this.#decodes.get(cached);
    if (decodes === undefined) {
      decodes = podSchema.safeParse(cached).success;
      this.#decodes.set(cached, decodes);
    }
    // The schema only checks (it neither transforms nor defaults): the cached object itself is the Pod, not a copy of it.
    return decodes ? (cached as Pod) : undefined;
  }

  /** This node's shadows as last seen, in every namespace. */
  shadows(): ShadowObject[] {
    return this.#shadows.list();
  }
}
