// How a package bin starts its program, in a fresh clone as in a build: the compiled entry in dist/ when it
// has been built, otherwise the TypeScript source through the workspace's `@sriov-dra/source` condition
// (Node.js 24 strips the types itself). Plain JavaScript that any Node.js can parse, so that an older
// Node.js on PATH (the system's) gets re-run on the workspace's pinned Node.js, or one line saying which
// version is needed, never a stack trace. The images do not come through here: they start dist/ directly.
import { spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The Node.js major version the apps are written for: the `node` package the root package.json pins. */
export const REQUIRED_NODE_MAJOR = 24;

/** Where the `node` npm package puts its binary, relative to the node_modules directory that holds it. */
const PINNED_NODE = join('node', 'bin', 'node');

/** The workspace's pinned Node.js: the nearest node_modules/node/bin/node above the package. */
function pinnedNode(from) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', PINNED_NODE);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

function majorOf(version) {
  return Number(version.replace(/^v/, '').split('.')[0]);
}

/** Runs `node <args>` as a child that owns the terminal, and exits as it exits (a signal it dies of included). */
function runChild(node, args) {
  const child = spawn(node, args, { stdio: 'inherit' });
  // The child is in the same process group, so a terminal's Ctrl-C reaches it directly; a signal sent to
  // this process alone (a service manager's SIGTERM) is passed on.
  const forward = (signal) => child.kill(signal);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, forward);
  child.on('error', (error) => {
    process.stderr.write(`${args[args.length - 1] ?? node}: cannot start ${node}: ${error.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    if (signal === null) process.exit(code ?? 1);
    for (const other of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.off(other, forward);
    process.kill(process.pid, signal);
  });
}

/**
 * Starts the program whose entry is `<package>/dist/<entry>.js` (built) or `<package>/src/<entry>.ts`
 * (source). `launcher` is the bin's import.meta.url (the package is the directory above bin/), `name`
 * the program's name for the one line an unusable Node.js gets.
 */
export function launch(launcher, entry, name) {
  const launcherPath = fileURLToPath(launcher);
  const packageDir = dirname(dirname(launcherPath));
  const args = process.argv.slice(2);
  if (majorOf(process.version) < REQUIRED_NODE_MAJOR) {
    const node = pinnedNode(packageDir);
    // A pinned Node.js that is itself too old would only land here again.
    if (node === undefined || realpathSync(node) === realpathSync(process.execPath)) {
      process.stderr.write(
        `${name} needs Node.js ${REQUIRED_NODE_MAJOR} or later, and this is Node.js ${process.version}: put Node.js ${REQUIRED_NODE_MAJOR} first on PATH\n`,
      );
      process.exit(1);
    }
    runChild(node, [launcherPath, ...args]);
    return;
  }
  const built = join(packageDir, 'dist', `${entry}.js`);
  if (existsSync(built)) {
    // In this process, as the images run it: a failure surfaces exactly as it would there.
    void import(pathToFileURL(built).href);
    return;
  }
  runChild(process.execPath, ['--conditions=@sriov-dra/source', join(packageDir, 'src', `${entry}.ts`), ...args]);
}
