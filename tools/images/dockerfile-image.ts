// Assembles what a Dockerfile's final stage would contain, on this machine, without a container engine
// (none exists where the tests run): each stage gets a directory standing for its root, COPY copies from
// the build context (less what its .dockerignore excludes) or an earlier stage's directory, RUN runs in the
// stage's WORKDIR there. Stages built from images this machine cannot run (a Go toolchain image) are supplied
// ready-made by the caller.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { contextRules } from './dockerignore.ts';

export interface ImageConfig {
  /** The final stage's root directory. */
  readonly root: string;
  readonly workdir: string;
  readonly env: Readonly<Record<string, string>>;
  readonly user: string | undefined;
  readonly entrypoint: readonly string[];
  readonly cmd: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
}

interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

interface Stage {
  readonly name: string | undefined;
  /** The image the stage starts from, its build arguments substituted. */
  readonly from: string;
  readonly instructions: Instruction[];
}

/** Build arguments: those passed to the build, over the defaults the Dockerfile declares. */
export type BuildArgs = Readonly<Record<string, string>>;

/** `ARG` declarations: name and default (undefined when the declaration has none), in order. */
function argDeclarations(args: string): [string, string | undefined][] {
  return args.split(/\s+/).map((declaration) => {
    const [name = '', ...value] = declaration.split('=');
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`ARG ${args}: ${JSON.stringify(name)} is not a name`);
    return [name, value.length === 0 ? undefined : value.join('=')];
  });
}

/** `$NAME` and `${NAME}` replaced by the argument's value; a name without one is an error, not an empty string. */
function substitute(text: string, values: ReadonlyMap<string, string | undefined>, where: string): string {
  return text.replace(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g, (_match, braced: string | undefined, bare: string | undefined) => {
    const name = braced ?? bare ?? '';
    const value = values.get(name);
    if (value === undefined) throw new Error(`${where}: ${name} has no value (an ARG before the first FROM gives it one, by default or build argument)`);
    return value;
  });
}

/**
 * The Dockerfile's stages, continuation lines joined and comments dropped. Arguments declared before the
 * first FROM (their defaults, or `buildArgs` over them) are substituted in FROM; `ARG` in a stage stays an
 * instruction of that stage.
 */
export function parseDockerfile(text: string, buildArgs: BuildArgs = {}): Stage[] {
  const stages: Stage[] = [];
  const globalArgs = new Map<string, string | undefined>();
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(\S+)\s+(.*)$/.exec(line);
    if (match === null) throw new Error(`cannot read Dockerfile line ${JSON.stringify(line)}`);
    const keyword = (match[1] ?? '').toUpperCase();
    const args = (match[2] ?? '').trim();
    if (keyword === 'FROM') {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (from === null) throw new Error(`cannot read FROM ${args}`);
      stages.push({ from: substitute(from[1] ?? '', globalArgs, `FROM ${args}`), name: from[2], instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (stage === undefined) {
      if (keyword !== 'ARG') throw new Error(`${keyword} before the first FROM`);
      for (const [name, value] of argDeclarations(args)) globalArgs.set(name, buildArgs[name] ?? value);
      continue;
    }
    stage.instructions.push({ keyword, args });
  }
  // Each stage ARG carries its value: the build argument, else its default, else (as a build does) the
  // value of the argument of its name declared before the first FROM; none when there is none of these.
  return stages.map((stage) => ({
    ...stage,
    instructions: stage.instructions.map((instruction) =>
      instruction.keyword === 'ARG'
        ? {
            keyword: 'ARG',
            args: argDeclarations(instruction.args)
              .map(([name, value]) => {
                const resolved = buildArgs[name] ?? value ?? globalArgs.get(name);
                return resolved === undefined ? name : `${name}=${resolved}`;
              })
              .join(' '),
          }
        : instruction,
    ),
  }));
}

/**
 * RUN's command without its flags. A cache mount only keeps a tool's cache from one build to the next, so the
 * command does the same without it; any other flag changes what the command sees and is refused.
 */
function runCommand(args: string): string {
  let command = args;
  for (let flag = /^--(\S+)\s+/.exec(command); flag !== null; flag = /^--(\S+)\s+/.exec(command)) {
    const [whole, option = ''] = flag;
    if (!(option.startsWith('mount=') && option.slice('mount='.length).split(',').includes('type=cache')))
      throw new Error(`RUN --${option}: only cache mounts are known to this assembly`);
    command = command.slice(whole.length);
  }
  return command;
}

function jsonArray(args: string, keyword: string): string[] {
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string')) throw new Error(`${keyword} must be a JSON array of strings`);
  return parsed;
}

/**
 * ENV's and LABEL's `name=value` pairs, a value in double quotes keeping its spaces, `$NAME` and `${NAME}`
 * replaced by the stage's arguments and environment (a declared argument without a value is empty; a name
 * neither declares is an error).
 */
function keyValuePairs(args: string, keyword: string, values: ReadonlyMap<string, string | undefined>): [string, string][] {
  const pairs: [string, string][] = [];
  const pair = /\s*([^=\s]+)=(?:"((?:[^"\\]|\\.)*)"|(\S*))/y;
  let rest = args.trim();
  while (rest !== '') {
    pair.lastIndex = 0;
    const match = pair.exec(rest);
    if (match === null) throw new Error(`${keyword} ${args}: only name=value pairs are read`);
    const [whole, name = '', quoted, bare] = match;
    const value = (quoted ?? bare ?? '').replace(/\\(.)/g, '$1');
    const defined = new Map([...values].map(([key, known]) => [key, known ?? '']));
    pairs.push([name, substitute(value, defined, `${keyword} ${name}`)]);
    rest = rest.slice(whole.length).trim();
  }
  return pairs;
}

/**
 * cp semantics of COPY: a directory's contents go into the destination; a destination ending in / is a directory.
 * From the build context (`ignored` given), what .dockerignore excludes is not there: a directory's excluded
 * entries are left out, and an excluded source is missing, as a build reports it.
 */
function copy(source: string, destination: string, intoDirectory: boolean, ignored?: (source: string) => boolean): void {
  if (!fs.existsSync(source) || ignored?.(source) === true) throw new Error(`COPY source ${source} does not exist or .dockerignore excludes it`);
  const target = intoDirectory && !fs.statSync(source).isDirectory() ? path.join(destination, path.basename(source)) : destination;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.cpSync(source, target, { recursive: true, dereference: false, verbatimSymlinks: true, filter: (entry) => ignored?.(entry) !== true });
}

export interface AssemblyOptions {
  /** Stage name → a directory standing for that stage's root, whose instructions are then not run. */
  readonly readyStages?: Readonly<Record<string, string>>;
  readonly buildArgs?: BuildArgs;
  /**
   * Stages already assembled, by their image, instructions and the stages they copy from: a stage of the same
   * text is taken from here instead of being run again, as a build's layer cache does. For one unchanging
   * context only.
   */
  readonly stageCache?: Map<string, string>;
}

/**
 * Builds every stage of `dockerfile` under `into` (one directory per stage) with `context` as the build
 * context, and returns the final stage's configuration.
 */
export function assembleImage(dockerfile: string, context: string, into: string, options: AssemblyOptions = {}): ImageConfig {
  const { readyStages = {}, buildArgs = {}, stageCache = new Map<string, string>() } = options;
  const stages = parseDockerfile(fs.readFileSync(dockerfile, 'utf8'), buildArgs);
  const rules = contextRules(context);
  const ignored = (source: string): boolean => {
    const relative = path.relative(context, source);
    return relative !== '' && rules.excluded(relative.split(path.sep).join('/'));
  };
  const roots = new Map<string, string>();
  let config: ImageConfig | undefined;
  stages.forEach((stage, index) => {
    const ready = stage.name === undefined ? undefined : readyStages[stage.name];
    const from = stage.instructions.flatMap(({ keyword, args }) => (keyword === 'COPY' ? (/^--from=(\S+)/.exec(args)?.[1] ?? []) : []));
    const key = JSON.stringify([context, stage.from, stage.instructions, from.map((name) => roots.get(name))]);
    // The final stage is always assembled: its configuration is the result.
    const last = index === stages.length - 1;
    const cached = last ? undefined : stageCache.get(key);
    const root = ready ?? cached ?? path.join(into, `stage-${String(index)}`);
    if (stage.name !== undefined) roots.set(stage.name, root);
    if (ready !== undefined || cached !== undefined) return;
    if (!last) stageCache.set(key, root);
    fs.mkdirSync(root, { recursive: true });
    let workdir = '/';
    const env: Record<string, string> = {};
    // The stage's build arguments: in RUN's environment, below ENV of the same name.
    const stageArgs: Record<string, string> = {};
    const declared = new Set<string>();
    const values = (): Map<string, string | undefined> =>
      new Map<string, string | undefined>([
        ...[...declared].map((name): [string, undefined] => [name, undefined]),
        ...Object.entries(stageArgs),
        ...Object.entries(env),
      ]);
    let user: string | undefined;
    let entrypoint: string[] = [];
    let cmd: string[] = [];
    const labels: Record<string, string> = {};
    const inRoot = (imagePath: string): string => path.join(root, path.posix.isAbsolute(imagePath) ? imagePath : path.posix.join(workdir, imagePath));
    for (const { keyword, args } of stage.instructions) {
      switch (keyword) {
        case 'WORKDIR':
          workdir = path.posix.resolve(workdir, args);
          fs.mkdirSync(inRoot(workdir), { recursive: true });
          break;
        case 'COPY': {
          const words = args.split(/\s+/);
          const from = words[0]?.startsWith('--from=') === true ? words.shift()?.slice('--from='.length) : undefined;
          const destination = words.pop();
          if (destination === undefined || words.length === 0) throw new Error(`COPY ${args} names no source or destination`);
          const sourceRoot = from === undefined ? context : roots.get(from);
          if (sourceRoot === undefined) throw new Error(`COPY --from=${from ?? ''}: no such stage before this one`);
          for (const source of words)
            copy(path.join(sourceRoot, source), inRoot(destination), destination.endsWith('/') || words.length > 1, from === undefined ? ignored : undefined);
          break;
        }
        case 'RUN':
          execFileSync('/bin/sh', ['-c', runCommand(args)], { cwd: inRoot(workdir), env: { ...process.env, ...stageArgs, ...env }, stdio: 'pipe' });
          break;
        case 'ENV':
          for (const [name, value] of keyValuePairs(args, keyword, values())) env[name] = value;
          break;
        case 'LABEL':
          for (const [name, value] of keyValuePairs(args, keyword, values())) labels[name] = value;
          break;
        case 'USER':
          user = args;
          break;
        case 'ENTRYPOINT':
          entrypoint = jsonArray(args, keyword);
          break;
        case 'CMD':
          cmd = jsonArray(args, keyword);
          break;
        case 'ARG':
          for (const [name, value] of argDeclarations(args)) {
            declared.add(name);
            if (value !== undefined) stageArgs[name] = value;
          }
          break;
        default:
          throw new Error(`${keyword} is not an instruction this assembly knows`);
      }
    }
    config = { root, workdir, env, user, entrypoint, cmd, labels };
  });
  if (config === undefined) throw new Error(`${dockerfile}: its last stage is one the caller supplied`);
  return config;
}
