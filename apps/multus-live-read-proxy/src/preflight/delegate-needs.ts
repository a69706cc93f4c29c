import { constants } from 'node:fs';
import { access, lstat, readFile, readlink, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { METAPLUGIN_ALLOWLIST, SRIOV_PLUGIN_TYPE } from '@sriov-dra/contract';
import { ROUTE_TOOLS, ROUTE_TOOL_DIRS } from '../cni/sandbox-routes.ts';
import type { StorageFacts } from './checks.ts';
import type { ManagedPluginFacts, RouteToolFacts, SourceTemplate, WhereaboutsFacts } from './managed-checks.ts';
import type { Mount } from './mountinfo.ts';
import { probeStorage } from './storage-probe.ts';

/**
 * What the delegates of managed shadows need on the node, looked for where the daemon sees it: a plugin
 * is found in binDir and, with chrootDir, run at that same path inside chrootDir, where it also keeps its
 * state and reads its host files (§11).
 */

/** sriov-cni's saved VF state and DEL cache. */
const SRIOV_STATE_DIR = '/var/lib/cni/sriov';
/** host-local's leases when its dataDir is not set. */
const HOST_LOCAL_DATA_DIR = '/var/lib/cni/networks';
/** Where whereabouts looks for its flat configuration file after configuration_path (v0.9.2). */
const WHEREABOUTS_FLAT_FILES = [
  '/etc/kubernetes/cni/net.d/whereabouts.d/whereabouts.conf',
  '/etc/cni/net.d/whereabouts.d/whereabouts.conf',
  '/host/etc/cni/net.d/whereabouts.d/whereabouts.conf',
];

/** Symbolic links followed before giving up, as the kernel's limit for one lookup. */
const MAX_LINKS = 40;

/**
 * `path` inside `root` as a process chrooted there sees it: an absolute link target is taken from `root`,
 * not from this process's root (the host's /usr/sbin/ip is often a link to /bin/ip).
 */
async function inRoot(root: string, path: string): Promise<string> {
  let current = path;
  for (let hops = 0; hops < MAX_LINKS; hops += 1) {
    const full = join(root, current);
    const stats = await lstat(full).catch(() => undefined);
    if (stats?.isSymbolicLink() !== true) return full;
    const target = await readlink(full);
    current = isAbsolute(target) ? target : join(dirname(current), target);
  }
  return join(root, current);
}

export async function isExecutableFile(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** sriov, every metaplugin the shadow renderer allows after it, and each IPAM type a template names. */
export async function probeManagedPlugins(binDir: string, chrootDir: string, templates: readonly SourceTemplate[]): Promise<ManagedPluginFacts> {
  const needs = new Map<string, string[]>([
    [SRIOV_PLUGIN_TYPE, ['every managed shadow']],
    ...METAPLUGIN_ALLOWLIST.map((type): [string, string[]] => [type, ['allowed after sriov in a template']]),
  ]);
  for (const template of templates) {
    for (const type of template.ipamTypes) needs.set(type, [...(needs.get(type) ?? []), `IPAM of ${template.nad}`]);
  }
  const plugins = await Promise.all(
    [...needs].map(async ([type, by]) => {
      const found = await isExecutableFile(join(binDir, type));
      const runnable = found && (await runnableInRoot(chrootDir, join(binDir, type)));
      return { type, neededBy: by.join(', '), found, runnable };
    }),
  );
  return { binDir, chrootDir, plugins };
}

/** Whether a plugin the daemon finds in binDir also runs where it is run: at the same path inside chrootDir. */
export async function runnableInRoot(chrootDir: string, pluginPath: string): Promise<boolean> {
  return chrootDir === '' || isExecutableFile(await inRoot(chrootDir, pluginPath));
}

/** Where nsenter and ip are found in the root a default-route change runs them in. */
export async function probeRouteTools(chrootDir: string): Promise<RouteToolFacts> {
  const root = chrootDir === '' ? '/' : chrootDir;
  const tools = await Promise.all(
    ROUTE_TOOLS.map(async (name) => {
      for (const dir of ROUTE_TOOL_DIRS) {
        if (await isExecutableFile(await inRoot(root, join(dir, name)))) return { name, path: join(dir, name) };
      }
      return { name, path: undefined };
    }),
  );
  return { root, searched: ROUTE_TOOL_DIRS, tools };
}

/** sriov-cni's and host-local's state directories, as the daemon sees the root its delegates run in. */
export function probeDelegateState(chrootDir: string, templates: readonly SourceTemplate[], mounts: readonly Mount[]): Promise<StorageFacts[]> {
  const inRoot = (path: string): string => (chrootDir === '' ? path : join(chrootDir, path));
  const hostLocal = new Set([HOST_LOCAL_DATA_DIR, ...templates.flatMap((template) => template.hostLocalDataDirs)]);
  return Promise.all([
    probeStorage('sriov-state-storage', 'sriov-cni’s VF state', inRoot(SRIOV_STATE_DIR), mounts, chrootDir),
    ...[...hostLocal].map((dir) => probeStorage('host-local-state-storage', 'host-local’s leases', inRoot(dir), mounts, chrootDir)),
  ]);
}

async function readable(path: string): Promise<boolean> {
  try {
    await access(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/** The kubeconfig whereabouts' flat file names, if it finds one (first existing file wins, as in whereabouts). */
async function flatFileKubeconfig(root: string, configurationPath: string): Promise<{ path: string; from: string } | undefined> {
  for (const file of [...(configurationPath === '' ? [] : [configurationPath]), ...WHEREABOUTS_FLAT_FILES]) {
    const text = await readFile(join(root, file), 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    try {
      const kubeconfig = (JSON.parse(text) as { kubernetes?: { kubeconfig?: unknown } }).kubernetes?.kubeconfig;
      return typeof kubeconfig === 'string' && kubeconfig !== '' ? { path: kubeconfig, from: file } : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** For templates using whereabouts: the kubeconfig each one reaches the API with, and whether delegates can read it. */
export async function probeWhereabouts(chrootDir: string, templates: readonly SourceTemplate[]): Promise<WhereaboutsFacts | undefined> {
  const configs = templates.flatMap((template) => template.whereaboutsConfigs.map((config) => ({ ...config, nad: template.nad })));
  if (configs.length === 0) return undefined;
  const root = chrootDir === '' ? '/' : chrootDir;
  const kubeconfigs = new Map<string, { path: string; from: string; readable: boolean }>();
  const unnamed = new Set<string>();
  for (const config of configs) {
    const named =
      config.kubeconfig !== '' ? { path: config.kubeconfig, from: `named by ${config.nad}` } : await flatFileKubeconfig(root, config.configurationPath);
    if (named === undefined) unnamed.add(config.nad);
    else if (!kubeconfigs.has(named.path)) kubeconfigs.set(named.path, { ...named, readable: await readable(join(root, named.path)) });
  }
  return { root, kubeconfigs: [...kubeconfigs.values()], unnamed: [...unnamed] };
}
