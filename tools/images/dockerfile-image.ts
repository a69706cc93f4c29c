// Assembles what a Dockerfile's final stage would contain, on this machine, without a container engine
// (none exists where the tests run): each stage gets a directory standing for its root, COPY copies from
// the build context or an earlier stage's directory, RUN runs in the stage's WORKDIR there. Stages built
// from images this machine cannot run (a Go toolchain image) are supplied ready-made by the caller.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface ImageConfig {
  /** The final stage's root directory. */
  readonly root: string;
  readonly workdir: string;
  readonly env: Readonly<Record<string, string>>;
  readonly user: string | undefined;
  readonly entrypoint: readonly string[];
  readonly cmd: readonly string[];
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

/** cp semantics of COPY: a directory's contents go into the destination; a destination ending in / is a directory. */
function copy(source: string, destination: string, intoDirectory: boolean): void {
  if (!fs.existsSync(source)) throw new Error(`COPY source ${source} does not exist`);
  const target = intoDirectory && !fs.statSync(source).isDirectory() ? path.join(destination, path.basename(source)) : destination;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.cpSync(source, target, { recursive: true, dereference: false, verbatimSymlinks: true });
}

/**
 * Builds every stage of `dockerfile` under `into` (one directory per stage) with `context` as the build
 * context, and returns the final stage's configuration. `readyStages` maps a stage name to a directory
 * standing for that stage's root, whose instructions are then not run.
 */
export function assembleImage(
  dockerfile: string,
  context: string,
  into: string,
  readyStages: Readonly<Record<string, string>> = {},
  buildArgs: BuildArgs = {},
): ImageConfig {
  const stages = parseDockerfile(fs.readFileSync(dockerfile, 'utf8'), buildArgs);
  const roots = new Map<string, string>();
  let config: ImageConfig | undefined;
  stages.forEach((stage, index) => {
    const ready = stage.name === undefined ? undefined : readyStages[stage.name];
    const root = ready ?? path.join(into, `stage-${String(index)}`);
    if (stage.name !== undefined) roots.set(stage.name, root);
    if (ready !== undefined) return;
    fs.mkdirSync(root, { recursive: true });
    let workdir = '/';
    const env: Record<string, string> = {};
    // The stage's build arguments: in RUN's environment, below ENV of the same name.
    const stageArgs: Record<string, string> = {};
    let user: string | undefined;
    let entrypoint: string[] = [];
    let cmd: string[] = [];
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
          for (const source of words) copy(path.join(sourceRoot, source), inRoot(destination), destination.endsWith('/') || words.length > 1);
          break;
        }
        case 'RUN':
          execFileSync('/bin/sh', ['-c', runCommand(args)], { cwd: inRoot(workdir), env: { ...process.env, ...stageArgs, ...env }, stdio: 'pipe' });
          break;
        case 'ENV':
          for (const pair of args.split(/\s+/)) {
            const [name, ...value] = pair.split('=');
            if (name === undefined || value.length === 0) throw new Error(`ENV ${args}: only name=value pairs are read`);
            env[name] = value.join('=');
          }
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
          for (const [name, value] of argDeclarations(args)) if (value !== undefined) stageArgs[name] = value;
          break;
        default:
          throw new Error(`${keyword} is not an instruction this assembly knows`);
      }
    }
    config = { root, workdir, env, user, entrypoint, cmd };
  });
  if (config === undefined) throw new Error(`${dockerfile}: its last stage is one the caller supplied`);
  return config;
}
