import { hostname } from 'node:os';
import { type Result, isDns1123Label, isDns1123Subdomain, ok } from '@sriov-dra/contract';
import { OPERATOR_MODES, type OperatorMode, isOperatorMode } from '../coexistence/operator-mode.ts';
import type { LogLevel } from '@sriov-dra/k8s';
import { type FlagSpec, flagError, flagUsage, readFlagTable } from './flag-table.ts';
import { LOG_LEVEL_FLAG, parseLogLevelFlag } from './log-level-flag.ts';

/** The subcommand that runs the controllers. */
export const RUN_COMMAND = 'run';

export interface RunFlags {
  readonly operatorNamespace: string;
  readonly resourcePrefix: string;
  readonly draEnabled: boolean;
  readonly mode: OperatorMode;
  /** Absent: in-cluster configuration. */
  readonly kubeconfig?: string;
  readonly healthPort: number;
  readonly kubeApiQps: number;
  readonly kubeApiBurst: number;
  /** Absent: this replica leads alone. */
  readonly leaderElection?: { readonly namespace: string; readonly name: string; readonly identity: string };
  /** Absent: info. */
  readonly logLevel?: LogLevel;
}

/**
 * Sized for a cold reconciliation of 200 policies × 50 nodes (about 450 writes and 400 live reads) within
 * seconds; the API server's priority and fairness still protect it. The benchmark runs with these.
 */
export const DEFAULT_KUBE_API_QPS = 200;
export const DEFAULT_KUBE_API_BURST = 400;

const FLAGS = {
  'operator-namespace': { env: 'OPERATOR_NAMESPACE', help: 'namespace of the policies, SriovNetworkNodeStates and generated objects (required)' },
  'resource-prefix': { env: 'RESOURCE_PREFIX', fallback: 'openshift.io', help: 'prefix of the compatibility resourceName attribute (<prefix>/<resourceName>)' },
  'dra-enabled': {
    env: 'DRA_ENABLED',
    fallback: 'true',
    help: 'whether the DRA provider is deployed; false stages spec.dra (DRAInactive) and generates nothing',
  },
  mode: {
    env: 'OPERATOR_MODE',
    fallback: 'standalone',
    help: `${OPERATOR_MODES.join(' or ')}: standalone also renders each SriovNetwork's NAD (finalizer, Ready); alongside-upstream leaves SriovNetworks and their NADs to the SR-IOV network operator and generates only the DRA objects`,
  },
  kubeconfig: { env: 'KUBECONFIG', help: 'kubeconfig file; unset means in-cluster configuration' },
  'health-port': { env: 'HEALTH_PORT', fallback: '8081', help: 'port of /healthz, /readyz and /metrics; 0 picks a free port' },
  'kube-api-qps': { env: 'KUBE_API_QPS', fallback: String(DEFAULT_KUBE_API_QPS), help: 'sustained API requests per second' },
  'kube-api-burst': { env: 'KUBE_API_BURST', fallback: String(DEFAULT_KUBE_API_BURST), help: 'API request burst' },
  'leader-elect': { env: 'LEADER_ELECT', fallback: 'true', help: 'campaign for the Lease before running the controllers (false: one replica only)' },
  'leader-election-namespace': { env: 'LEADER_ELECTION_NAMESPACE', help: 'namespace of the Lease [default: the operator namespace]' },
  'leader-election-id': { env: 'LEADER_ELECTION_ID', fallback: 'sriov-dra-node-policy-operator', help: 'name of the Lease' },
  identity: { env: 'POD_NAME', help: 'this replica in the Lease [default: the host name]' },
  'log-level': LOG_LEVEL_FLAG,
} satisfies Record<string, FlagSpec>;

type FlagName = keyof typeof FLAGS;

export function runUsage(): string {
  return `Usage: node-policy-operator ${RUN_COMMAND} [flags]

Runs the SriovNetwork and node-policy DRA controllers while this replica holds the Lease.

${flagUsage(FLAGS)}
`;
}

function integer(flag: FlagName, text: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): Result<number> {
  const value = Number(text);
  if (text === undefined || !/^\d+$/.test(text) || value < min || value > max) {
    return flagError(flag, `${JSON.stringify(text ?? '')} is not an integer from ${String(min)} to ${String(max)}`);
  }
  return ok(value);
}

function boolean(flag: FlagName, text: string | undefined): Result<boolean> {
  if (text === 'true') return ok(true);
  if (text === 'false') return ok(false);
  return flagError(flag, `${JSON.stringify(text ?? '')} is neither true nor false`);
}

export function parseRunFlags(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Result<RunFlags> {
  const read = readFlagTable(FLAGS, argv, env, RUN_COMMAND);
  if (!read.ok) return read;
  const value = read.value;
  const operatorNamespace = value('operator-namespace');
  if (operatorNamespace === undefined) return flagError('operator-namespace', 'is required: the namespace the operator runs in');
  if (!isDns1123Label(operatorNamespace)) return flagError('operator-namespace', `${JSON.stringify(operatorNamespace)} is not a namespace name`);
  const draEnabled = boolean('dra-enabled', value('dra-enabled'));
  if (!draEnabled.ok) return draEnabled;
  const mode = value('mode') ?? '';
  if (!isOperatorMode(mode)) return flagError('mode', `${JSON.stringify(mode)} is not one of ${OPERATOR_MODES.join(', ')}`);
  const leaderElect = boolean('leader-elect', value('leader-elect'));
  if (!leaderElect.ok) return leaderElect;
  const healthPort = integer('health-port', value('health-port'), 0, 65_535);
  if (!healthPort.ok) return healthPort;
  const qps = integer('kube-api-qps', value('kube-api-qps'), 1);
  if (!qps.ok) return qps;
  const burst = integer('kube-api-burst', value('kube-api-burst'), 1);
  if (!burst.ok) return burst;
  const leaseNamespace = value('leader-election-namespace') ?? operatorNamespace;
  if (!isDns1123Label(leaseNamespace)) return flagError('leader-election-namespace', `${JSON.stringify(leaseNamespace)} is not a namespace name`);
  const leaseName = value('leader-election-id') ?? '';
  if (!isDns1123Subdomain(leaseName)) return flagError('leader-election-id', `${JSON.stringify(leaseName)} is not an object name`);
  const logLevel = parseLogLevelFlag(value('log-level'));
  if (!logLevel.ok) return logLevel;
  const kubeconfig = value('kubeconfig');
  return ok({
    operatorNamespace,
    resourcePrefix: value('resource-prefix') ?? '',
    draEnabled: draEnabled.value,
    mode,
    ...(kubeconfig === undefined ? {} : { kubeconfig }),
    healthPort: healthPort.value,
    kubeApiQps: qps.value,
    kubeApiBurst: burst.value,
    ...(leaderElect.value ? { leaderElection: { namespace: leaseNamespace, name: leaseName, identity: value('identity') ?? hostname() } } : {}),
    ...(logLevel.value === undefined ? {} : { logLevel: logLevel.value }),
  });
}
