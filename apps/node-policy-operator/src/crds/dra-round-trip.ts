import { SriovDraError, jsonEqualIgnoringKeyOrder } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, delay, errorMessage, isApiError, resourcePath, resourceTypes } from '@sriov-dra/k8s';

/** Never stored: it is only ever created with dryRun=All. */
export const ROUND_TRIP_POLICY_NAME = 'sriov-dra-crds-apply-round-trip';

/** Every value member of spec.dra, with the zero values a careless schema would drop. */
export const ROUND_TRIP_DRA = {
  attributes: {
    'networking.example.com/rail': { string: 'rail-a' },
    'networking.example.com/lanes': { int: 0 },
    'networking.example.com/lossless': { bool: false },
    'networking.example.com/firmware': { version: '1.2.3' },
  },
} as const;

export type RoundTripOutcome =
  | { readonly outcome: 'kept' }
  | { readonly outcome: 'failed'; readonly error: SriovDraError }
  /** Admission refused the sample before it reached the schema: what refused it, as the API server said. */
  | { readonly outcome: 'admission'; readonly refusal: string };

// How the API server reports an admission refusal: a webhook that denied the request or could not be called,
// or a ValidatingAdmissionPolicy. The SR-IOV network operator's own webhook refuses a policy whose
// nodeSelector matches no node or whose nicSelector matches no NIC, which the sample never does.
const ADMISSION_REFUSAL =
  /admission webhook "[^"]+" denied the request.*|failed calling webhook "[^"]+".*|ValidatingAdmissionPolicy '[^']+' with binding '[^']+' denied request.*/s;

function admissionRefusal(message: string): string | undefined {
  return ADMISSION_REFUSAL.exec(message)?.[0];
}

function roundTripPolicy(namespace: string): Record<string, unknown> {
  return {
    apiVersion: 'sriovnetwork.openshift.io/v1',
    kind: 'SriovNetworkNodePolicy',
    metadata: { name: ROUND_TRIP_POLICY_NAME, namespace },
    spec: {
      resourceName: 'sriovdraroundtrip',
      nodeSelector: { 'sriovnetwork.k8snetworkplumbingwg.io/crds-apply-round-trip': 'true' },
      numVfs: 1,
      nicSelector: { vendor: '15b3' },
      dra: ROUND_TRIP_DRA,
    },
  };
}

/**
 * Proves spec.dra survives the API server: creates a policy with every kind of attribute value with
 * dryRun=All (admission, defaulting and pruning run; nothing is stored) and compares the spec.dra it gets
 * back. A CRD just created or changed takes a moment to be served with its new schema, so a 404 or a
 * pruned answer is asked again until `timeoutMs`; the last answer is the one reported. When admission refuses
 * the sample, nothing was learned about the schema: the caller says so and falls back to what the CRD declares.
 */
export async function checkDraRoundTrip(client: KubeClient, crdName: string, namespace: string, timeoutMs = 30_000): Promise<RoundTripOutcome> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let problem: string;
    try {
      const created = (await client.request({
        method: 'POST',
        path: resourcePath(resourceTypes.sriovNetworkNodePolicy, { namespace }),
        // No strict field validation: an undeclared spec.dra is pruned silently, as most writers see it.
        query: { dryRun: 'All' },
        body: roundTripPolicy(namespace),
        object: { kind: 'SriovNetworkNodePolicy', namespace, name: ROUND_TRIP_POLICY_NAME },
      })) as KubeObject;
      const dra = (created['spec'] as { dra?: unknown } | undefined)?.dra;
      if (jsonEqualIgnoringKeyOrder(dra, ROUND_TRIP_DRA)) return { outcome: 'kept' };
      problem = `spec.dra came back as ${dra === undefined ? 'nothing (pruned)' : JSON.stringify(dra)} instead of ${JSON.stringify(ROUND_TRIP_DRA)}`;
    } catch (error) {
      const admission = isApiError(error) ? admissionRefusal(error.apiStatus?.message ?? '') : undefined;
      if (admission !== undefined) return { outcome: 'admission', refusal: admission };
      // A CRD created a moment ago may not be served yet.
      if (!isApiError(error, 'NotFound')) throw error;
      problem = `the policy kind is not served: ${errorMessage(error)}`;
    }
    if (Date.now() >= deadline) {
      return {
        outcome: 'failed',
        error: new SriovDraError('DraRoundTripFailed', `${problem} (dry-run create of SriovNetworkNodePolicy ${namespace}/${ROUND_TRIP_POLICY_NAME})`, {
          object: { kind: 'CustomResourceDefinition', name: crdName },
        }),
      };
    }
    await delay(500);
  }
}
