import { SriovDraError } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, contentTypes, isApiError, resourceTypes, withRetry } from '@sriov-dra/k8s';

/** The field manager owning the caBundle; Helm's own apply, which renders none, leaves it alone. */
export const CA_BUNDLE_FIELD_MANAGER = 'sriov-dra-webhook-certificates';

interface WebhookConfiguration extends KubeObject {
  readonly webhooks?: readonly {
    readonly name: string;
    readonly clientConfig?: { readonly service?: { readonly namespace?: string; readonly name?: string } };
  }[];
}

export interface CaBundleTarget {
  readonly configurationName: string;
  /** Only the configuration's webhooks served by this Service get the bundle. */
  readonly service: { readonly namespace: string; readonly name: string };
}

/**
 * Helm creates the ValidatingWebhookConfiguration right after the Deployment; a Pod may get here first.
 * Waits about a minute, after which the kubelet's restart of this init container takes over.
 */
const CONFIGURATION_WAIT = { initialMs: 500, maxMs: 5_000, factor: 2, jitter: 0.2, attempts: 16 } as const;

/**
 * Applies `caBundle` (PEM) to each webhook of the configuration that the Service serves, server-side under
 * CA_BUNDLE_FIELD_MANAGER (forced: a caBundle an older release rendered was Helm's). Returns the names of
 * the webhooks written.
 */
export async function applyCaBundle(client: KubeClient, target: CaBundleTarget, caBundle: string): Promise<string[]> {
  const at = { name: target.configurationName };
  const object = { kind: 'ValidatingWebhookConfiguration', name: target.configurationName };
  const configuration = await withRetry(() => client.get<WebhookConfiguration>(resourceTypes.validatingWebhookConfiguration, at), {
    backoff: CONFIGURATION_WAIT,
    retryable: (error) => isApiError(error, 'NotFound'),
  });
  const names = (configuration.webhooks ?? [])
    .filter((webhook) => webhook.clientConfig?.service?.name === target.service.name && webhook.clientConfig.service.namespace === target.service.namespace)
    .map((webhook) => webhook.name);
  if (names.length === 0) {
    throw new SriovDraError('InvalidComponentSetting', `no webhook of it is served by Service ${target.service.namespace}/${target.service.name}`, {
      object,
      remedy: 'set --webhook-configuration and --service-name to the names the chart rendered (the init container gets them from the chart)',
    });
  }
  const bundle = Buffer.from(caBundle, 'utf8').toString('base64');
  await client.patch(
    resourceTypes.validatingWebhookConfiguration,
    at,
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: target.configurationName },
      webhooks: names.map((name) => ({ name, clientConfig: { caBundle: bundle } })),
    },
    contentTypes.apply,
    { fieldManager: CA_BUNDLE_FIELD_MANAGER, force: true },
  );
  return names;
}
