import { readFile } from 'node:fs/promises';
import { goFoldEqual, isGoInt64 } from '@sriov-dra/cni-render';
import { type JsonObject, type JsonValue, JsonNumber, isJsonObject, parseStrictJson } from '@sriov-dra/contract';
import { DEFAULT_POD_RESOURCES_SOCKET } from './pod-resources/pod-resources-socket.ts';

/**
 * daemon-config.json, read the way the upstream Multus daemon (v4.2.3) reads it, and the effective
 * Multus configuration of one CNI request: the daemon overlays its whole configuration file over the
 * shim's stdin configuration, member by member at the top level and by exact key, then decodes the
 * result into its NetConf. Go's encoding/json matches a member to a field exactly or
 * case-insensitively and the last match wins, so both decodings here do the same.
 */

export type DaemonConfigCode =
  | 'UnreadableDaemonConfig'
  | 'MalformedDaemonConfig'
  | 'InvalidDaemonConfigKey'
  | 'MalformedShimConfig'
  | 'MissingClusterNetwork'
  | 'InvalidChrootDir'
  | 'MissingChrootProgram'
  | 'UnsupportedDaemonConfigKey';

const REMEDIES: Readonly<Record<DaemonConfigCode, string>> = {
  UnreadableDaemonConfig: 'mount daemon-config.json where --config (MULTUS_DAEMON_CONFIG) points, readable by the daemon, or point the flag at it',
  MalformedDaemonConfig: 'make daemon-config.json one JSON object without repeated keys and restart the daemon',
  InvalidDaemonConfigKey: 'give the key a value of the type named here, in daemon-config.json or the shim configuration it came from',
  MalformedShimConfig: 'the runtime passes the multus-shim configuration from the CNI configuration directory; make it one JSON object without repeated keys',
  MissingClusterNetwork: 'set clusterNetwork (or delegates) in daemon-config.json',
  InvalidChrootDir:
    'mount the host’s root filesystem at chrootDir (as upstream’s and this chart’s DaemonSets do at /hostroot), or remove chrootDir to run delegates in the daemon’s own filesystem',
  MissingChrootProgram: 'run the daemon from its image, which has coreutils’ chroot, or remove chrootDir to run delegates in the daemon’s own filesystem',
  UnsupportedDaemonConfigKey:
    'remove the key (see “Parity with Multus v4.2.3” in apps/multus-live-read-proxy/README.md), or run upstream’s multus-daemon on this node instead',
};

export class DaemonConfigError extends Error {
  override readonly name = 'DaemonConfigError';
  readonly code: DaemonConfigCode;
  /** The file (and key) the failure is about. */
  readonly subject: string;

  constructor(code: DaemonConfigCode, subject: string, detail: string) {
    super(`${code}: ${subject}: ${detail} \u2014 ${REMEDIES[code]}`);
    this.code = code;
    this.subject = subject;
  }
}

/** Where upstream looks for the daemon configuration unless told otherwise. */
export const DEFAULT_DAEMON_CONFIG_PATH = '/etc/cni/net.d/multus.d/daemon-config.json';

type Kind = 'string' | 'bool' | 'int' | 'strings' | 'boolMap' | 'object' | 'objects';
type Decoded = string | boolean | number | readonly string[] | Readonly<Record<string, boolean>> | JsonObject | readonly JsonObject[];

const KIND_NAMES: Readonly<Record<Kind, string>> = {
  string: 'a string',
  bool: 'a boolean',
  int: 'an integer',
  strings: 'an array of strings',
  boolMap: 'an object of booleans',
  object: 'an object',
  objects: 'an array of objects',
};

/** server.ControllerNetConf and config.MultusConf: the keys the daemon itself decodes at start. */
const DAEMON_FIELDS = {
  chrootDir: 'string',
  logFile: 'string',
  logLevel: 'string',
  logToStderr: 'bool',
  perNodeCertificate: 'object',
  metricsPort: 'int',
  socketDir: 'string',
  binDir: 'string',
  capabilities: 'boolMap',
  cniVersion: 'string',
  logOptions: 'object',
  name: 'string',
  clusterNetwork: 'string',
  namespaceIsolation: 'bool',
  globalNamespaces: 'string',
  readinessindicatorfile: 'string',
  type: 'string',
  cniDir: 'string',
  cniConfigDir: 'string',
  auxiliaryCNIChainName: 'string',
  daemonSocketDir: 'string',
  multusConfigFile: 'string',
  multusMasterCNI: 'string',
  multusAutoconfigDir: 'string',
  forceCNIVersion: 'bool',
  overrideNetworkName: 'bool',
  liveNetworkConfigOnAdd: 'bool',
  podResourcesSocket: 'string',
} as const satisfies Record<string, Kind>;

/** types.NetConf (with the embedded CNI PluginConf): what each request's merged configuration decodes into. */
const NET_CONF_FIELDS = {
  cniVersion: 'string',
  name: 'string',
  type: 'string',
  capabilities: 'boolMap',
  ipam: 'object',
  dns: 'object',
  prevResult: 'object',
  confDir: 'string',
  cniDir: 'string',
  binDir: 'string',
  delegates: 'objects',
  clusterNetwork: 'string',
  defaultNetworks: 'strings',
  kubeconfig: 'string',
  logFile: 'string',
  logLevel: 'string',
  logToStderr: 'bool',
  logOptions: 'object',
  runtimeConfig: 'object',
  readinessindicatorfile: 'string',
  namespaceIsolation: 'bool',
  globalNamespaces: 'string',
  auxiliaryCNIChainName: 'string',
  systemNamespaces: 'strings',
  multusNamespace: 'string',
  retryDeleteOnError: 'bool',
  liveNetworkConfigOnAdd: 'bool',
} as const satisfies Record<string, Kind>;

type Fields = Readonly<Record<string, Kind>>;

const MISMATCH = Symbol('mismatch');

function decodeValue(kind: Kind, value: JsonValue): Decoded | undefined | typeof MISMATCH {
  // Go leaves a scalar field unchanged on null and sets a slice or map to nil (empty).
  if (value === null) return kind === 'string' || kind === 'bool' || kind === 'int' ? undefined : kind === 'boolMap' ? {} : kind === 'object' ? new Map() : [];
  switch (kind) {
    case 'string':
      return typeof value === 'string' ? value : MISMATCH;
    case 'bool':
      return typeof value === 'boolean' ? value : MISMATCH;
    case 'int':
      return value instanceof JsonNumber && isGoInt64(value) && Number.isSafeInteger(Number(value.raw)) ? Number(value.raw) : MISMATCH;
    case 'strings':
      if (!Array.isArray(value)) return MISMATCH;
      return value.every((item) => item === null || typeof item === 'string') ? value.map((item) => (item === null ? '' : item)) : MISMATCH;
    case 'boolMap': {
      if (!isJsonObject(value)) return MISMATCH;
      const map: Record<string, boolean> = Object.create(null) as Record<string, boolean>;
      for (const [key, item] of value) {
        if (item !== null && typeof item !== 'boolean') return MISMATCH;
        map[key] = item ?? false;
      }
      return map;
    }
    case 'object':
      return isJsonObject(value) ? value : MISMATCH;
    case 'objects':
      return Array.isArray(value) && value.every((item) => isJsonObject(item)) ? value : MISMATCH;
  }
}

/**
 * Decodes the members Go would assign to the given fields: each member goes to the field it names
 * exactly, else to one it names case-insensitively; a later member overwrites an earlier one.
 * `subjectOf` names the file a misfit value came from.
 */
function decodeFields(document: JsonObject, fields: Fields, subjectOf: (key: string) => string): Map<string, Decoded> {
  const names = Object.keys(fields);
  const decoded = new Map<string, Decoded>();
  for (const [key, value] of document) {
    const field = Object.hasOwn(fields, key) ? key : names.find((name) => goFoldEqual(name, key));
    if (field === undefined) continue;
    const kind = fields[field] as Kind;
    const result = decodeValue(kind, value);
    if (result === MISMATCH) {
      throw new DaemonConfigError('InvalidDaemonConfigKey', `${subjectOf(key)} key "${key}"`, `expected ${KIND_NAMES[kind]} for ${field}`);
    }
    if (result !== undefined) decoded.set(field, result);
  }
  return decoded;
}

function parseObject(bytes: Buffer, code: 'MalformedDaemonConfig' | 'MalformedShimConfig', subject: string): JsonObject {
  const parsed = parseStrictJson(bytes.toString('utf8'));
  if (!parsed.ok) throw new DaemonConfigError(code, subject, `${parsed.error.message} at byte ${parsed.error.position}`);
  if (!isJsonObject(parsed.value)) throw new DaemonConfigError(code, subject, 'the document is not a JSON object');
  return parsed.value;
}

const str = (values: Map<string, Decoded>, key: string, fallback: string): string => (values.get(key) as string | undefined) ?? fallback;
const bool = (values: Map<string, Decoded>, key: string, fallback: boolean): boolean => (values.get(key) as boolean | undefined) ?? fallback;
const strs = (values: Map<string, Decoded>, key: string, fallback: readonly string[]): readonly string[] =>
  (values.get(key) as readonly string[] | undefined) ?? fallback;

export interface DaemonConfig {
  readonly path: string;
  /** The file's exact bytes. */
  readonly raw: Buffer;
  /** The file's top-level members, lossless and in file order: what the daemon overlays on each request. */
  readonly document: JsonObject;
  /** Where every delegate runs chrooted (upstream's thick deployment: the host's root at /hostroot); '' for none. */
  readonly chrootDir: string;
  readonly logFile: string;
  readonly logLevel: string;
  readonly logToStderr: boolean;
  readonly metricsPort: number | undefined;
  /** Default /run/multus/. */
  readonly socketDir: string;
  readonly binDir: string;
  readonly cniVersion: string;
  /** Always multus-cni-network: upstream renames the network whatever the file says. */
  readonly name: string;
  readonly clusterNetwork: string;
  readonly namespaceIsolation: boolean;
  readonly globalNamespaces: string;
  readonly readinessindicatorfile: string;
  readonly cniDir: string;
  /** Default /etc/cni/net.d. */
  readonly cniConfigDir: string;
  readonly capabilities: Readonly<Record<string, boolean>>;
  readonly multusConfigFile: string;
  readonly multusMasterCNI: string;
  readonly daemonSocketDir: string;
  /** Read Pods and NADs from the API server, not the informer caches, on ADD (§10.2). Default false. */
  readonly liveNetworkConfigOnAdd: boolean;
  /**
   * This daemon's own key: the kubelet's PodResources socket, read for NADs with resourceName. Upstream
   * has no key for it and always uses /var/lib/kubelet/pod-resources/kubelet.sock, the default here.
   */
  readonly podResourcesSocket: string;
}

/**
 * Keys upstream acts on that this daemon does not implement: refused rather than silently ignored.
 * auxiliaryCNIChainName appends a passthru conflist completed from `<dir of clusterNetwork>/<chain>/` (libcni's
 * subdirectory plugin configurations), which this daemon's delegate loader does not read; perNodeCertificate
 * switches upstream's API credentials to bootstrapped per-node certificates, while this daemon always uses its
 * --kubeconfig or in-cluster identity.
 */
function refuseUnimplementedKeys(values: Map<string, Decoded>, subjectOf: (key: string) => string): void {
  const chain = values.get('auxiliaryCNIChainName');
  if (typeof chain === 'string' && chain !== '') {
    throw new DaemonConfigError(
      'UnsupportedDaemonConfigKey',
      `${subjectOf('auxiliaryCNIChainName')} key "auxiliaryCNIChainName"`,
      `auxiliary CNI chain ${JSON.stringify(chain)} is not supported: its plugins would be loaded from a CNI configuration subdirectory, which this daemon does not read`,
    );
  }
  const certificate = values.get('perNodeCertificate');
  if (isJsonObject(certificate as JsonValue) && [...(certificate as JsonObject)].some(([key, value]) => goFoldEqual(key, 'enabled') && value === true)) {
    throw new DaemonConfigError(
      'UnsupportedDaemonConfigKey',
      `${subjectOf('perNodeCertificate')} key "perNodeCertificate"`,
      'per-node certificates are not supported: the daemon reaches the API server with its --kubeconfig or in-cluster service account',
    );
  }
}

/** Keys of daemon-config.json this daemon accepts but does not act on as upstream does, each with the reason; logged at start. */
export function ignoredDaemonConfigKeys(config: DaemonConfig): { readonly key: string; readonly reason: string }[] {
  const present = (key: string): boolean => [...config.document.keys()].some((member) => goFoldEqual(member, key));
  const ignored: { key: string; reason: string }[] = [];
  for (const key of ['logFile', 'logLevel', 'logToStderr', 'logOptions']) {
    if (present(key)) {
      const level = key === 'logLevel' ? ' at its --log-level (LOG_LEVEL)' : '';
      ignored.push({
        key,
        reason: `configures the shim’s log (written into the generated entry configuration); the daemon itself logs JSON to stdout${level}`,
      });
    }
  }
  if (present('retryDeleteOnError')) {
    ignored.push({ key: 'retryDeleteOnError', reason: 'DEL keeps the delegate cache until every delegate is deleted, whatever the value' });
  }
  return ignored;
}

/** Reads daemon-config.json; a file that cannot be read names itself and the flag that chose it. */
export async function readDaemonConfigFile(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    throw new DaemonConfigError('UnreadableDaemonConfig', `--config ${path}`, `cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Parses daemon-config.json; every error names the file and, for a misfit value, the key. */
export function parseDaemonConfig(bytes: Buffer, path: string): DaemonConfig {
  const document = parseObject(bytes, 'MalformedDaemonConfig', path);
  const values = decodeFields(document, DAEMON_FIELDS, () => path);
  // The same members also reach every request's NetConf; a misfit there would fail every ADD, so it fails now.
  decodeFields(document, NET_CONF_FIELDS, () => path);
  refuseUnimplementedKeys(values, () => path);
  return {
    path,
    raw: bytes,
    document,
    chrootDir: str(values, 'chrootDir', ''),
    logFile: str(values, 'logFile', ''),
    logLevel: str(values, 'logLevel', ''),
    logToStderr: bool(values, 'logToStderr', false),
    metricsPort: values.get('metricsPort') as number | undefined,
    socketDir: str(values, 'socketDir', '/run/multus/'),
    binDir: str(values, 'binDir', ''),
    cniVersion: str(values, 'cniVersion', ''),
    name: 'multus-cni-network',
    clusterNetwork: str(values, 'clusterNetwork', ''),
    namespaceIsolation: bool(values, 'namespaceIsolation', false),
    globalNamespaces: str(values, 'globalNamespaces', ''),
    readinessindicatorfile: str(values, 'readinessindicatorfile', ''),
    cniDir: str(values, 'cniDir', ''),
    cniConfigDir: str(values, 'cniConfigDir', '/etc/cni/net.d'),
    capabilities: (values.get('capabilities') as Readonly<Record<string, boolean>> | undefined) ?? {},
    multusConfigFile: str(values, 'multusConfigFile', 'auto'),
    multusMasterCNI: str(values, 'multusMasterCNI', ''),
    daemonSocketDir: str(values, 'daemonSocketDir', ''),
    liveNetworkConfigOnAdd: bool(values, 'liveNetworkConfigOnAdd', false),
    podResourcesSocket: str(values, 'podResourcesSocket', DEFAULT_POD_RESOURCES_SOCKET),
  };
}

/** The Multus configuration one request runs with (types.NetConf after LoadNetConf's defaults). */
export interface EffectiveNetConf {
  readonly cniVersion: string;
  readonly name: string;
  readonly binDir: string;
  readonly confDir: string;
  readonly cniDir: string;
  readonly clusterNetwork: string;
  readonly defaultNetworks: readonly string[];
  /** Inline delegates; the first is the master plugin when clusterNetwork is empty. */
  readonly delegates: readonly JsonObject[];
  readonly kubeconfig: string;
  readonly namespaceIsolation: boolean;
  /** Namespaces any Pod may reference NADs in under namespaceIsolation; default ["default"]. */
  readonly globalNamespaces: readonly string[];
  /** Namespaces whose Pods get no defaultNetworks; default ["kube-system"]. */
  readonly systemNamespaces: readonly string[];
  /** Where clusterNetwork and defaultNetworks NADs live; default kube-system. */
  readonly multusNamespace: string;
  readonly readinessindicatorfile: string;
  readonly auxiliaryCNIChainName: string;
  readonly retryDeleteOnError: boolean;
  readonly liveNetworkConfigOnAdd: boolean;
  readonly logFile: string;
  readonly logLevel: string;
  readonly logToStderr: boolean;
  /** The merged configuration, members in the order Go marshals a map (by UTF-8 bytes), values lossless. */
  readonly document: JsonObject;
}

function goMapOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * The daemon's overlay (overrideCNIConfigWithServerConfig) and NetConf decoding for one request. Daemon
 * members replace shim members of exactly the same key; readinessindicatorfile is not overlaid when
 * the daemon generates the shim configuration itself (multusConfigFile "auto"). Go re-marshals the
 * merged map with sorted keys before decoding it, so of two spellings of one field the one sorting
 * last wins, wherever it came from.
 */
export function effectiveNetConf(daemon: DaemonConfig, shimConfigBytes: Buffer): EffectiveNetConf {
  const shimSubject = 'the multus-shim configuration';
  const shim = parseObject(shimConfigBytes, 'MalformedShimConfig', shimSubject);
  const ignoreReadiness = daemon.multusConfigFile === 'auto';
  const merged = new Map(shim);
  for (const [key, value] of daemon.document) {
    if (!(ignoreReadiness && key === 'readinessindicatorfile')) merged.set(key, value);
  }
  const document: JsonObject = new Map([...merged].sort(([a], [b]) => goMapOrder(a, b)));
  const fromDaemon = (key: string): boolean => daemon.document.has(key) && !(ignoreReadiness && key === 'readinessindicatorfile');
  const values = decodeFields(document, NET_CONF_FIELDS, (key) => (fromDaemon(key) ? daemon.path : shimSubject));
  refuseUnimplementedKeys(values, (key) => (fromDaemon(key) ? daemon.path : shimSubject));
  const clusterNetwork = str(values, 'clusterNetwork', '');
  const delegates = (values.get('delegates') as readonly JsonObject[] | undefined) ?? [];
  if (clusterNetwork === '' && delegates.length === 0) {
    throw new DaemonConfigError('MissingClusterNetwork', `${daemon.path} over ${shimSubject}`, 'at least one delegate or clusterNetwork must be specified');
  }
  const globalNamespaces = str(values, 'globalNamespaces', '');
  return {
    cniVersion: str(values, 'cniVersion', ''),
    name: str(values, 'name', ''),
    binDir: str(values, 'binDir', '/opt/cni/bin'),
    confDir: str(values, 'confDir', '/etc/cni/multus/net.d'),
    cniDir: str(values, 'cniDir', '/var/lib/cni/multus'),
    clusterNetwork,
    defaultNetworks: strs(values, 'defaultNetworks', []),
    delegates,
    kubeconfig: str(values, 'kubeconfig', ''),
    namespaceIsolation: bool(values, 'namespaceIsolation', false),
    globalNamespaces: globalNamespaces === '' ? ['default'] : globalNamespaces.split(',').map((namespace) => namespace.trim()),
    systemNamespaces: strs(values, 'systemNamespaces', ['kube-system']),
    multusNamespace: str(values, 'multusNamespace', 'kube-system'),
    readinessindicatorfile: str(values, 'readinessindicatorfile', ''),
    auxiliaryCNIChainName: str(values, 'auxiliaryCNIChainName', ''),
    retryDeleteOnError: bool(values, 'retryDeleteOnError', false),
    liveNetworkConfigOnAdd: bool(values, 'liveNetworkConfigOnAdd', false),
    logFile: str(values, 'logFile', ''),
    logLevel: str(values, 'logLevel', ''),
    logToStderr: bool(values, 'logToStderr', true),
    document,
  };
}

/** Where delegate plugins are looked up: binDir first, then each CNI_PATH entry of the request. */
export function delegateBinDirs(conf: EffectiveNetConf, cniPath: string): readonly string[] {
  return [conf.binDir, ...(cniPath === '' ? [] : cniPath.split(':'))];
}
