import { goFoldEqual } from '@sriov-dra/cni-render';
import { type JsonObject, type JsonValue, JsonNumber, isJsonObject } from '@sriov-dra/contract';
import { goMapKeyOrder, goQuote } from '../cache/go-marshal.ts';
import type { DaemonConfig } from '../daemon-config.ts';
import { EntryConfigError } from './entry-config-error.ts';

/**
 * The node's CNI entry configuration in auto mode, as upstream's config manager (v4.2.3) generates it:
 * the runtime finds `00-multus.conf` first in the CNI configuration directory and runs the multus-shim
 * with it; the shim reads `daemonSocketDir` from it and hands the whole file to the daemon, which
 * overlays daemon-config.json on it. The file is upstream's MultusConf marshalled by Go, plus
 * `liveNetworkConfigOnAdd` (§10.2) so the generated file carries the node's read mode.
 */

/** The file the daemon writes; the runtime loads the lexically first CNI configuration, so it wins. */
export const ENTRY_CONFIG_FILE = '00-multus.conf';

/** Files upstream never takes for the primary network: its own output and earlier variants of it. */
const OWN_PREFIX = '00-multus';

/** The extensions upstream's master-plugin search accepts (libcni also reads .json; upstream does not). */
const PRIMARY_EXTENSIONS = ['.conf', '.conflist'];

/** The primary network's file among a directory's entries: the first .conf/.conflist by byte order, not ours. */
export function findPrimaryConfName(entries: readonly string[]): string | undefined {
  return entries
    .filter((name) => !name.startsWith(OWN_PREFIX) && PRIMARY_EXTENSIONS.some((extension) => name.endsWith(extension) && name.length > extension.length))
    .sort(goMapKeyOrder)[0];
}

/** The primary network's configuration file, as read from the CNI configuration directory. */
export interface PrimaryConf {
  readonly path: string;
  readonly bytes: string;
}

/** The member Go's struct decoding assigns to `field`: exact or case-insensitive key, null skipped, the last one winning. */
export function member(document: JsonObject, field: string): JsonValue | undefined {
  let value: JsonValue | undefined;
  for (const [key, item] of document) if (goFoldEqual(key, field) && item !== null) value = item;
  return value;
}

function daemonString(config: DaemonConfig, field: string, fallback: string): string {
  const value = member(config.document, field);
  return typeof value === 'string' ? value : fallback;
}

function daemonBool(config: DaemonConfig, field: string): boolean {
  return member(config.document, field) === true;
}

function parsePrimary(primary: PrimaryConf): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(primary.bytes);
  } catch (error) {
    throw new EntryConfigError('MalformedPrimaryCniConfig', primary.path, error instanceof Error ? error.message : String(error));
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new EntryConfigError('MalformedPrimaryCniConfig', primary.path, 'the document is not a JSON object');
  }
  return parsed as Record<string, unknown>;
}

/** The capabilities a plugin enables: upstream asserts every value is a boolean and keeps the true ones. */
function enabledCapabilities(plugin: unknown, path: string): string[] {
  if (typeof plugin !== 'object' || plugin === null || Array.isArray(plugin)) return [];
  const capabilities = (plugin as Record<string, unknown>)['capabilities'];
  if (typeof capabilities !== 'object' || capabilities === null || Array.isArray(capabilities)) return [];
  return Object.entries(capabilities).flatMap(([name, enabled]) => {
    if (typeof enabled !== 'boolean') throw new EntryConfigError('MalformedPrimaryCniConfig', path, `capability "${name}" is not a boolean`);
    return enabled ? [name] : [];
  });
}

function primaryCapabilities(conf: Record<string, unknown>, path: string): string[] {
  const plugins = conf['plugins'];
  if (Array.isArray(plugins) && plugins.length > 0) return plugins.flatMap((plugin) => enabledCapabilities(plugin, path));
  return enabledCapabilities(conf, path);
}

function semver(version: string): readonly [number, number, number] | undefined {
  const match = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/.exec(version);
  return match === null ? undefined : [Number(match[1]), Number(match[2]), Number(match[3])];
}

function below040(version: readonly [number, number, number]): boolean {
  return version[0] === 0 && version[1] < 4;
}

/** Upstream's CheckVersionCompatibility: a 0.4.0+ Multus (which sends CHECK) cannot front a pre-0.4.0 primary. */
function checkVersions(multusVersion: string, primaryVersion: unknown, path: string): void {
  const multus = semver(multusVersion);
  if (multus === undefined)
    throw new EntryConfigError('IncompatiblePrimaryCniVersion', path, `the top-level cniVersion ${JSON.stringify(multusVersion)} is not a version`);
  if (below040(multus)) return;
  const primary = typeof primaryVersion === 'string' ? semver(primaryVersion) : undefined;
  if (primary === undefined) throw new EntryConfigError('IncompatiblePrimaryCniVersion', path, 'the primary configuration has no valid cniVersion');
  if (below040(primary)) {
    throw new EntryConfigError(
      'IncompatiblePrimaryCniVersion',
      path,
      `the primary is cniVersion ${String(primaryVersion)} while the top level is ${multusVersion}`,
    );
  }
}

/** Go's encoding of logging.LogOptions: four optional members, unknown members dropped. */
function logOptionsJson(value: JsonValue | undefined, subject: string): string | undefined {
  if (!isJsonObject(value)) return undefined;
  const members: string[] = [];
  for (const field of ['maxAge', 'maxSize', 'maxBackups'] as const) {
    const item = member(value, field);
    if (item === undefined) continue;
    if (!(item instanceof JsonNumber) || !/^-?\d+$/.test(item.raw)) {
      throw new EntryConfigError('InvalidDaemonConfigKey', `${subject} key "logOptions.${field}"`, 'expected an integer');
    }
    members.push(`"${field}":${BigInt(item.raw).toString()}`);
  }
  const compress = member(value, 'compress');
  if (compress !== undefined) {
    if (typeof compress !== 'boolean') throw new EntryConfigError('InvalidDaemonConfigKey', `${subject} key "logOptions.compress"`, 'expected a boolean');
    members.push(`"compress":${String(compress)}`);
  }
  return `{${members.join(',')}}`;
}

/**
 * The exact bytes of 00-multus.conf for `config` fronting `primary`: MultusConf's members in Go's order,
 * empty ones omitted, the keys only the daemon needs (cniConfigDir, multusConfigFile, multusAutoconfigDir,
 * multusMasterCNI, forceCNIVersion, readinessindicatorfile) flushed. clusterNetwork is the primary file's
 * path. cniVersion is daemon-config's; when that is empty (upstream then refuses to start) the primary's.
 */
export function renderEntryConfig(config: DaemonConfig, primary: PrimaryConf): string {
  const conf = parsePrimary(primary);
  const primaryVersion = conf['cniVersion'];
  const cniVersion = config.cniVersion !== '' ? config.cniVersion : typeof primaryVersion === 'string' ? primaryVersion : '';
  checkVersions(cniVersion, primaryVersion, primary.path);
  const capabilities = new Set([
    ...Object.entries(config.capabilities).flatMap(([name, on]) => (on ? [name] : [])),
    ...primaryCapabilities(conf, primary.path),
  ]);
  const overrideNetworkName = daemonBool(config, 'overrideNetworkName');
  let name = config.name;
  if (overrideNetworkName) {
    const primaryName = conf['name'];
    if (typeof primaryName !== 'string' || primaryName === '') {
      throw new EntryConfigError('MalformedPrimaryCniConfig', primary.path, 'overrideNetworkName is set but the primary configuration has no network name');
    }
    name = primaryName;
  }
  const members: [string, string | undefined][] = [
    ['binDir', config.binDir === '' ? undefined : goQuote(config.binDir)],
    [
      'capabilities',
      capabilities.size === 0
        ? undefined
        : `{${[...capabilities]
            .sort(goMapKeyOrder)
            .map((capability) => `${goQuote(capability)}:true`)
            .join(',')}}`,
    ],
    ['cniVersion', goQuote(cniVersion)],
    ['logFile', config.logFile === '' ? undefined : goQuote(config.logFile)],
    ['logLevel', config.logLevel === '' ? undefined : goQuote(config.logLevel)],
    ['logToStderr', config.logToStderr ? 'true' : undefined],
    ['logOptions', logOptionsJson(member(config.document, 'logOptions'), config.path)],
    ['name', goQuote(name)],
    ['clusterNetwork', goQuote(primary.path)],
    ['namespaceIsolation', config.namespaceIsolation ? 'true' : undefined],
    ['globalNamespaces', config.globalNamespaces === '' ? undefined : goQuote(config.globalNamespaces)],
    ['type', goQuote(daemonString(config, 'type', 'multus-shim'))],
    ['cniDir', config.cniDir === '' ? undefined : goQuote(config.cniDir)],
    ['daemonSocketDir', config.daemonSocketDir === '' ? undefined : goQuote(config.daemonSocketDir)],
    ['overrideNetworkName', overrideNetworkName ? 'true' : undefined],
    ['liveNetworkConfigOnAdd', config.liveNetworkConfigOnAdd ? 'true' : undefined],
  ];
  return `{${members.flatMap(([key, json]) => (json === undefined ? [] : [`"${key}":${json}`])).join(',')}}`;
}

/**
 * Where upstream looks for the primary network: multusAutoconfigDir when set (the deployment points it at
 * the host's CNI directory), else the directory the entry file is written to.
 */
export function autoconfigDir(config: DaemonConfig): string {
  const dir = daemonString(config, 'multusAutoconfigDir', '');
  return dir === '' ? config.cniConfigDir : dir;
}

/** The primary file upstream is told to use (multusMasterCNI), if any. */
export function configuredPrimaryName(config: DaemonConfig): string | undefined {
  return config.multusMasterCNI === '' ? undefined : config.multusMasterCNI;
}
