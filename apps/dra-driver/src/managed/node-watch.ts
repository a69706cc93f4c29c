import { Informer, type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';

/**
 * This driver's Node as a watch sees it, for §6.1 step 3: the node identity a managed prepare compares
 * with the one the process started with. Only the Pod must be read live; a Node deleted and recreated
 * under the same name shows up here within the watch's latency, without a GET on every kubelet call.
 */
export class NodeWatch {
  readonly #informer: Informer<KubeObject>;
  readonly #nodeName: string;
  #running: { readonly stop: AbortController; readonly done: Promise<void> } | undefined;

  constructor(client: KubeClient, nodeName: string, onError: (error: unknown) => void) {
    this.#nodeName = nodeName;
    this.#informer = new Informer<KubeObject>(client, resourceTypes.node, {}, { fieldSelector: `metadata.name=${nodeName}`, onError });
  }

  start(): void {
    if (this.#running !== undefined) return;
    const stop = new AbortController();
    this.#running = { stop, done: this.#informer.run(stop.signal) };
  }

  async stop(): Promise<void> {
    const running = this.#running;
    this.#running = undefined;
    running?.stop.abort();
    await running?.done;
  }

  /** The Node as last seen, once the watch has listed it; undefined when it does not exist. */
  async current(signal?: AbortSignal): Promise<KubeObject | undefined> {
    await this.#informer.waitForSync(signal);
    return this.#informer.get(this.#nodeName);
  }
}
