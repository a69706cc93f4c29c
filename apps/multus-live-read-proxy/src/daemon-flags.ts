import { parseArgs } from 'node:util';
import { type Result, fail, isDns1123Subdomain, ok } from '@sriov-dra/contract';
import { LOG_LEVELS, type LogLevel, isLogLevel } from '@sriov-dra/k8s';
import { DEFAULT_DAEMON_CONFIG_PATH } from './daemon-config.ts';

/**
 * The daemon's command line. Upstream multus-daemon takes `-config` for its daemon-config.json; the rest
 * of its settings live in that file, and so do ours. A flag beats its environment variable, which beats
 * the default.
 */
export interface DaemonFlags {
  readonly config: string;
  /** The node whose Pods the shared Pod informer caches (spec.nodeName). */
  readonly nodeName: string;
  /** Absent: in-cluster configuration. */
  readonly kubeconfig?: string;
  /** Port of /healthz, /readyz and /metrics over TCP; 0 picks a free port, negative disables. */
  readonly metricsPort: number;
  readonly kubeApiQps: number;
  readonly kubeApiBurst: number;
  /** Absent: info. Upstream's logLevel key in daemon-config.json stays the shim's. */
  readonly logLevel?: LogLevel;
}

interface FlagSpec {
  readonly env?: string;
  readonly fallback?: string;
  readonly help: string;
}

const FLAGS = {
  config: { env: 'MULTUS_DAEMON_CONFIG', fallback: DEFAULT_DAEMON_CONFIG_PATH, help: 'daemon-config.json (upstream Multus keys plus liveNetworkConfigOnAdd)' },
  'node-name': { env: 'NODE_NAME', help: 'the Node this daemon serves (required)' },
  kubeconfig: { env: 'KUBECONFIG', help: 'kubeconfig file; unset means in-cluster configuration' },
  'metrics-port': { env: 'METRICS_PORT', fallback: '9091', help: 'port of /healthz, /readyz and /metrics; 0 picks a free port, negative disables' },
  'kube-api-qps': { env: 'KUBE_API_QPS', fallback: '50', help: 'sustained API requests per second (live reads add one GET per Pod and per NAD to each ADD)' },
  'kube-api-burst': { env: 'KUBE_API_BURST', fallback: '100', help: 'API request burst' },
  'log-level': {
    env: 'LOG_LEVEL',
    help: 'level of the daemon’s JSON log on stdout: trace, debug, info (the default), warn, error or fatal; at debug and trace a failed start also logs its stack (daemon-config.json’s logLevel stays the shim’s)',
  },
} as const satisfies Record<string, FlagSpec>;

type FlagName = keyof typeof FLAGS;

export function daemonFlagsUsage(): string {
  const lines = Object.entries(FLAGS).map(([name, spec]: [string, FlagSpec]) => {
    const env = spec.env === undefined ? '' : ` (env ${spec.env})`;
    const fallback = spec.fallback === undefined ? '' : ` [default ${spec.fallback}]`;
    return `  --${name}${env}${fallback}\n      ${spec.help}`;
  });
  return `Usage: multus-live-read-proxy [flags]\n       multus-live-read-proxy preflight [flags]   (checks the node; preflight --help)\n       multus-live-read-proxy --version           (prints the release and source commit)\n\n${lines.join('\n')}\n`;
}

export function wantsHelp(argv: readonly string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}

/** The object names the flag, so the line reads `InvalidComponentSetting: Flag --<flag>: <detail> — <remedy>`, as every component's does. */
function flagError(flag: FlagName, detail: string): Result<never> {
  return fail('InvalidComponentSetting', detail, { object: { kind: 'Flag', name: `--${flag}` } });
}

function integer(flag: FlagName, text: string, min: number): Result<number> {
  const value = Number(text);
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(value) || value < min)
    return flagError(flag, `${JSON.stringify(text)} is not an integer ≥ ${String(min)}`);
  return ok(value);
}

export function parseDaemonFlags(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Result<DaemonFlags> {
  let parsed: ReturnType<typeof parseArgs<{ options: Record<FlagName, { type: 'string' }>; strict: true; allowPositionals: false }>>;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: Object.fromEntries(Object.keys(FLAGS).map((name) => [name, { type: 'string' }])) as Record<FlagName, { type: 'string' }>,
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    // Duck-typed: parseArgs's TypeError may come from another realm (a test VM), where instanceof Error fails.
    const message = typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string' ? error.message : String(error);
    return fail('InvalidComponentSetting', message, { remedy: 'run with --help for the flags' });
  }
  const value = (flag: FlagName): string | undefined => {
    const spec: FlagSpec = FLAGS[flag];
    return parsed.values[flag] ?? (spec.env === undefined ? undefined : env[spec.env]) ?? spec.fallback;
  };
  const nodeName = value('node-name') ?? '';
  if (!isDns1123Subdomain(nodeName))
    return flagError('node-name', nodeName === '' ? 'is required (or set NODE_NAME)' : `${JSON.stringify(nodeName)} is not a Node name`);
  const metricsPort = integer('metrics-port', value('metrics-port') ?? '', -1);
  if (!metricsPort.ok) return metricsPort;
  if (metricsPort.value > 65535) return flagError('metrics-port', `${String(metricsPort.value)} is not a port`);
  const qps = integer('kube-api-qps', value('kube-api-qps') ?? '', 1);
  if (!qps.ok) return qps;
  const burst = integer('kube-api-burst', value('kube-api-burst') ?? '', 1);
  if (!burst.ok) return burst;
  const logLevel = value('log-level');
  if (logLevel !== undefined && !isLogLevel(logLevel)) return flagError('log-level', `${JSON.stringify(logLevel)} is not one of ${LOG_LEVELS.join(', ')}`);
  const kubeconfig = value('kubeconfig');
  return ok({
    config: value('config') ?? DEFAULT_DAEMON_CONFIG_PATH,
    nodeName,
    ...(kubeconfig === undefined || kubeconfig === '' ? {} : { kubeconfig }),
    metricsPort: metricsPort.value,
    kubeApiQps: qps.value,
    kubeApiBurst: burst.value,
    ...(logLevel === undefined ? {} : { logLevel }),
  });
}
