/**
 * Failures of delegate execution. Two kinds: a CniPluginError is a plugin's own answer (a CNI error
 * object on stdout with a non-zero exit) and carries the plugin's code, msg and details unchanged, so the
 * shim can report them as the plugin said them; a CniInvocationError is everything around the plugin
 * (the configuration, the runtime data, finding and running the binary, reading its output, the result
 * cache). Both name the network and, when one is involved, the plugin type.
 */
export type CniInvocationCode =
  | 'MalformedDelegateConfig'
  | 'UnsupportedDelegateCniVersion'
  | 'InvalidRuntimeConf'
  | 'PluginNotFound'
  | 'PluginLaunchFailed'
  | 'ChrootLaunchFailed'
  | 'PluginTimedOut'
  | 'PluginCancelled'
  | 'PluginFailedWithoutError'
  | 'InvalidPluginOutput'
  | 'CorruptResultCache'
  | 'ResultCacheIoFailed';

const REMEDIES: Readonly<Record<CniInvocationCode, string>> = {
  MalformedDelegateConfig: 'fix the CNI configuration of this network (the NAD spec.config or the configuration file it names)',
  UnsupportedDelegateCniVersion: 'set cniVersion of this network to 0.4.0, 1.0.0 or 1.1.0',
  InvalidRuntimeConf: 'the container runtime supplies these values; check the CNI_* environment the runtime passed',
  PluginNotFound: 'install the plugin binary in one of the CNI bin directories, or fix the plugin type in the configuration',
  PluginLaunchFailed: 'make the plugin file an executable for this node’s architecture',
  ChrootLaunchFailed:
    'the plugin runs at the path the daemon found it, under chrootDir: make that path the same executable there (mount the host’s CNI binary directory at its own path in the daemon’s container), and run the daemon as root',
  PluginTimedOut: 'the plugin was killed at the deadline; look in the plugin’s own log for where it hangs, or raise the deadline',
  PluginCancelled: 'the request was cancelled (the daemon is shutting down or the caller went away); the runtime retries it',
  PluginFailedWithoutError: 'read the plugin’s stderr above; the plugin exited non-zero without printing a CNI error',
  InvalidPluginOutput: 'the plugin printed something that is not a CNI result or error of its cniVersion; check the plugin version against the configuration',
  CorruptResultCache: 'inspect the cache file named above; it was kept untouched. Remove it only after the attachment it describes is cleaned up',
  ResultCacheIoFailed: 'check that the CNI cache directory is writable and its filesystem is not full',
};

export interface CniSubject {
  /** The network (list) name, or the best name known when the configuration could not be read. */
  readonly network: string;
  /** The plugin type, when the failure is about one plugin. */
  readonly pluginType?: string;
}

function describeSubject(subject: CniSubject): string {
  return subject.pluginType === undefined
    ? `network ${JSON.stringify(subject.network)}`
    : `network ${JSON.stringify(subject.network)} plugin type=${JSON.stringify(subject.pluginType)}`;
}

export class CniInvocationError extends Error {
  override readonly name = 'CniInvocationError';
  readonly code: CniInvocationCode;
  readonly network: string;
  readonly pluginType: string | undefined;
  readonly detail: string;

  constructor(code: CniInvocationCode, subject: CniSubject, detail: string, cause?: unknown) {
    super(`${code}: ${describeSubject(subject)}: ${detail} \u2014 ${REMEDIES[code]}`, cause === undefined ? undefined : { cause });
    this.code = code;
    this.network = subject.network;
    this.pluginType = subject.pluginType;
    this.detail = detail;
  }
}

export function isCniInvocationError(error: unknown, code?: CniInvocationCode): error is CniInvocationError {
  return error instanceof CniInvocationError && (code === undefined || error.code === code);
}

/** A CNI error object a plugin printed (`{cniVersion, code, msg, details}`), as the plugin said it. */
export class CniPluginError extends Error {
  override readonly name = 'CniPluginError';
  /** The plugin's CNI error code (1 version … 7 invalid config, 11 try again, 50+ plugin-specific). */
  readonly cniCode: number;
  readonly msg: string;
  readonly details: string;
  readonly network: string;
  readonly pluginType: string;
  /** The CNI command the plugin was answering. */
  readonly command: string;

  constructor(subject: Required<CniSubject>, command: string, error: { readonly code: number; readonly msg: string; readonly details: string }) {
    const details = error.details === '' ? '' : `; ${error.details}`;
    super(
      `plugin type=${JSON.stringify(subject.pluginType)} failed (${command.toLowerCase()}) for network ${JSON.stringify(subject.network)}: CNI error ${error.code}: ${error.msg}${details}`,
    );
    this.cniCode = error.code;
    this.msg = error.msg;
    this.details = error.details;
    this.network = subject.network;
    this.pluginType = subject.pluginType;
    this.command = command;
  }
}

export function isCniPluginError(error: unknown): error is CniPluginError {
  return error instanceof CniPluginError;
}
