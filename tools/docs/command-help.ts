// The workspace's binaries as a user runs them, and what each one's --help says. The apps' flag tables are
// not importable here (tools may depend only on libs), so the reference is taken from what every binary
// prints, which its own flag definitions produce.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** A command a user types: a binary and, when it has them, one subcommand (`crds apply` is two words). */
export interface CommandHelp {
  readonly binary: string;
  /** Other names of the same program, as typed (`kubectl sriov-dra`). */
  readonly aliases: readonly string[];
  readonly subcommand: readonly string[];
  readonly help: string;
}

/** A binary named in an app's package.json `bin`. */
export interface WorkspaceBinary {
  readonly name: string;
  readonly app: string;
  /** Repository-relative path of what `bin` names: a built `dist/` file or a launcher in `bin/`. */
  readonly bin: string;
  /** Repository-relative path of the TypeScript source it runs, when known. */
  readonly source: string | undefined;
}

interface AppManifest {
  readonly bin?: Readonly<Record<string, string>>;
}

/** `./dist/admin/main.js` → `src/admin/main.ts`: the build maps each source to one output file. */
export function sourceOfBuiltFile(built: string): string | undefined {
  const match = /^(?:\.\/)?dist\/(.+)\.js$/.exec(built);
  return match === null ? undefined : `src/${match[1] ?? ''}.ts`;
}

/** A launcher (`launch(import.meta.url, 'admin/main', …)`, tools/launch/launch.js) runs `src/<entry>.ts`. */
export function sourceOfLauncher(text: string): string | undefined {
  const match = /launch\(import\.meta\.url, '([\w/-]+)'/.exec(text);
  return match === null ? undefined : `src/${match[1] ?? ''}.ts`;
}

export function workspaceBinaries(root: string): WorkspaceBinary[] {
  const apps = fs.readdirSync(path.join(root, 'apps')).sort();
  const binaries: WorkspaceBinary[] = [];
  for (const app of apps) {
    const manifestPath = path.join(root, 'apps', app, 'package.json');
    if (!fs.existsSync(manifestPath)) continue;
    const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as AppManifest;
    for (const [name, target] of Object.entries(manifest.bin ?? {})) {
      const bin = path.posix.join('apps', app, target);
      const launcher = path.join(root, bin);
      const source = sourceOfBuiltFile(target) ?? (fs.existsSync(launcher) ? sourceOfLauncher(fs.readFileSync(launcher, 'utf8')) : undefined);
      binaries.push({ name, app, bin, source: source === undefined ? undefined : `apps/${app}/${source}` });
    }
  }
  return binaries;
}

/** How to start a binary on the workspace's Node.js: its source where known, else what `bin` names. */
export function binaryCommand(root: string, binary: WorkspaceBinary): string[] {
  return binary.source === undefined ? [path.join(root, binary.bin)] : ['--conditions=@sriov-dra/source', path.join(root, binary.source)];
}

/** Subcommands a usage text announces the way every binary here does: `(<subcommand> --help)` or `(…; <subcommand> --help)`. */
export function announcedSubcommands(help: string): string[][] {
  const found = new Map<string, string[]>();
  for (const match of help.matchAll(/[(;] ?([a-z][a-z0-9-]*(?: [a-z][a-z0-9-]*)*) --help\)/g)) {
    const words = (match[1] ?? '').split(' ');
    found.set(words.join(' '), words);
  }
  return [...found.values()];
}

/** The flags a usage text names (`--flag`, `-f`), `--help` and `-h` included. */
export function helpFlags(help: string): Set<string> {
  const flags = new Set(['--help', '-h']);
  for (const match of help.matchAll(/(?<![\w$-])(--?[A-Za-z][\w-]*)/g)) flags.add(match[1] ?? '');
  return flags;
}

/** Runs `<binary> [subcommand] --help` on the workspace's Node.js from the sources. */
export function runHelp(root: string, binary: WorkspaceBinary, subcommand: readonly string[]): string {
  const result = spawnSync(process.execPath, [...binaryCommand(root, binary), ...subcommand, '--help'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (result.status !== 0) {
    throw new Error(`${[binary.name, ...subcommand, '--help'].join(' ')} exited ${String(result.status)}: ${result.stderr}`);
  }
  return result.stdout;
}

/** A bin name as a user types it: kubectl runs `kubectl-<name>` as `kubectl <name>`, `_` read as `-`. */
export function typedName(bin: string): string {
  return bin.startsWith('kubectl-') ? `kubectl ${bin.slice('kubectl-'.length).replace(/_/g, '-')}` : bin;
}

/** Every program's --help, then each subcommand's it announces, in package order; a bin running the same source as an earlier one is its alias. */
export function collectCommandHelp(root: string): CommandHelp[] {
  const binaries = workspaceBinaries(root);
  const all: CommandHelp[] = [];
  for (const binary of binaries) {
    if (
      binaries.some(
        (other) => other !== binary && other.source !== undefined && other.source === binary.source && binaries.indexOf(other) < binaries.indexOf(binary),
      )
    )
      continue;
    const aliases = binaries
      .filter((other) => other !== binary && other.source !== undefined && other.source === binary.source)
      .map((other) => typedName(other.name));
    const help = runHelp(root, binary, []);
    all.push({ binary: typedName(binary.name), aliases, subcommand: [], help });
    for (const subcommand of announcedSubcommands(help)) {
      all.push({ binary: typedName(binary.name), aliases, subcommand, help: runHelp(root, binary, subcommand) });
    }
  }
  return all;
}
