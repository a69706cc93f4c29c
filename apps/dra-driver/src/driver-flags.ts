import { isAbsolute } from 'node:path';
import { parseArgs } from 'node:util';
import { type Result, fail, isDns1123Label, isDns1123Subdomain, ok } from '@sriov-dra/contract';
import { LOG_LEVELS, type LogLevel, isLogLevel } from '@sriov-dra/k8s';

/**
 * The driver's command line, compatible with the upstream SR-IOV DRA driver's flags and environment
 * variables so a DaemonSet written for it keeps working: a flag beats its environment variable, which
 * beats the default. `--multus-auto-attach` and `--sysfs-root` are ours.
 */
export type ConfigurationMode = 'STANDALONE' | 'MULTUS';

export interface DriverFlags {
  readonly nodeName: string;
  readonly cdiRoot: string;
  readonly kubeletRegistrarDirectoryPath: string;
  readonly kubeletPluginsDirectoryPath: string;
  /** Negative disables the health endpoint, zero picks a free port. */
  readonly healthcheckPort: number;
  /** Namespace holding SriovResourcePolicy and DeviceAttributes objects. */
  readonly namespace: string;
  readonly configurationMode: ConfigurationMode;
  /** Absent: in-cluster configuration. */
  readonly kubeconfig?: string;
  readonly kubeApiQps: number;
  readonly kubeApiBurst: number;
  /** Managed shadow attachment (§1.1); only meaningful when Multus runs the networks. */
  readonly multusAutoAttach: boolean;
  readonly sysfsRoot: string;
  /** Absent: info. */
  readonly logLevel?: LogLevel;
}

interface FlagSpec {
  readonly env?: string;
  readonly fallback?: string;
  readonly help: string;
}

const FLAGS = {
  'node-name': { env: 'NODE_NAME', help: 'the Node this driver serves (required)' },
  'cdi-root': { env: 'CDI_ROOT', fallback: '/var/run/cdi', help: 'directory the container runtime reads CDI specs from' },
  'kubelet-registrar-directory-path': {
    env: 'KUBELET_REGISTRAR_DIRECTORY_PATH',
    fallback: '/var/lib/kubelet/plugins_registry',
    help: "the kubelet's plugin registration directory",
  },
  'kubelet-plugins-directory-path': {
    env: 'KUBELET_PLUGINS_DIRECTORY_PATH',
    fallback: '/var/lib/kubelet/plugins',
    help: "the kubelet's plugins directory; the DRA socket and the checkpoint live below it",
  },
  'healthcheck-port': { env: 'HEALTHCHECK_PORT', fallback: '-1', help: 'port of /healthz, /readyz and /metrics; 0 picks a free port, negative disables' },
  namespace: { env: 'NAMESPACE', fallback: 'dra-sriov-driver', help: 'namespace of the SriovResourcePolicy and DeviceAttributes objects' },
  'configuration-mode': { env: 'CONFIGURATION_MODE', fallback: 'STANDALONE', help: 'STANDALONE or MULTUS' },
  kubeconfig: { env: 'KUBECONFIG', help: 'kubeconfig file; unset means in-cluster configuration' },
  'kube-api-qps': { env: 'KUBE_API_QPS', fallback: '5', help: 'sustained API requests per second' },
  'kube-api-burst': { env: 'KUBE_API_BURST', fallback: '10', help: 'API request burst' },
  'multus-auto-attach': {
    env: 'MULTUS_AUTO_ATTACH',
    fallback: 'false',
    help: 'attach each allocated VF to the Pod through a managed shadow network (needs MULTUS)',
  },
  'sysfs-root': { env: 'SYSFS_ROOT', fallback: '/sys', help: 'where sysfs is mounted (a simulated tree for tests and demos)' },
  'log-level': {
    env: 'LOG_LEVEL',
    help: 'level of the JSON log on stdout: trace, debug, info (the default), warn, error or fatal; at debug and trace a failed start also logs its stack',
  },
} as const satisfies Record<string, FlagSpec>;

type FlagName = keyof typeof FLAGS;

/** The object names the flag, so the line reads `InvalidComponentSetting: Flag --<flag>: <detail> — <remedy>`, as every component's does. */
function invalid(flag: FlagName, detail: string): Result<never> {
  return fail('InvalidComponentSetting', detail, { object: { kind: 'Flag', name: `--${flag}` } });
}

/** Go's strconv.ParseBool, which the upstream flag library uses for boolean flags and their variables. */
function parseGoBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}

function absolutePath(flag: FlagName, value: string | undefined): Result<string> {
  return value !== undefined && isAbsolute(value) ? ok(value) : invalid(flag, `${JSON.stringify(value ?? '')} is not an absolute path`);
}

function integer(flag: FlagName, value: string | undefined, min: number, max: number): Result<number> {
  if (value === undefined || !/^-?\d+$/.test(value)) return invalid(flag, `${JSON.stringify(value)} is not an integer`);
  const parsed = Number(value);
  if (parsed < min || parsed > max) return invalid(flag, `${value} is outside ${min}..${max}`);
  return ok(parsed);
}

/** The flag list printed by `--help`. */
export function driverFlagsUsage(): string {
  const lines = Object.entries(FLAGS).map(([name, spec]: [string, FlagSpec]) => {
    const source = spec.env === undefined ? '' : ` [$${spec.env}]`;
    const fallback = spec.fallback === undefined ? '' : ` (default ${spec.fallback})`;
    return `  --${name}${source}\n      ${spec.help}${fallback}`;
  });
  return `Usage: dra-driver [flags]\n       dra-driver --version   (prints the release and source commit)\n\nA flag overrides its environment variable.\n\n${lines.join('\n')}\n`;
}

/** True when the command line asks for the flag list. */
export function wantsHelp(argv: readonly string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}

/** Parses argv (without the node and script entries) and the environment; a bad setting names its flag. */
export function parseDriverFlags(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Result<DriverFlags> {
  // Like the upstream flag library, a boolean flag is also given as --flag=value; node:util only takes --flag.
  const autoAttachPrefix = '--multus-auto-attach=';
  const autoAttachValue = argv.findLast((arg) => arg.startsWith(autoAttachPrefix))?.slice(autoAttachPrefix.length);
  const options = Object.fromEntries(
    Object.keys(FLAGS).map((name) => [name, name === 'multus-auto-attach' ? { type: 'boolean' as const } : { type: 'string' as const }]),
  );
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv.filter((arg) => !arg.startsWith(autoAttachPrefix)), options, strict: true, allowPositionals: false });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return fail('InvalidComponentSetting', detail, { object: { kind: 'CommandLine' }, remedy: 'fix the command line; --help lists the flags' });
  }
  const raw = (flag: FlagName): string | undefined => {
    const given = flag === 'multus-auto-attach' && autoAttachValue !== undefined ? autoAttachValue : parsed.values[flag];
    if (given !== undefined) return String(given);
    const spec: FlagSpec = FLAGS[flag];
    const fromEnv = spec.env === undefined ? undefined : env[spec.env];
    // As upstream: a variable set to "" sets the value to "" (and fails validation where "" is invalid),
    // except for a boolean, where "" is ignored.
    if (fromEnv === undefined || (fromEnv === '' && flag === 'multus-auto-attach')) return spec.fallback;
    return fromEnv;
  };

  const nodeName = raw('node-name');
  if (nodeName === undefined) return invalid('node-name', 'is required: the name of the Node this driver serves');
  if (!isDns1123Subdomain(nodeName)) return invalid('node-name', `${JSON.stringify(nodeName)} is not a valid Node name`);

  const cdiRoot = absolutePath('cdi-root', raw('cdi-root'));
  if (!cdiRoot.ok) return cdiRoot;
  const registrar = absolutePath('kubelet-registrar-directory-path', raw('kubelet-registrar-directory-path'));
  if (!registrar.ok) return registrar;
  const plugins = absolutePath('kubelet-plugins-directory-path', raw('kubelet-plugins-directory-path'));
  if (!plugins.ok) return plugins;
  const sysfsRoot = absolutePath('sysfs-root', raw('sysfs-root'));
  if (!sysfsRoot.ok) return sysfsRoot;

  const healthcheckPort = integer('healthcheck-port', raw('healthcheck-port'), Number.MIN_SAFE_INTEGER, 65535);
  if (!healthcheckPort.ok) return healthcheckPort;

  const namespace = raw('namespace') ?? '';
  if (!isDns1123Label(namespace)) return invalid('namespace', `${JSON.stringify(namespace)} is not a valid namespace name`);

  const mode = raw('configuration-mode');
  if (mode !== 'STANDALONE' && mode !== 'MULTUS') return invalid('configuration-mode', `${JSON.stringify(mode)} is neither STANDALONE nor MULTUS`);

  const qpsText = raw('kube-api-qps') ?? '';
  if (!/^\d+(\.\d+)?$/.test(qpsText) || Number(qpsText) === 0) return invalid('kube-api-qps', `${JSON.stringify(qpsText)} is not a positive number`);

  const burst = integer('kube-api-burst', raw('kube-api-burst'), 1, 1_000_000);
  if (!burst.ok) return burst;

  const autoAttachText = raw('multus-auto-attach') ?? '';
  const multusAutoAttach = parseGoBool(autoAttachText);
  if (multusAutoAttach === undefined) return invalid('multus-auto-attach', `${JSON.stringify(autoAttachText)} is not a boolean`);
  if (multusAutoAttach && mode !== 'MULTUS') {
    return invalid('multus-auto-attach', 'automatic network attachment needs Multus: set --configuration-mode MULTUS or leave --multus-auto-attach off');
  }

  const logLevel = raw('log-level');
  if (logLevel !== undefined && !isLogLevel(logLevel)) return invalid('log-level', `${JSON.stringify(logLevel)} is not one of ${LOG_LEVELS.join(', ')}`);

  // An empty KUBECONFIG means in-cluster configuration, as for client-go.
  const kubeconfig = raw('kubeconfig') || undefined;
  return ok({
    nodeName,
    cdiRoot: cdiRoot.value,
    kubeletRegistrarDirectoryPath: registrar.value,
    kubeletPluginsDirectoryPath: plugins.value,
    healthcheckPort: healthcheckPort.value,
    namespace,
    configurationMode: mode,
    ...(kubeconfig === undefined ? {} : { kubeconfig }),
    kubeApiQps: Number(qpsText),
    kubeApiBurst: burst.value,
    multusAutoAttach,
    sysfsRoot: sysfsRoot.value,
    ...(logLevel === undefined ? {} : { logLevel }),
  });
}
