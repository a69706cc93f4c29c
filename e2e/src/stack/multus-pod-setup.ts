// What the Multus DaemonSet's Pod does on its node before the daemon serves, done for a daemon run as a
// process of this machine: daemon-config.json's chrootDir names the host's root where the container mounts
// it, so it is pointed at that volume's path here; and the init container's own command installs the
// upstream shim the image carries into the node's CNI binary directory.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { containerEnvironment, multusBinaries } from '@sriov-dra/k8s/testing';
import type { ComponentProcess } from './component-process.ts';

export function setUpMultusPod(
  daemon: ComponentProcess,
  options: { readonly configDir: string; readonly nodeName: string; readonly hostPath: (containerHostPath: string) => string },
): void {
  const daemonConfig = path.join(options.configDir, 'daemon-config.json');
  const { chrootDir, ...rest } = JSON.parse(fs.readFileSync(daemonConfig, 'utf8')) as { chrootDir?: string };
  if (chrootDir !== undefined) fs.writeFileSync(daemonConfig, JSON.stringify({ ...rest, chrootDir: daemon.pathOnThisMachine(chrootDir) }, null, 2));
  const [init] = daemon.podSpec.initContainers ?? [];
  const [shell, ...args] = init?.command ?? [];
  if (init === undefined || shell === undefined) throw new Error('the Multus DaemonSet has no init container command');
  const initEnv = containerEnvironment(daemon.podSpec, init, { 'spec.nodeName': options.nodeName }, (volume) =>
    volume.hostPath === undefined ? undefined : options.hostPath(volume.hostPath.path),
  );
  execFileSync(shell, args, { env: { ...initEnv, SHIM: multusBinaries().multusShim }, stdio: 'pipe' });
}
