import type { KubeClient } from '@sriov-dra/k8s';
import type { AccessFacts } from './checks.ts';

interface ResourceAttributes {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly subresource?: string;
}

/** What the daemon does with the API: informers list and watch Pods and NADs, ADD GETs them and patches Pod status. */
const REQUIRED: readonly ResourceAttributes[] = [
  { verb: 'get', group: '', resource: 'pods' },
  { verb: 'list', group: '', resource: 'pods' },
  { verb: 'watch', group: '', resource: 'pods' },
  { verb: 'get', group: 'k8s.cni.cncf.io', resource: 'network-attachment-definitions' },
  { verb: 'list', group: 'k8s.cni.cncf.io', resource: 'network-attachment-definitions' },
  { verb: 'watch', group: 'k8s.cni.cncf.io', resource: 'network-attachment-definitions' },
  { verb: 'patch', group: '', resource: 'pods', subresource: 'status' },
];

/** DRA objects the daemon never reads (§10.2: no ResourceClaim or ResourceSlice reads are added). */
const UNNEEDED: readonly ResourceAttributes[] = [
  { verb: 'get', group: 'resource.k8s.io', resource: 'resourceclaims' },
  { verb: 'list', group: 'resource.k8s.io', resource: 'resourceslices' },
];

function describe(attributes: ResourceAttributes): string {
  const resource = `${attributes.resource}${attributes.subresource === undefined ? '' : `/${attributes.subresource}`}`;
  return `${attributes.verb} ${attributes.group === '' ? resource : `${resource}.${attributes.group}`}`;
}

async function review(client: KubeClient, attributes: ResourceAttributes): Promise<AccessFacts> {
  const answer = (await client.request({
    method: 'POST',
    path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: attributes } },
  })) as { status?: { allowed?: boolean } } | undefined;
  return { attribute: describe(attributes), allowed: answer?.status?.allowed === true };
}

/** Asks the API server, as the client's own identity, whether each access the daemon needs (in every namespace) is allowed. */
export async function reviewAccess(client: KubeClient): Promise<{ required: AccessFacts[]; unneeded: AccessFacts[] }> {
  const [required, unneeded] = await Promise.all([
    Promise.all(REQUIRED.map((attributes) => review(client, attributes))),
    Promise.all(UNNEEDED.map((attributes) => review(client, attributes))),
  ]);
  return { required, unneeded };
}
