// Workloads on a real node while the chart's node components are replaced under them: a helm upgrade that
// rolls both DaemonSets (the driver's and the Multus daemon's) leaves a running Pod attached as it was and
// a Pod created afterwards comes up; and the driver Pod deleted right after §14.2's Pod is created, so the
// kubelet's NodePrepareResources meets a driver going away and is answered by its replacement.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { resourceTypes } from '@sriov-dra/k8s';
import { driverPrepareRequests } from '../../src/real-node/driver-metrics.ts';
import { type RealStack, startRealStack } from '../../src/real-node/real-stack.ts';
import { componentPods, deletePodAndWait, onRealNode, waitRunning } from '../../src/real-node/workload.ts';
import { ONE_VF_TEMPLATE, createOneVfTemplate } from '../../src/scenarios/churn.ts';
import { pairsPod, setUpPairs } from '../../src/scenarios/gpu-nic-pairs.ts';
import { DUAL_RAIL_LABEL, RELEASE_NAMESPACE, WORKLOADS } from '../../src/stack/stack.ts';
import {
  attachmentsOf,
  deleteWorkloadPods,
  expectNothingLeft,
  expectPairsOnTheirRails,
  expectVfsOnTheirRails,
  podEventReasons,
  rowsOf,
  runOnRealNode,
} from './real-pod.ts';

const DRIVER = 'dra-driver-sriov';
const DAEMON = 'multus-live-read-proxy';

/** A Pod with one VF of any rail (§14.2's DeviceClass), which the administrator's mapping puts on its PF's rail. */
function oneVfPod(name: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      nodeSelector: { [DUAL_RAIL_LABEL]: 'true' },
      terminationGracePeriodSeconds: 5,
      containers: [{ name: 'workload', image: 'registry.example.com/app:1', resources: { claims: [{ name: 'nic' }] } }],
      resourceClaims: [{ name: 'nic', resourceClaimTemplateName: ONE_VF_TEMPLATE }],
    },
  };
}

type ComponentPod = Awaited<ReturnType<typeof componentPods>>[number];

describe('workloads on a real node while the chart’s node components are replaced', () => {
  let stack: RealStack;
  let passed = true;

  /** The component's Pod that is not going away. */
  const livePod = async (component: string): Promise<ComponentPod> => {
    const live = (await componentPods(stack, RELEASE_NAMESPACE, component)).filter((pod) => pod.metadata.deletionTimestamp === undefined);
    const [only] = live;
    if (only === undefined || live.length > 1) throw new Error(`${String(live.length)} live ${component} Pods`);
    return only;
  };

  beforeAll(async () => {
    stack = await startRealStack({ log: (line) => process.stderr.write(`${line}\n`) });
    await setUpPairs(stack.admin, { whereaboutsConfig: stack.hardware.whereaboutsConfig });
    await createOneVfTemplate(stack.admin);
  }, 600_000);

  afterEach(async () => {
    await deleteWorkloadPods(stack);
  }, 180_000);

  afterAll(async () => {
    await stack.stop(!passed);
  }, 300_000);

  it('keeps a running Pod attached through a helm upgrade that rolls the driver and the daemon, and runs a Pod created after it', async () => {
    passed = false;
    const running = 'across-the-upgrade';
    expectPairsOnTheirRails(stack, await runOnRealNode(stack, pairsPod(running)));
    const before = await attachmentsOf(stack, running);
    const driverBefore = await livePod(DRIVER);
    const daemonBefore = await livePod(DAEMON);

    stack.upgrade(['multus-live-read-proxy.logLevel=debug', 'dra-driver.kubeApi.qps=6']);
    // Both DaemonSets rolled: new Pods, the driver's with the upgraded setting.
    const driverAfter = await livePod(DRIVER);
    const daemonAfter = await livePod(DAEMON);
    const qps = (driverAfter['spec'] as { containers: { env?: { name: string; value?: string }[] }[] }).containers
      .flatMap((container) => container.env ?? [])
      .find((variable) => variable.name === 'KUBE_API_QPS')?.value;
    expect({
      driverReplaced: driverAfter.metadata.uid !== driverBefore.metadata.uid,
      daemonReplaced: daemonAfter.metadata.uid !== daemonBefore.metadata.uid,
      qps,
    }).toEqual({
      driverReplaced: true,
      daemonReplaced: true,
      qps: '6',
    });

    expect(await attachmentsOf(stack, running)).toEqual(before);
    const after = 'after-the-upgrade';
    expectVfsOnTheirRails(stack, await runOnRealNode(stack, oneVfPod(after)));

    for (const name of [running, after]) await deletePodAndWait(stack.admin, WORKLOADS, name);
    await expectNothingLeft(stack);
    passed = true;
  }, 420_000);

  it('runs §14.2’s Pod whose prepare met the driver Pod being replaced, answered by the new driver', async () => {
    passed = false;
    const name = 'across-a-driver-restart';
    const driverBefore = await livePod(DRIVER);
    await stack.admin.create(resourceTypes.pod, onRealNode(pairsPod(name), stack.images.busybox.image), { namespace: WORKLOADS });
    await stack.admin.delete(resourceTypes.pod, { namespace: RELEASE_NAMESPACE, name: driverBefore.metadata.name });

    await waitRunning(stack, WORKLOADS, name, 180_000);
    expect((await livePod(DRIVER)).metadata.uid).not.toBe(driverBefore.metadata.uid);
    expectPairsOnTheirRails(stack, await rowsOf(stack, name));
    // The kubelet's first NodePrepareResources met the driver going away and failed; the replacement
    // process prepared the claim (its count starts at zero). Without the failure the deletion came too
    // late and the old driver prepared it: the scenario did not happen.
    expect({
      kubeletRetried: (await podEventReasons(stack, name)).includes('FailedPrepareDynamicResources'),
      newDriverPrepares: await driverPrepareRequests(stack),
    }).toEqual({ kubeletRetried: true, newDriverPrepares: { ok: 1 } });

    await deletePodAndWait(stack.admin, WORKLOADS, name);
    await expectNothingLeft(stack);
    passed = true;
  }, 300_000);
});
