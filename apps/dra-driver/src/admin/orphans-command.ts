import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DRIVER_NAME, isSriovDraError } from '@sriov-dra/contract';
import { KubeClient, resourceTypes } from '@sriov-dra/k8s';
import { CheckpointStore } from '../checkpoint/checkpoint-store.ts';
import { managedBindingsOf } from '../managed/binding-records.ts';
import { findOrphans, listNodeShadows } from '../managed/orphan-scan.ts';
import { EXIT, type Output } from './command-io.ts';

export const ORPHANS_COMMAND = 'orphans';

const DEFAULT_PLUGINS_DIRECTORY = '/var/lib/kubelet/plugins';

export function orphansUsage(): string {
  return `Usage: sriov-dra ${ORPHANS_COMMAND} --node-name NAME [--plugins-dir DIR] [--kubeconfig FILE]

Lists the managed shadow NADs of one node that its checkpoint does not account for (§8.5): found in any
namespace by the driver's labels and the node's UID, matched by full binding identity. A dry run: nothing
is deleted or finalized; an orphan's protection finalizer is an administrator's decision.

  --node-name NAME     the node whose shadows and checkpoint are compared
  --plugins-dir DIR    the kubelet's plugins directory [default ${DEFAULT_PLUGINS_DIRECTORY}]; the checkpoint
                       is read from DIR/${DRIVER_NAME} and never written
  --kubeconfig FILE    [default: $KUBECONFIG, ~/.kube/config, then in-cluster]

Output: one line per orphan, "namespace/name reason protected=yes|no terminating=yes|no pod=UID claim=UID",
and for reason content-mismatch (a shadow of a checkpointed binding edited by hand or owned by another
Pod, whose release waits with its record kept) difference="the first difference from the record".
Exit status: 0 listed (orphans or none); 1 the node, the checkpoint or the API refused (code and remedy on
stderr); 2 the command line is unusable.
`;
}

/** Every binding the checkpoint holds, with the identity a shadow must carry to be accounted for. */
const yesNo = (value: boolean): string => (value ? 'yes' : 'no');

export async function orphansCommand(argv: readonly string[], out: Output, err: Output): Promise<number> {
  let values: { 'node-name'?: string; 'plugins-dir'?: string; kubeconfig?: string; help?: boolean };
  try {
    values = parseArgs({
      args: [...argv],
      options: { 'node-name': { type: 'string' }, 'plugins-dir': { type: 'string' }, kubeconfig: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    err.write(`${typeof error === 'object' && error !== null && 'message' in error ? String(error.message) : String(error)}\n${orphansUsage()}`);
    return EXIT.usage;
  }
  if (values.help === true) {
    out.write(orphansUsage());
    return EXIT.ok;
  }
  const nodeName = values['node-name'];
  if (nodeName === undefined || nodeName === '') {
    err.write(`--node-name is required\n${orphansUsage()}`);
    return EXIT.usage;
  }
  try {
    const client = KubeClient.fromKubeConfig(values.kubeconfig);
    try {
      const node = await client.get(resourceTypes.node, { name: nodeName });
      const store = await CheckpointStore.open({ directory: join(values['plugins-dir'] ?? DEFAULT_PLUGINS_DIRECTORY, DRIVER_NAME) });
      const orphans = findOrphans(await listNodeShadows(client, node.metadata.uid), store.claims().flatMap(managedBindingsOf), node.metadata.uid);
      for (const orphan of orphans) {
        out.write(
          `${orphan.namespace}/${orphan.name} ${orphan.reason} protected=${yesNo(orphan.protectedByFinalizer)} terminating=${yesNo(orphan.terminating)} pod=${orphan.podUID ?? '-'} claim=${orphan.claimUID ?? '-'}${orphan.difference === undefined ? '' : ` difference=${JSON.stringify(orphan.difference)}`}\n`,
        );
      }
      if (orphans.length === 0) out.write(`no orphaned shadows on node ${nodeName}\n`);
      return EXIT.ok;
    } finally {
      client.close();
    }
  } catch (error) {
    if (!isSriovDraError(error)) throw error;
    err.write(`${error.message}\n`);
    return EXIT.refused;
  }
}
