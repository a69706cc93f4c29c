import { SriovDraError, isSriovDraError } from '@sriov-dra/contract';
import { KubeClient, type KubeClientOptions } from './client.ts';

/**
 * A service's API client from its --kubeconfig flag (KUBECONFIG): that file, or the Pod's service
 * account when unset. A configuration that cannot be loaded names the flag and says what to do.
 */
export function serviceKubeClient(kubeconfig: string | undefined, options: KubeClientOptions): KubeClient {
  try {
    return kubeconfig === undefined ? KubeClient.inCluster(options) : KubeClient.fromKubeConfig(kubeconfig, options);
  } catch (error) {
    const detail = isSriovDraError(error) ? error.detail : error instanceof Error ? error.message : String(error);
    throw new SriovDraError('InvalidKubeconfig', kubeconfig === undefined ? `in-cluster configuration: ${detail}` : detail, {
      object: { kind: 'Flag', name: '--kubeconfig' },
      remedy: 'point --kubeconfig (or KUBECONFIG) at a readable kubeconfig file, or leave both unset inside a Pod to use its service account',
      cause: error,
    });
  }
}
