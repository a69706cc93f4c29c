// The system's Node.js, older than the workspace's: what a bin meets when `node` on PATH is not the pinned
// one (Debian's npm bootstraps the workspace on its own Node.js, as the README's quick start says).
import { execFileSync } from 'node:child_process';
import { REQUIRED_NODE_MAJOR } from './launch.js';

const SYSTEM_NODE = '/usr/bin/node';

export interface OlderNode {
  readonly path: string;
  readonly version: string;
}

export function olderNode(): OlderNode {
  const version = execFileSync(SYSTEM_NODE, ['--version'], { encoding: 'utf8' }).trim();
  if (Number(version.slice(1).split('.')[0]) >= REQUIRED_NODE_MAJOR) {
    throw new Error(`${SYSTEM_NODE} is Node.js ${version}; these tests need an older one there (Debian's nodejs package)`);
  }
  return { path: SYSTEM_NODE, version };
}
