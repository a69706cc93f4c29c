import { DRIVER_NAME, MANAGED_BY_VALUE, labels } from '@sriov-dra/contract';
import { type KubeClient, resourceTypes } from '@sriov-dra/k8s';
import { nodeShadowSelector } from '../managed/orphan-scan.ts';
import { checkpointPhases } from './checkpoint-phases.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, connectionFlags, getIfPresent, parseCommandLine, runCommand } from './cli-connection.ts';
import { commandLineError } from './cli-failure.ts';
import { writeOutput } from './cli-output.ts';
import type { Output } from './command-io.ts';
import { type StatusInput, podOwnersOf, statusOverview, statusTable } from './status-overview.ts';

export const STATUS_COMMAND = 'status';

export function statusUsage(): string {
  return `Usage: sriov-dra ${STATUS_COMMAND} [--node-name NAME [--plugins-dir DIR]] [-o table|wide|json|yaml]

An overview of the driver from the API, per node and in total: whether the driver serves the node (it
published the node's ResourceSlice and the node is Ready), the VFs published, allocated to claims and bound
to shadow NADs, the node's Pods' bindings by the state \`sriov-dra inspect\` gives them, and the shadows
whose Pod is gone or replaced. The shadows a node's checkpoint no longer accounts for are found on the
node by \`sriov-dra orphans\`.

  --node-name NAME     one node instead of all
  --plugins-dir DIR    on that node: the kubelet plugins directory (/var/lib/kubelet/plugins); adds its
                       checkpoint's bindings by phase (Pending, Ready, Deleting, ReleaseComplete), read
                       without changing it

${CONNECTION_USAGE}
Exit status: 0 shown; 1 failed (one line on stderr: code, what failed, what to do).
`;
}

/** Everything the overview joins, for every node or one: its slices, claims, Pods and shadows. */
async function gather(client: KubeClient, nodeName: string | undefined, pluginsDir: string | undefined): Promise<StatusInput> {
  const claims = await client.listAll(resourceTypes.resourceClaim);
  if (nodeName === undefined) {
    return {
      nodes: await client.listAll(resourceTypes.node),
      slices: await client.listAll(resourceTypes.resourceSlice, { fieldSelector: `spec.driver=${DRIVER_NAME}` }),
      claims,
      pods: await client.listAll(resourceTypes.pod),
      shadows: await client.listAll(resourceTypes.networkAttachmentDefinition, { labelSelector: `${labels.managedBy}=${MANAGED_BY_VALUE}` }),
    };
  }
  const node = await client.get(resourceTypes.node, { name: nodeName });
  const pods = await client.listAll(resourceTypes.pod, { fieldSelector: `spec.nodeName=${nodeName}` });
  const shadows = await client.listAll(resourceTypes.networkAttachmentDefinition, { labelSelector: nodeShadowSelector(node.metadata.uid) });
  // A shadow's Pod missing from the node may have been replaced by a Pod of the same name elsewhere.
  const present = new Set(pods.map((pod) => pod.metadata.uid));
  for (const shadow of shadows) {
    for (const owner of podOwnersOf(shadow)) {
      if (present.has(owner.uid)) continue;
      const pod = await getIfPresent(() => client.get(resourceTypes.pod, { namespace: shadow.metadata.namespace ?? '', name: owner.name }));
      if (pod !== undefined && !present.has(pod.metadata.uid)) {
        present.add(pod.metadata.uid);
        pods.push(pod);
      }
    }
  }
  return {
    nodes: [node],
    slices: await client.listAll(resourceTypes.resourceSlice, { fieldSelector: `spec.driver=${DRIVER_NAME},spec.nodeName=${nodeName}` }),
    claims,
    pods,
    shadows,
    ...(pluginsDir === undefined ? {} : { checkpoint: { node: nodeName, phases: await checkpointPhases(pluginsDir) } }),
  };
}

export function statusCommand(argv: readonly string[], out: Output, err: Output): Promise<number> {
  return runCommand(err, async (session) => {
    const { values, positionals } = parseCommandLine(STATUS_COMMAND, argv, {
      ...CONNECTION_OPTIONS,
      'node-name': { type: 'string' },
      'plugins-dir': { type: 'string' },
    });
    if (values.help === true) {
      out.write(statusUsage());
      return;
    }
    const flags = connectionFlags(STATUS_COMMAND, values);
    if (positionals.length > 0) throw commandLineError(STATUS_COMMAND, `unexpected argument ${JSON.stringify(positionals[0])}`);
    if (flags.namespace !== undefined) throw commandLineError(STATUS_COMMAND, 'status spans every namespace; -n does not apply');
    const { 'node-name': nodeName, 'plugins-dir': pluginsDir } = values;
    if (nodeName === '') throw commandLineError(STATUS_COMMAND, '--node-name needs a value');
    if (pluginsDir !== undefined && nodeName === undefined)
      throw commandLineError(STATUS_COMMAND, '--plugins-dir reads one node’s checkpoint: give that node with --node-name');
    const { client } = session.connect(flags);
    const overview = statusOverview(await gather(client, nodeName, pluginsDir));
    writeOutput(out, flags.output, overview, (wide) => statusTable(overview, wide));
  });
}
