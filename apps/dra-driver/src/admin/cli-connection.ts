import { existsSync } from 'node:fs';
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { SriovDraError } from '@sriov-dra/contract';
import {
  type ClientConfig,
  type Impersonation,
  KubeClient,
  type KubeObject,
  defaultKubeconfigFiles,
  inClusterConfig,
  isApiError,
  loadKubeconfig,
} from '@sriov-dra/k8s';
import { commandLineError, debugging, failureLine } from './cli-failure.ts';
import { type OutputFormat, OUTPUT_FORMATS, isOutputFormat } from './cli-output.ts';
import { EXIT, type Output } from './command-io.ts';

/**
 * kubectl's flags, for every command that talks to a cluster: spread into the command's parseArgs
 * options (`{ ...CONNECTION_OPTIONS, 'node-name': { type: 'string' } }`).
 */
export const CONNECTION_OPTIONS = {
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  namespace: { type: 'string', short: 'n' },
  output: { type: 'string', short: 'o' },
  as: { type: 'string' },
  'as-group': { type: 'string', multiple: true },
  'as-uid': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsOptionsConfig;

/** The lines of a command's --help that describe CONNECTION_OPTIONS. */
export const CONNECTION_USAGE = `Cluster flags, as kubectl's:
  --kubeconfig FILE    [default: $KUBECONFIG, ~/.kube/config, then in-cluster]
  --context NAME       a context of the kubeconfig other than its current-context
  -n, --namespace NS   [default: the context's namespace, else default]
  -o, --output FORMAT  ${OUTPUT_FORMATS.join(', ')} [default table]
  --as USER            act as USER (impersonation; needs the impersonate permission)
  --as-group GROUP     act as a member of GROUP, repeatable; with --as or the kubeconfig user's as
  --as-uid UID         act with this UID; with --as or the kubeconfig user's as
`;

/** The values parseArgs returns for CONNECTION_OPTIONS. */
export interface ConnectionValues {
  readonly kubeconfig?: string | undefined;
  readonly context?: string | undefined;
  readonly namespace?: string | undefined;
  readonly output?: string | undefined;
  readonly as?: string | undefined;
  readonly 'as-group'?: readonly string[] | undefined;
  readonly 'as-uid'?: string | undefined;
}

/** The cluster flags of one command line, checked. */
export interface ConnectionFlags {
  readonly kubeconfig?: string;
  readonly context?: string;
  /** Given with -n; absent means the context's namespace, else `default`. */
  readonly namespace?: string;
  readonly output: OutputFormat;
  readonly as?: string;
  readonly asGroups: readonly string[];
  readonly asUid?: string;
}

/** The command's line parsed against its options; a line it cannot parse is an InvalidCommandLine failure. */
export function parseCommandLine<T extends ParseArgsOptionsConfig>(command: string, argv: readonly string[], options: T) {
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: true });
  } catch (error) {
    // Duck-typed: parseArgs's TypeError may come from another realm (a test VM), where instanceof Error fails.
    const message = (error as { message?: unknown } | null)?.message;
    throw commandLineError(command, typeof message === 'string' ? message : String(error));
  }
}

/** Checks the cluster flags of a parsed command line: -o must be a known format, an empty value is no value. */
export function connectionFlags(command: string, values: ConnectionValues): ConnectionFlags {
  const output = values.output ?? 'table';
  if (!isOutputFormat(output)) throw commandLineError(command, `-o ${output}: the output format is one of ${OUTPUT_FORMATS.join(', ')}`);
  for (const flag of ['kubeconfig', 'context', 'namespace', 'as', 'as-uid'] as const) {
    if (values[flag] === '') throw commandLineError(command, `--${flag} needs a value`);
  }
  return {
    output,
    asGroups: values['as-group'] ?? [],
    ...(values.kubeconfig === undefined ? {} : { kubeconfig: values.kubeconfig }),
    ...(values.context === undefined ? {} : { context: values.context }),
    ...(values.namespace === undefined ? {} : { namespace: values.namespace }),
    ...(values.as === undefined ? {} : { as: values.as }),
    ...(values['as-uid'] === undefined ? {} : { asUid: values['as-uid'] }),
  };
}

/** An object read that may find nothing: NotFound is undefined, every other failure is the command's. */
export async function getIfPresent<T extends KubeObject>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (isApiError(error, 'NotFound')) return undefined;
    throw error;
  }
}

/** An open connection to the cluster the flags select. */
export interface Connection {
  readonly client: KubeClient;
  /** -n, else the context's namespace, else `default`. */
  readonly namespace: string;
}

/** Resolves the kubeconfig as kubectl does: --kubeconfig, else $KUBECONFIG, else ~/.kube/config, else in-cluster. */
function clientConfig(flags: ConnectionFlags): ClientConfig {
  if (flags.kubeconfig !== undefined && !existsSync(flags.kubeconfig))
    throw new SriovDraError('InvalidKubeconfig', `kubeconfig ${flags.kubeconfig} does not exist`, {
      object: { kind: 'Flag', name: '--kubeconfig' },
      remedy: 'name an existing kubeconfig file with --kubeconfig, or leave the flag out to use $KUBECONFIG or ~/.kube/config',
    });
  const files = flags.kubeconfig === undefined ? defaultKubeconfigFiles() : [flags.kubeconfig];
  if (files.length > 0) return loadKubeconfig(files, flags.context === undefined ? {} : { context: flags.context });
  if (process.env['KUBERNETES_SERVICE_HOST'] === undefined || flags.context !== undefined)
    throw new SriovDraError('InvalidKubeconfig', 'no kubeconfig: $KUBECONFIG is not set and ~/.kube/config does not exist', {
      remedy: 'pass --kubeconfig FILE, set KUBECONFIG, or write ~/.kube/config (e.g. with your cluster provider\u2019s login command)',
    });
  return inClusterConfig();
}

/** The flags override the kubeconfig user's as, as-groups and as-uid one by one, as kubectl's do. */
function impersonation(flags: ConnectionFlags, configured: Impersonation | undefined): Impersonation | undefined {
  const user = flags.as ?? configured?.user;
  const groups = flags.asGroups.length > 0 ? flags.asGroups : (configured?.groups ?? []);
  const uid = flags.asUid ?? configured?.uid;
  if (user === undefined) {
    if (flags.asGroups.length > 0 || flags.asUid !== undefined)
      throw new SriovDraError('InvalidCommandLine', '--as-group and --as-uid need a user to act as', {
        object: { kind: 'Flag', name: flags.asGroups.length > 0 ? '--as-group' : '--as-uid' },
        remedy: 'add --as USER, or set as in the kubeconfig user',
      });
    return undefined;
  }
  return { user, groups, extra: configured?.extra ?? {}, ...(uid === undefined ? {} : { uid }) };
}

/**
 * Opens a client for the flags' kubeconfig, context and impersonation. Like kubectl it goes through the
 * cluster's proxy-url, else through the proxy HTTPS_PROXY names unless NO_PROXY exempts the server.
 */
export function openConnection(flags: ConnectionFlags): Connection {
  const config = clientConfig(flags);
  const impersonate = impersonation(flags, config.impersonate);
  const client = KubeClient.fromConfig({ ...config, impersonate }, { userAgent: 'sriov-dra-cli', proxyEnv: process.env });
  return { client, namespace: flags.namespace ?? config.namespace ?? 'default' };
}

/** What a command body gets: connections it opens are closed, and named in failures, by runCommand. */
export interface CommandSession {
  connect(flags: ConnectionFlags): Connection;
}

/**
 * Runs a command body and returns the exit status: 0 when it returns; any error it throws becomes one
 * line on stderr (code, what failed, what to do) and status 1. The stack follows only with SRIOV_DRA_DEBUG=1.
 */
export async function runCommand(err: Output, body: (session: CommandSession) => Promise<void>): Promise<number> {
  const opened: KubeClient[] = [];
  const session: CommandSession = {
    connect(flags) {
      const connection = openConnection(flags);
      opened.push(connection.client);
      return connection;
    },
  };
  try {
    await body(session);
    return EXIT.ok;
  } catch (error) {
    err.write(`${failureLine(error, opened.at(-1)?.config)}\n`);
    if (debugging()) err.write(`${(error as { stack?: unknown } | null)?.stack as string}\n`);
    return EXIT.failed;
  } finally {
    for (const client of opened) client.close();
  }
}
