// The documentation pages whose shell blocks are checked, and the workspace they are checked against.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { announcedSubcommands, binaryCommand, helpFlags, runHelp, workspaceBinaries } from './command-help.ts';
import type { ShellBlock, Workspace } from './doc-commands.ts';
import type { LinkWorkspace } from './doc-links.ts';

/** README.md, every page under docs/ and every example's README.md, repository-relative. */
export function documentationFiles(root: string): string[] {
  const below = (dir: string, keep: (name: string) => boolean): string[] =>
    fs.existsSync(path.join(root, dir))
      ? fs
          .readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
          .filter(keep)
          .map((file) => path.posix.join(dir, file))
      : [];
  return ['README.md', ...below('docs', (file) => file.endsWith('.md')), ...below('examples', (file) => path.basename(file) === 'README.md')].sort();
}

/** The workspace as the checks see it; each --help runs once. */
export function localWorkspace(root: string): Workspace {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  const binaries = workspaceBinaries(root);
  const byName = new Map(binaries.map((binary) => [binary.name, binary]));
  const helps = new Map<string, string>();
  const help = (binary: string, subcommand: readonly string[]): string => {
    const key = [binary, ...subcommand].join(' ');
    const known = byName.get(binary);
    if (known === undefined) throw new Error(`no workspace binary ${binary}`);
    const cached = helps.get(key) ?? runHelp(root, known, subcommand);
    helps.set(key, cached);
    return cached;
  };
  return {
    scripts: new Set(Object.keys(manifest.scripts ?? {})),
    exists: (relative) => fs.existsSync(path.join(root, relative)),
    topLevel: new Set(fs.readdirSync(root).filter((name) => name !== 'node_modules')),
    binaries: new Map(binaries.map((binary) => [binary.name, binary.source === undefined ? [binary.bin] : [binary.source, binary.bin]])),
    help,
    subcommands: (binary) => announcedSubcommands(help(binary, [])),
    flags: helpFlags,
  };
}

/** Links resolve inside the repository checkout. */
export function localLinkWorkspace(root: string): LinkWorkspace {
  return {
    exists: (relative) => fs.existsSync(path.join(root, relative)),
    read: (relative) => fs.readFileSync(path.join(root, relative), 'utf8'),
    resolve: (from, target) => {
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(from), target)).replace(/\/$/, '');
      return resolved.startsWith('..') ? undefined : resolved;
    },
  };
}

/**
 * Runs a runnable block with bash from the repository root, the workspace's binaries (from their sources)
 * and node_modules/.bin first on PATH; `npx <workspace binary>` runs the same, never a registry package.
 */
export function runBlock(root: string, block: ShellBlock): { status: number | null; output: string } {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-bin-'));
  try {
    for (const binary of workspaceBinaries(root)) {
      const wrapper = `#!/bin/sh\nexec "${process.execPath}" ${binaryCommand(root, binary)
        .map((word) => `"${word}"`)
        .join(' ')} "$@"\n`;
      fs.writeFileSync(path.join(bin, binary.name), wrapper, { mode: 0o755 });
    }
    const outerPath = [path.join(root, 'node_modules', '.bin'), process.env['PATH'] ?? ''].join(':');
    const npx = `#!/bin/sh\nif [ -x "${bin}/$1" ]; then name=$1; shift; exec "${bin}/$name" "$@"; fi\nPATH="${outerPath}" exec npx "$@"\n`;
    fs.writeFileSync(path.join(bin, 'npx'), npx, { mode: 0o755 });
    const env = { ...process.env, PATH: `${bin}:${outerPath}` };
    const result = spawnSync('bash', ['-euo', 'pipefail', '-c', block.text], { cwd: root, env, encoding: 'utf8', timeout: 120_000 });
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  } finally {
    fs.rmSync(bin, { recursive: true, force: true });
  }
}
