// The loopback control plane the API-facing benchmarks run on: the benchmark node, and one policy whose
// only config selects every VF and merges one DeviceAttributes object into each.
import { DRIVER_API_VERSION } from '@sriov-dra/contract';
import { resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import { BENCH_NODE } from './fake-node.ts';

/** The driver's namespace, where its policies live. */
export const DRIVER_NAMESPACE = 'dra-driver-sriov';

export async function startBenchCluster(): Promise<ControlPlane> {
  const started = performance.now();
  const cp = await startControlPlane();
  console.log(`control plane ready in ${Math.round(performance.now() - started)} ms`);
  const client = cp.adminClient;
  await installCrds(client);
  await createNamespace(client, DRIVER_NAMESPACE);
  await client.create(resourceTypes.node, { apiVersion: 'v1', kind: 'Node', metadata: { name: BENCH_NODE, labels: { 'kubernetes.io/hostname': BENCH_NODE } } });
  await client.create(
    resourceTypes.deviceAttributes,
    {
      apiVersion: DRIVER_API_VERSION,
      kind: 'DeviceAttributes',
      metadata: { name: 'rail', labels: { rail: 'all' } },
      spec: { attributes: { netAttachDefName: { string: 'rail-net' } } },
    },
    { namespace: DRIVER_NAMESPACE },
  );
  await client.create(
    resourceTypes.sriovResourcePolicy,
    {
      apiVersion: DRIVER_API_VERSION,
      kind: 'SriovResourcePolicy',
      metadata: { name: 'all-vfs' },
      spec: { configs: [{ deviceAttributesSelector: { matchLabels: { rail: 'all' } } }] },
    },
    { namespace: DRIVER_NAMESPACE },
  );
  return cp;
}
