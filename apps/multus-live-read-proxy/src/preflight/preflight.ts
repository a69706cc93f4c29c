import { readFile, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { goFoldEqual } from '@sriov-dra/cni-render';
import { type KubeClient, errorMessage } from '@sriov-dra/k8s';
import { type DaemonConfig, type EffectiveNetConf, effectiveNetConf, parseDaemonConfig } from '../daemon-config.ts';
import { ENTRY_CONFIG_FILE, autoconfigDir, configuredPrimaryName, findPrimaryConfName, renderEntryConfig } from '../entry-config/entry-config.ts';
import { userEntryConfigPath } from '../entry-config/user-entry-config.ts';
import { SOCKET_NAME } from '../server/wire.ts';
import { reviewAccess } from './access-review.ts';
import { type BuildIdentity, buildIdentity } from './build-identity.ts';
import { type BinaryFacts, type ConfigFacts, type PreflightCheck, type PreflightFacts, evaluatePreflight } from './checks.ts';
import { clusterNetworkConfig, pluginTypes } from './cluster-network-plugins.ts';
import { queryDaemon } from './daemon-query.ts';
import { isExecutableFile, probeDelegateState, probeManagedPlugins, probeRouteTools, probeWhereabouts, runnableInRoot } from './delegate-needs.ts';
import { daemonSetNames, isDynamicNetworksController, listDaemonSets } from './dynamic-networks-controller.ts';
import { entryConfigOwner, isUpstreamMultus } from './existing-multus.ts';
import type { EntryConfigFacts, RunningDaemonFacts } from './managed-checks.ts';
import { readNodeMigration } from './node-migration.ts';
import { parseMountInfo } from './mountinfo.ts';
import { findSourceTemplates } from './source-templates.ts';
import { probeStorage } from './storage-probe.ts';

/** Upstream's delegate cache when cniDir is not configured. */
const DEFAULT_CNI_DIR = '/var/lib/cni/multus';

export interface PreflightOptions {
  /** daemon-config.json, the file the daemon itself is started with. */
  readonly configPath: string;
  /** The daemon's own identity (its ServiceAccount in the cluster). */
  readonly client: KubeClient;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** libcni's result cache; the daemon's default unless a test points it elsewhere. */
  readonly resultCacheDir?: string;
  /** The Node the report is about: its labels select the SriovResourcePolicies whose templates count. */
  readonly nodeName?: string | undefined;
  /** The driver's namespace; absent: policies and DeviceAttributes in every namespace count. */
  readonly driverNamespace?: string | undefined;
}

/** The multus-shim configuration the runtime hands over: the generated file in auto mode, else the installed copy. */
function shimConfigPath(config: DaemonConfig): string {
  return config.multusConfigFile === 'auto' ? join(config.cniConfigDir, ENTRY_CONFIG_FILE) : userEntryConfigPath(config);
}

/** What the daemon would write in auto mode when it has not run yet, so the effective configuration is still known. */
async function expectedEntryConfig(config: DaemonConfig): Promise<string | undefined> {
  if (config.multusConfigFile !== 'auto') return undefined;
  const dir = autoconfigDir(config);
  const name = configuredPrimaryName(config) ?? findPrimaryConfName(await readdir(dir).catch(() => []));
  if (name === undefined) return undefined;
  try {
    return renderEntryConfig(config, { path: join(dir, name), bytes: await readFile(join(dir, name), 'utf8') });
  } catch {
    return undefined;
  }
}

interface ReadConfig {
  readonly facts: ConfigFacts;
  readonly daemon?: DaemonConfig;
  readonly effective?: EffectiveNetConf;
}

async function readConfig(path: string): Promise<ReadConfig> {
  let daemon: DaemonConfig;
  try {
    daemon = parseDaemonConfig(await readFile(path), path);
  } catch (error) {
    return { facts: { ok: false, path, error: errorMessage(error) } };
  }
  const present = [...daemon.document.keys()].some((key) => goFoldEqual(key, 'liveNetworkConfigOnAdd'));
  const daemonLive = present ? daemon.liveNetworkConfigOnAdd : undefined;
  const readIfPresent = (file: string): Promise<Buffer | undefined> =>
    readFile(file).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    });
  let shimPath = shimConfigPath(daemon);
  let shimBytes = await readIfPresent(shimPath);
  if (shimBytes === undefined && daemon.multusConfigFile !== 'auto') {
    // Before the daemon's first start only the configured source exists; it installs that file at start.
    const source = resolve(daemon.multusConfigFile);
    shimBytes = await readIfPresent(source);
    shimPath = shimBytes === undefined ? source : `${source} (installed as ${shimPath} when the daemon starts)`;
  }
  if (shimBytes === undefined) {
    const expected = (await expectedEntryConfig(daemon)) ?? '{}';
    let effective: EffectiveNetConf | undefined;
    try {
      effective = effectiveNetConf(daemon, Buffer.from(expected));
    } catch {
      // Without the shim file the cluster network may be unknown; the checks that need it are left out.
    }
    return { facts: { ok: true, path, daemonLive, shim: { state: 'missing', path: shimPath, auto: daemon.multusConfigFile === 'auto' } }, daemon, effective };
  }
  try {
    const effective = effectiveNetConf(daemon, shimBytes);
    return {
      facts: { ok: true, path, daemonLive, shim: { state: 'read', path: shimPath, effectiveLive: effective.liveNetworkConfigOnAdd } },
      daemon,
      effective,
    };
  } catch (error) {
    return { facts: { ok: true, path, daemonLive, shim: { state: 'invalid', path: shimPath, error: errorMessage(error) } }, daemon };
  }
}

async function probeBinaries(effective: EffectiveNetConf, chrootDir: string, client: KubeClient): Promise<BinaryFacts> {
  const binDir = effective.binDir;
  const shimPresent = await isExecutableFile(join(binDir, 'multus-shim'));
  let types: string[];
  try {
    types = pluginTypes(await clusterNetworkConfig(effective, client));
  } catch (error) {
    return { binDir, chrootDir, shimPresent, plugins: [], clusterNetworkError: errorMessage(error) };
  }
  const plugins = await Promise.all(
    types.map(async (type) => ({ type, present: (await isExecutableFile(join(binDir, type))) && (await runnableInRoot(chrootDir, join(binDir, type))) })),
  );
  return { binDir, chrootDir, shimPresent, plugins };
}

async function settle<T>(probe: Promise<T>): Promise<T | { error: string }> {
  try {
    return await probe;
  } catch (error) {
    return { error: errorMessage(error) };
  }
}

async function ownerOfEntryConfig(daemon: DaemonConfig): Promise<EntryConfigFacts> {
  return entryConfigOwner(daemon, await expectedEntryConfig(daemon));
}

/** The running daemon's own answer, beside this build and what daemon-config.json says now. */
async function askDaemon(daemon: DaemonConfig | undefined, preflight: BuildIdentity): Promise<RunningDaemonFacts> {
  const socketPath = join(daemon?.socketDir ?? '/run/multus/', SOCKET_NAME);
  const answer = await queryDaemon(socketPath);
  if (!answer.ok) return { socketPath, reachable: false, error: answer.error };
  const file =
    daemon === undefined
      ? undefined
      : { path: daemon.path, liveNetworkConfigOnAdd: daemon.liveNetworkConfigOnAdd, chrootDir: daemon.chrootDir, cniDir: daemon.cniDir };
  return { socketPath, reachable: true, about: answer.about, preflight, file };
}

/**
 * Checks this node and cluster against what the daemon needs (§4.3): the configuration the daemon really
 * runs with, the binaries it executes, persistent caches, its RBAC, no hot-plugging controller, and which
 * build this is; then what managed shadows need (the plugins and host state of their delegates, the
 * node's source templates, no second Multus) and what the running daemon says it runs. Read-only: it
 * writes no file and changes no API object.
 */
export async function runPreflight(options: PreflightOptions): Promise<PreflightCheck[]> {
  const { client } = options;
  const config = await readConfig(options.configPath);
  const mounts = parseMountInfo(await readFile('/proc/self/mountinfo', 'utf8'));
  const cniDir = config.effective?.cniDir ?? (config.daemon?.cniDir !== undefined && config.daemon.cniDir !== '' ? config.daemon.cniDir : DEFAULT_CNI_DIR);
  const chrootDir = config.daemon?.chrootDir ?? '';
  const [binaries, delegateCache, resultCache, accessFacts, daemonSets, build, templates] = await Promise.all([
    config.effective === undefined ? undefined : probeBinaries(config.effective, chrootDir, client),
    probeStorage('delegate-cache-storage', 'the delegate cache (cniDir)', cniDir, mounts),
    probeStorage('result-cache-storage', 'the libcni result cache', options.resultCacheDir ?? cniDir, mounts),
    settle(reviewAccess(client)),
    settle(listDaemonSets(client)),
    buildIdentity(options.env),
    findSourceTemplates(client, { nodeName: options.nodeName, driverNamespace: options.driverNamespace }),
  ]);
  const [plugins, delegateState, whereabouts, routeTools, entryConfig, runningDaemon, node] = await Promise.all([
    config.effective === undefined ? undefined : probeManagedPlugins(config.effective.binDir, chrootDir, templates.templates),
    probeDelegateState(chrootDir, templates.templates, mounts),
    probeWhereabouts(chrootDir, templates.templates),
    probeRouteTools(chrootDir),
    config.daemon === undefined ? undefined : ownerOfEntryConfig(config.daemon),
    askDaemon(config.daemon, build),
    options.nodeName === undefined || 'error' in daemonSets ? undefined : settle(readNodeMigration(client, options.nodeName, daemonSets)),
  ]);
  const names = (select: Parameters<typeof daemonSetNames>[1]): string[] | { error: string } =>
    'error' in daemonSets ? daemonSets : daemonSetNames(daemonSets, select);
  const facts: PreflightFacts = {
    config: config.facts,
    ...(binaries === undefined ? {} : { binaries }),
    storage: [delegateCache, resultCache, ...delegateState],
    access: accessFacts,
    dynamicNetworksControllers: names(isDynamicNetworksController),
    build,
    managed: {
      templates,
      ...(plugins === undefined ? {} : { plugins }),
      ...(whereabouts === undefined ? {} : { whereabouts }),
      routeTools,
      existingMultus: {
        daemonSets: names(isUpstreamMultus),
        ...(entryConfig === undefined ? {} : { entryConfig }),
        ...(node === undefined ? {} : { node }),
      },
      runningDaemon,
    },
  };
  return evaluatePreflight(facts);
}
