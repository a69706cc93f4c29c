import { spawn } from 'node:child_process';
import { isIPv4 } from 'node:net';
import { CHROOT_PROGRAM } from './chroot.ts';

/**
 * Default routes inside a sandbox's network namespace, changed the way upstream's netutils does with netlink.
 * Node cannot enter a network namespace, so util-linux's nsenter enters it and iproute2's ip acts there. With
 * chrootDir set (the chart's /hostroot) both run chrooted into it, as the delegates do: the sandbox path the
 * runtime gave resolves there exactly as it does for the plugins, and the host's own nsenter and ip, which
 * every node has, do the work, so the image needs neither and no second copy of the netns mounts. Without
 * chrootDir they are the daemon's own.
 */

/** The directories the tools are looked up in (preflight checks them there): the host's PATH, whatever the daemon's environment says. */
export const ROUTE_TOOL_DIRS: readonly string[] = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];
/** The tools a default-route change runs. */
export const ROUTE_TOOLS: readonly string[] = ['nsenter', 'ip'];
const TOOL_PATH = ROUTE_TOOL_DIRS.join(':');

export interface SandboxRouteTarget {
  readonly netns: string;
  readonly ifName: string;
  /** daemon-config.json's chrootDir; '' for the daemon's own root. */
  readonly chrootDir: string;
  readonly signal: AbortSignal;
}

/** A failed ip invocation: what ran and what it said. */
export class SandboxRouteCommandError extends Error {
  override readonly name = 'SandboxRouteCommandError';
  readonly command: string;
  readonly stderr: string;

  constructor(command: string, stderr: string, exitCode: number | null) {
    super(`\`${command}\` failed (${exitCode === null ? 'not run' : `exit ${String(exitCode)}`}): ${stderr.trim() || 'no output'}`);
    this.command = command;
    this.stderr = stderr;
  }
}

function ipInSandbox(target: SandboxRouteTarget, ipArgs: readonly string[]): Promise<string> {
  const inner = ['nsenter', `--net=${target.netns}`, '--', 'ip', ...ipArgs];
  const [file, ...args] = target.chrootDir === '' ? inner : [CHROOT_PROGRAM, target.chrootDir, ...inner];
  const command = [file, ...args].join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn(file ?? 'nsenter', args, { env: { PATH: TOOL_PATH, LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'pipe'], signal: target.signal });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 4096) stderr += chunk;
    });
    child.once('error', (error) => {
      reject(new SandboxRouteCommandError(command, error.message, null));
    });
    child.once('close', (code) => {
      if (code === 0) resolve(stdout);
      else reject(new SandboxRouteCommandError(command, stderr, code));
    });
  });
}

/** iproute2's words for a missing interface; the interface then has no default route to lose. */
const NO_SUCH_DEVICE = /Cannot find device/;
/** The route is there already: upstream ignores EEXIST from netlink's RouteAdd. */
const ROUTE_EXISTS = /File exists/;

/**
 * Removes every main-table default route (IPv4 and IPv6) through the interface, as upstream's
 * DeleteDefaultGW means to (its netlink v1.3.1 reports a default route's destination as 0.0.0.0/0 instead of
 * nil, so v4.2.3 as built removes none — see the README's parity table). An interface the plugin did not
 * create has none to remove.
 */
export async function deleteDefaultRoutes(target: SandboxRouteTarget): Promise<void> {
  for (const [flag, prefix] of [
    ['-4', '0.0.0.0/0'],
    ['-6', '::/0'],
  ] as const) {
    try {
      await ipInSandbox(target, [flag, 'route', 'flush', 'exact', prefix, 'dev', target.ifName, 'table', 'main']);
    } catch (error) {
      if (error instanceof SandboxRouteCommandError && NO_SUCH_DEVICE.test(error.stderr)) return;
      throw error;
    }
  }
}

/** Whether the interface already has `default via <gw>` in the main table. */
async function hasDefaultRoute(target: SandboxRouteTarget, family: '-4' | '-6', gw: string): Promise<boolean> {
  const listed = JSON.parse(await ipInSandbox(target, ['-j', family, 'route', 'show', 'default', 'dev', target.ifName, 'table', 'main'])) as unknown;
  return Array.isArray(listed) && listed.some((route: { gateway?: unknown }) => typeof route.gateway === 'string' && route.gateway === gw);
}

/**
 * Adds `default via <gw> dev <ifName>` for each gateway (upstream's SetDefaultGW). Upstream ignores the
 * kernel's EEXIST, whatever route caused it; here only the very route asked for may already be there — a
 * default route left through another interface fails the ADD instead of silently keeping the Pod's traffic
 * on it.
 */
export async function addDefaultRoutes(target: SandboxRouteTarget, gateways: readonly string[]): Promise<void> {
  for (const gw of gateways) {
    const family = isIPv4(gw) ? '-4' : '-6';
    try {
      await ipInSandbox(target, [family, 'route', 'add', 'default', 'via', gw, 'dev', target.ifName]);
    } catch (error) {
      if (error instanceof SandboxRouteCommandError && ROUTE_EXISTS.test(error.stderr) && (await hasDefaultRoute(target, family, gw))) continue;
      throw error;
    }
  }
}
