// npm run demo: the whole stack on a simulated node, installed from the chart; §14.2's Pod asks for two
// GPU/NIC pairs by PCIe root and nothing else; the table shows what it got, `sriov-dra inspect` explains
// it, and the Pod's deletion is shown to leave nothing behind. Exits non-zero if any of that is not so.
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { type KubeObject, isApiError, resourceTypes } from '@sriov-dra/k8s';
import { waitFor } from '@sriov-dra/k8s/testing';
import { formatRows, podNetworkRows } from './report/pod-networks.ts';
import { createDirectRailMapping, createPairsTemplate, createPcieDeviceClasses, pairsPod } from './scenarios/gpu-nic-pairs.ts';
import { settledLeftovers } from './stack/leftovers.ts';
import { demoVerdict, runDemo, say } from './report/demo-run.ts';
import { type Stack, WORKLOADS, startStack } from './stack/stack.ts';

const ADMIN_CLI = fileURLToPath(new URL('../../apps/dra-driver/src/admin/main.ts', import.meta.url));
const POD = 'gpu-sriov-pairs-demo';

async function podPhase(stack: Stack): Promise<string | undefined> {
  try {
    return (await stack.admin.get<KubeObject & { status?: { phase?: string } }>(resourceTypes.pod, { namespace: WORKLOADS, name: POD })).status?.phase;
  } catch (error) {
    if (isApiError(error, 'NotFound')) return undefined;
    throw error;
  }
}

async function demo(stack: Stack): Promise<boolean> {
  say('\n== examples/gpu-nic-pairs (§14.2): the administrator maps each rail PF to its network template; the workload names none');
  await createPcieDeviceClasses(stack.admin);
  await createPairsTemplate(stack.admin);
  await createDirectRailMapping(stack.admin, { whereaboutsConfig: stack.node.whereaboutsConfig });

  say(`== creating Pod ${WORKLOADS}/${POD}: two GPU/NIC pairs matched by PCIe root, no networks annotation`);
  const created = performance.now();
  const pod = await stack.admin.create(resourceTypes.pod, pairsPod(POD), { namespace: WORKLOADS });
  await waitFor('the Pod to run', async () => (await podPhase(stack)) === 'Running', { timeoutMs: 120_000, describe: () => stack.driver.logTail() });
  say(`   Running after ${String(Math.round(performance.now() - created))} ms (scheduling, two drivers' prepare, CNI ADD through multus-shim)\n`);

  const rows = await podNetworkRows(stack.admin, { namespace: WORKLOADS, name: POD }, stack.kubelet.sandbox(pod.metadata.uid)?.netns);
  say(formatRows(rows));

  say(`\n== sriov-dra inspect pod ${WORKLOADS}/${POD}`);
  const inspect = spawnSync(
    process.execPath,
    ['--conditions=@sriov-dra/source', ADMIN_CLI, 'inspect', 'pod', `${WORKLOADS}/${POD}`, '--plugins-dir', stack.node.pluginsDir],
    { encoding: 'utf8', env: { ...process.env, KUBECONFIG: stack.cluster.adminKubeconfig } },
  );
  process.stdout.write(inspect.stdout + inspect.stderr);

  say('\n== deleting the Pod: CNI DEL, unprepare, shadows released');
  await stack.admin.delete(resourceTypes.pod, { namespace: WORKLOADS, name: POD });
  await waitFor('the Pod to be gone', async () => (await podPhase(stack)) === undefined, { timeoutMs: 60_000 });
  return demoVerdict(rows, inspect.status, await settledLeftovers(stack));
}

await runDemo(
  '== starting the stack: control plane, chart, driver, Multus daemon, operator, GPU stand-in, kubelet simulator',
  'simulated node',
  (log) => startStack({ log }),
  demo,
);
