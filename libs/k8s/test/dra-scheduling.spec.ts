// The control plane's DRA path end to end, without a driver: kube-scheduler allocates devices from a
// published ResourceSlice to a Pod's ResourceClaimTemplate claim (created by the resourceclaim
// controller), reserves the claim for the Pod and binds the Pod to the node.
import { describe, expect, it } from '@jest/globals';
import { DRIVER_NAME } from '@sriov-dra/contract';
import type { KubeObject } from '../src/client.ts';
import { readPod, readResourceClaim } from '../src/reads.ts';
import { resourceTypes } from '../src/resources.ts';
import { createReadyNode, waitFor } from '../src/testing/index.ts';
import { useControlPlane } from './fixtures.ts';

const shared = useControlPlane({ controllerManager: true, scheduler: true, namespace: 'dra' });

const readyNode = (name: string): Promise<KubeObject> => createReadyNode(shared.admin, name);

describe('DRA allocation by the real scheduler', () => {
  it('allocates a VF from the node slice to a ResourceClaimTemplate claim and binds the Pod', async () => {
    await readyNode('worker-a');
    await shared.admin.create(resourceTypes.deviceClass, {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceClass',
      metadata: { name: DRIVER_NAME },
      spec: { selectors: [{ cel: { expression: `device.driver == "${DRIVER_NAME}"` } }] },
    });
    await shared.admin.create(resourceTypes.resourceSlice, {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceSlice',
      metadata: { name: 'worker-a-vfs' },
      spec: {
        driver: DRIVER_NAME,
        nodeName: 'worker-a',
        pool: { name: 'worker-a', generation: 1, resourceSliceCount: 1 },
        devices: ['0000-03-00-1', '0000-03-00-2'].map((name) => ({
          name,
          attributes: {
            'resource.kubernetes.io/pcieRoot': { string: 'pci0000:00' },
            [`${DRIVER_NAME}/pciAddress`]: { string: name.replace(/-/g, ':').replace(/:(\d)$/, '.$1') },
          },
        })),
      },
    });
    await shared.admin.create(
      resourceTypes.resourceClaimTemplate,
      {
        apiVersion: 'resource.k8s.io/v1',
        kind: 'ResourceClaimTemplate',
        metadata: { name: 'one-vf' },
        spec: { spec: { devices: { requests: [{ name: 'nic', exactly: { deviceClassName: DRIVER_NAME, allocationMode: 'ExactCount', count: 1 } }] } } },
      },
      { namespace: 'dra' },
    );
    const pod = await shared.admin.create(
      resourceTypes.pod,
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'consumer' },
        spec: {
          resourceClaims: [{ name: 'nic', resourceClaimTemplateName: 'one-vf' }],
          containers: [{ name: 'app', image: 'registry.invalid/app:1', resources: { claims: [{ name: 'nic' }] } }],
          tolerations: [{ operator: 'Exists' }],
        },
      },
      { namespace: 'dra' },
    );

    await waitFor('Pod scheduled', async () => (await readPod(shared.admin, 'dra', 'consumer')).spec.nodeName === 'worker-a', { timeoutMs: 60_000 });
    const bound = await readPod(shared.admin, 'dra', 'consumer');
    const claimName = bound.status?.resourceClaimStatuses?.[0]?.resourceClaimName ?? '';
    const claim = await readResourceClaim(shared.admin, 'dra', claimName);
    expect(claim.status?.allocation?.devices?.results).toEqual([
      expect.objectContaining({ request: 'nic', driver: DRIVER_NAME, pool: 'worker-a', device: expect.stringMatching(/^0000-03-00-[12]$/) as unknown }),
    ]);
    expect(claim.status?.reservedFor).toEqual([expect.objectContaining({ resource: 'pods', name: 'consumer', uid: pod.metadata.uid })]);
  }, 90_000);
});
