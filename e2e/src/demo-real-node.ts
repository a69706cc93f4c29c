// npm run demo -- --real-node: the same demo on a real node. containerd and the kubelet run on this machine,
// the chart is installed by Helm with the images built from the repository's Dockerfiles, every component is
// a Pod, and the table's addresses are what the workload's container itself shows. Exits non-zero if any
// of that is not so.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { resourceTypes } from '@sriov-dra/k8s';
import { formatRows, podNetworkRows } from './report/pod-networks.ts';
import { type RealStack, startRealStack } from './real-node/real-stack.ts';
import { containerAddresses, deletePodAndWait, onRealNode, waitRunning } from './real-node/workload.ts';
import { pairsPod, setUpPairs } from './scenarios/gpu-nic-pairs.ts';
import { settledLeftovers } from './stack/leftovers.ts';
import { demoVerdict, runDemo, say } from './report/demo-run.ts';
import { WORKLOADS } from './stack/stack.ts';

const ADMIN_CLI = fileURLToPath(new URL('../../apps/dra-driver/src/admin/main.ts', import.meta.url));
const POD = 'gpu-sriov-pairs-demo';

async function demo(stack: RealStack): Promise<boolean> {
  say('\n== examples/gpu-nic-pairs (§14.2): the administrator maps each rail PF to its network template; the workload names none');
  await setUpPairs(stack.admin, { whereaboutsConfig: stack.hardware.whereaboutsConfig });

  say(`== creating Pod ${WORKLOADS}/${POD}: two GPU/NIC pairs matched by PCIe root, no networks annotation`);
  const created = performance.now();
  await stack.admin.create(resourceTypes.pod, onRealNode(pairsPod(POD), stack.images.busybox.image), { namespace: WORKLOADS });
  await waitRunning(stack, WORKLOADS, POD);
  say(
    `   Running after ${String(Math.round(performance.now() - created))} ms (scheduling, the kubelet's prepare of both drivers, sandbox, CNI ADD through multus-shim)\n`,
  );

  const inside = containerAddresses(stack, WORKLOADS, POD);
  const rows = await podNetworkRows(stack.admin, { namespace: WORKLOADS, name: POD }, inside);
  say(formatRows(rows));
  say(`\n== kubectl exec ${POD} -- ip -4 -o addr (the container's own view)`);
  say(stack.kubectl(['exec', '-n', WORKLOADS, POD, '--', 'ip', '-4', '-o', 'addr', 'show']).trimEnd());

  say(`\n== sriov-dra inspect pod ${WORKLOADS}/${POD}`);
  const inspect = spawnSync(
    process.execPath,
    ['--conditions=@sriov-dra/source', ADMIN_CLI, 'inspect', 'pod', `${WORKLOADS}/${POD}`, '--plugins-dir', path.join(stack.node.kubeletDir, 'plugins')],
    { encoding: 'utf8', env: { ...process.env, KUBECONFIG: stack.cluster.adminKubeconfig } },
  );
  process.stdout.write(inspect.stdout + inspect.stderr);

  say('\n== deleting the Pod: the kubelet stops the sandbox (CNI DEL), then unprepares; shadows released');
  await deletePodAndWait(stack.admin, WORKLOADS, POD);
  return demoVerdict(rows, inspect.status, await settledLeftovers(stack.leftoverSource));
}

await runDemo(
  '== starting a real node: control plane, containerd and the kubelet, the chart by helm install with the locally built images, GPU stand-in',
  'real node',
  (log) => startRealStack({ log }),
  demo,
);
