// The shell commands the documentation shows, and what each one names that must exist in this workspace:
// npm scripts, repository files, binaries' subcommands and flags. Pure: the workspace is passed in.

/** A fenced ```sh block: its file, first line and whether its info string marks it runnable. */
export interface ShellBlock {
  readonly file: string;
  readonly line: number;
  readonly runnable: boolean;
  readonly text: string;
}

/** Fenced blocks whose info string starts with `sh` (`sh`, `sh runnable`); other languages are not shell. */
export function shellBlocks(file: string, markdown: string): ShellBlock[] {
  const blocks: ShellBlock[] = [];
  const lines = markdown.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(\S*)\s*(.*)$/.exec(lines[index] ?? '');
    if (open === null) continue;
    const fence = open[2] ?? '```';
    const end = lines.findIndex((candidate, at) => at > index && candidate.trim().startsWith(fence) && candidate.trim().replace(/[`~]/g, '') === '');
    const close = end === -1 ? lines.length : end;
    if (open[3] === 'sh') {
      const runnable = (open[4] ?? '').split(/\s+/).includes('runnable');
      blocks.push({ file, line: index + 1, runnable, text: lines.slice(index + 1, close).join('\n') });
    }
    index = close;
  }
  return blocks;
}

/**
 * Splits a block into simple commands: continuation lines joined, comments and here-documents' bodies
 * dropped, split at `&&`, `||`, `;`, `|`.
 */
export function simpleCommands(block: string): string[][] {
  const joined = block.replace(/\\\n/g, ' ');
  const commands: string[][] = [];
  let hereDocument: string | undefined;
  for (const line of joined.split('\n')) {
    if (hereDocument !== undefined) {
      if (line.trim() === hereDocument) hereDocument = undefined;
      continue;
    }
    hereDocument = /<<-?\s*['"]?(\w+)['"]?/.exec(line)?.[1];
    let words: string[] = [];
    for (const token of tokenize(line)) {
      if (token === '&&' || token === '||' || token === ';' || token === '|') {
        if (words.length > 0) commands.push(words);
        words = [];
      } else words.push(token);
    }
    if (words.length > 0) commands.push(words);
  }
  return commands;
}

/** Shell words with quotes removed; a `#` starting a word ends the line. Operators are words of their own. */
export function tokenize(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: string | undefined;
  let started = false;
  for (let at = 0; at < line.length; at++) {
    const char = line[at] ?? '';
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      else word += char;
      continue;
    }
    if (char === '"' || char === "'") {
      quote = char;
      started = true;
      continue;
    }
    if (char === '#' && !started) break;
    const two = line.slice(at, at + 2);
    if (two === '&&' || two === '||' || char === ';' || char === '|') {
      if (started) words.push(word);
      words.push(two === '&&' || two === '||' ? two : char);
      word = '';
      started = false;
      if (two === '&&' || two === '||') at++;
      continue;
    }
    if (/\s/.test(char)) {
      if (started) words.push(word);
      word = '';
      started = false;
      continue;
    }
    word += char;
    started = true;
  }
  if (started) words.push(word);
  return words;
}

/** What the checks need to know about the workspace. */
export interface Workspace {
  readonly scripts: ReadonlySet<string>;
  /** Repository-relative path exists (file or directory). */
  exists(relative: string): boolean;
  /** Top-level entries of the repository: a word starting with one of them is a repository path. */
  readonly topLevel: ReadonlySet<string>;
  /** Binary name → the repository files that start it (its source, its bin entry), for binaries of this workspace. */
  readonly binaries: ReadonlyMap<string, readonly string[]>;
  /** `<binary> [subcommand] --help` output. */
  help(binary: string, subcommand: readonly string[]): string;
  /** The subcommands a binary's --help announces. */
  subcommands(binary: string): readonly (readonly string[])[];
  /** The flags a help text names. */
  flags(help: string): ReadonlySet<string>;
}

export interface Finding {
  readonly command: string;
  readonly problem: string;
}

const SHELL_PREFIXES = new Set(['sudo', 'exec', 'time', 'then', 'do', 'else']);

/** `apps/x/dist/main.js` names the file built from `apps/x/src/main.ts`, which is what the repository holds. */
function repositoryPath(word: string, workspace: Workspace): string | undefined {
  const cleaned = word
    .replace(/^[<>]+/, '')
    .replace(/^\.\//, '')
    .replace(/[),:]+$/, '');
  if (cleaned.includes('<') || cleaned.includes('$') || cleaned.includes('*') || cleaned.includes('{')) return undefined;
  const first = cleaned.split('/')[0] ?? '';
  if (!workspace.topLevel.has(first) || first === cleaned) return undefined;
  return cleaned.replace(/^(apps\/[^/]+)\/dist\/(.+)\.js$/, '$1/src/$2.ts');
}

function checkBinary(binary: string, args: readonly string[], text: string, workspace: Workspace): Finding[] {
  const findings: Finding[] = [];
  const separator = args.indexOf('--');
  const own = separator === -1 ? args : args.slice(0, separator);
  const known = workspace.subcommands(binary);
  let subcommand: readonly string[] = [];
  if (known.length > 0 && own[0] !== undefined && !own[0].startsWith('-')) {
    const match = [...known].sort((a, b) => b.length - a.length).find((words) => words.every((word, at) => own[at] === word));
    if (match === undefined) return [{ command: text, problem: `${binary} has no subcommand ${JSON.stringify(own[0])}` }];
    subcommand = match;
  }
  const help = workspace.help(binary, subcommand);
  const flags = workspace.flags(help);
  for (const word of own.slice(subcommand.length)) {
    if (!/^--?[A-Za-z]/.test(word)) continue;
    const flag = word.split('=')[0] ?? word;
    if (!flags.has(flag)) findings.push({ command: text, problem: `${[binary, ...subcommand].join(' ')} --help lists no ${flag}` });
  }
  return findings;
}

/** Checks one simple command; `words` has any leading `VAR=value` assignments. */
export function checkCommand(words: readonly string[], workspace: Workspace): Finding[] {
  const text = words.join(' ');
  let rest = [...words];
  while (rest[0] !== undefined && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0]) || SHELL_PREFIXES.has(rest[0]))) rest = rest.slice(1);
  const findings: Finding[] = [];
  for (const word of rest) {
    const file = repositoryPath(word.includes('=') ? (word.split('=').at(-1) ?? word) : word, workspace);
    if (file !== undefined && !workspace.exists(file)) findings.push({ command: text, problem: `no file ${file} in the repository` });
  }
  const [program, ...args] = rest;
  if (program === undefined) return findings;
  if (program === 'npm' && (args[0] === 'run' || args[0] === 'run-script')) {
    const script = args[1];
    if (script === undefined || !workspace.scripts.has(script)) findings.push({ command: text, problem: `package.json has no script ${String(script)}` });
    return findings;
  }
  if (program === 'npm' && args[0] !== undefined && ['test', 'start'].includes(args[0]) && !workspace.scripts.has(args[0])) {
    findings.push({ command: text, problem: `package.json has no script ${args[0]}` });
  }
  if (program === 'kubectl' && args[0] === 'exec') {
    const separator = args.indexOf('--');
    if (separator !== -1) findings.push(...checkCommand(args.slice(separator + 1), workspace).map((finding) => ({ ...finding, command: text })));
    return findings;
  }
  if (program === 'kubectl' && args[0] !== undefined && !args[0].startsWith('-') && workspace.binaries.has(`kubectl-${args[0].replace(/-/g, '_')}`)) {
    return [...findings, ...checkBinary(`kubectl-${args[0].replace(/-/g, '_')}`, args.slice(1), text, workspace)];
  }
  if (program === 'kubectl' && args[0] === 'sriov-dra') {
    return [...findings, { command: text, problem: 'no workspace binary kubectl-sriov_dra (the kubectl plugin) in any app package.json bin' }];
  }
  if (program === 'npx' && args[0] !== undefined && workspace.binaries.has(args[0]))
    return [...findings, ...checkBinary(args[0], args.slice(1), text, workspace)];
  if (workspace.binaries.has(program)) return [...findings, ...checkBinary(program, args, text, workspace)];
  const nodeArgs = program === 'node' ? args : program === 'npx' && args[0] === 'node' ? args.slice(1) : undefined;
  if (nodeArgs !== undefined) {
    const scriptAt = nodeArgs.findIndex((word) => !word.startsWith('-'));
    const script = scriptAt === -1 ? undefined : repositoryPath(nodeArgs[scriptAt] ?? '', workspace);
    const binary = script === undefined ? undefined : [...workspace.binaries].find(([, files]) => files.includes(script))?.[0];
    if (binary !== undefined) findings.push(...checkBinary(binary, nodeArgs.slice(scriptAt + 1), text, workspace));
  }
  return findings;
}

export function checkBlock(block: ShellBlock, workspace: Workspace): Finding[] {
  return simpleCommands(block.text).flatMap((words) => checkCommand(words, workspace));
}
