import { join } from 'node:path';
import { DRIVER_NAME } from '@sriov-dra/contract';
import { resourceTypes } from '@sriov-dra/k8s';
import { CheckpointStore } from '../checkpoint/checkpoint-store.ts';
import { managedBindingsOf } from '../managed/binding-records.ts';
import { type Orphan, findOrphans, listNodeShadows } from '../managed/orphan-scan.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, connectionFlags, parseCommandLine, runCommand } from './cli-connection.ts';
import { commandLineError } from './cli-failure.ts';
import { formatTable, writeOutput, yesNo } from './cli-output.ts';
import type { Output } from './command-io.ts';

export const ORPHANS_COMMAND = 'orphans';

const DEFAULT_PLUGINS_DIRECTORY = '/var/lib/kubelet/plugins';

export function orphansUsage(): string {
  return `Usage: sriov-dra ${ORPHANS_COMMAND} --node-name NAME [--plugins-dir DIR] [flags]

Lists the managed shadow NADs of one node that its checkpoint does not account for (§8.5): found in every
namespace (only NAMESPACE with -n) by the driver's labels and the node's UID, matched by full binding
identity. A dry run: nothing is deleted or finalized; an orphan's protection finalizer is an
administrator's decision.

  --node-name NAME     the node whose shadows and checkpoint are compared
  --plugins-dir DIR    the kubelet's plugins directory [default ${DEFAULT_PLUGINS_DIRECTORY}]; the checkpoint
                       is read from DIR/${DRIVER_NAME} and never written

${CONNECTION_USAGE}
Output: a table of NAMESPACE, NAME, REASON, PROTECTED (by the driver's finalizer) and TERMINATING; -o wide
adds the POD and CLAIM UIDs and, for reason content-mismatch (a shadow of a checkpointed binding edited by
hand or owned by another Pod, whose release waits with its record kept), DIFFERENCE: the first difference
from the record. -o json and -o yaml print {node, orphans}.
Exit status: 0 listed (orphans or none); 1 failed (one line on stderr: error code, what failed, what to do).
`;
}

function table(nodeName: string, orphans: readonly Orphan[], wide: boolean): string {
  if (orphans.length === 0) return `no orphaned shadows on node ${nodeName}\n`;
  const header = ['NAMESPACE', 'NAME', 'REASON', 'PROTECTED', 'TERMINATING', ...(wide ? ['POD', 'CLAIM', 'DIFFERENCE'] : [])];
  return formatTable(
    header,
    orphans.map((orphan) => [
      orphan.namespace,
      orphan.name,
      orphan.reason,
      yesNo(orphan.protectedByFinalizer),
      yesNo(orphan.terminating),
      ...(wide ? [orphan.podUID ?? '-', orphan.claimUID ?? '-', orphan.difference ?? '-'] : []),
    ]),
  );
}

export function orphansCommand(argv: readonly string[], out: Output, err: Output): Promise<number> {
  return runCommand(err, async (session) => {
    const { values, positionals } = parseCommandLine(ORPHANS_COMMAND, argv, {
      ...CONNECTION_OPTIONS,
      'node-name': { type: 'string' },
      'plugins-dir': { type: 'string' },
    });
    if (values.help === true) {
      out.write(orphansUsage());
      return;
    }
    if (positionals.length > 0) throw commandLineError(ORPHANS_COMMAND, `unexpected argument ${JSON.stringify(positionals[0])}`);
    const nodeName = values['node-name'];
    if (nodeName === undefined || nodeName === '') throw commandLineError(ORPHANS_COMMAND, '--node-name is required');
    const flags = connectionFlags(ORPHANS_COMMAND, values);
    const { client } = session.connect(flags);
    const node = await client.get(resourceTypes.node, { name: nodeName });
    const store = await CheckpointStore.open({ directory: join(values['plugins-dir'] ?? DEFAULT_PLUGINS_DIRECTORY, DRIVER_NAME) });
    const orphans = findOrphans(await listNodeShadows(client, node.metadata.uid), store.claims().flatMap(managedBindingsOf), node.metadata.uid).filter(
      (orphan) => flags.namespace === undefined || orphan.namespace === flags.namespace,
    );
    writeOutput(out, flags.output, { node: nodeName, orphans }, (wide) => table(nodeName, orphans, wide));
  });
}
