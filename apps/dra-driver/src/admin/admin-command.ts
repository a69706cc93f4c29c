import { SriovDraError } from '@sriov-dra/contract';
import { VERSION_FLAG, buildIdentity, versionLine } from '@sriov-dra/k8s';
import { PACKAGE_DIR } from '../package-dir.ts';
import { failureLine } from './cli-failure.ts';
import { EXIT, type Output } from './command-io.ts';
import { INSPECT_COMMAND, inspectCommand } from './inspect-command.ts';
import { ORPHANS_COMMAND, orphansCommand } from './orphans-command.ts';
import { renderCommand } from './render-command.ts';
import { RENDER_COMMAND } from './render-flags.ts';
import { STATUS_COMMAND, statusCommand } from './status-command.ts';

interface Subcommand {
  readonly summary: string;
  run(argv: readonly string[], out: Output, err: Output): Promise<number>;
}

/** The administrator's subcommands, one entry each; every one answers --help itself. */
const SUBCOMMANDS: Readonly<Record<string, Subcommand>> = {
  [RENDER_COMMAND]: { summary: 'render a source NAD for one VF: the shadow configuration or the whole shadow NAD', run: renderCommand },
  [INSPECT_COMMAND]: { summary: 'show a Pod’s managed networks: claim, device, template, shadow, interface, addresses, state', run: inspectCommand },
  [ORPHANS_COMMAND]: { summary: 'list a node’s shadow NADs its checkpoint does not account for (dry run)', run: orphansCommand },
  [STATUS_COMMAND]: { summary: 'per node and in total: driver ready, VFs published, allocated, managed, bindings by state, orphans', run: statusCommand },
};

/** The registered command names, in --help order. */
export const ADMIN_COMMANDS: readonly string[] = Object.keys(SUBCOMMANDS);

function usage(): string {
  const width = Math.max(...Object.keys(SUBCOMMANDS).map((name) => name.length));
  const lines = Object.entries(SUBCOMMANDS).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary} (${name} --help)`);
  return `Usage: sriov-dra <command> [flags]\n       sriov-dra ${VERSION_FLAG}   (prints the release and source commit)\n\n${lines.join('\n')}\n`;
}

/** `sriov-dra <command> …`: runs one subcommand and returns the process exit status. */
export async function runAdminCommand(argv: readonly string[], out: Output, err: Output, env: Readonly<Record<string, string | undefined>>): Promise<number> {
  const [name, ...args] = argv;
  const command = name === undefined || !Object.hasOwn(SUBCOMMANDS, name) ? undefined : SUBCOMMANDS[name];
  if (command !== undefined) return command.run(args, out, err);
  if (name === VERSION_FLAG) {
    out.write(versionLine('sriov-dra', await buildIdentity(PACKAGE_DIR, env)));
    return EXIT.ok;
  }
  if (name === '--help' || name === '-h') {
    out.write(usage());
    return EXIT.ok;
  }
  err.write(
    `${failureLine(new SriovDraError('InvalidCommandLine', name === undefined ? 'no command given' : `unknown command ${JSON.stringify(name)}`, { remedy: `see sriov-dra --help for the commands: ${ADMIN_COMMANDS.join(', ')}` }))}\n`,
  );
  return EXIT.failed;
}
