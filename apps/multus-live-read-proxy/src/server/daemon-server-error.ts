/**
 * A rejection at the daemon's socket: a request the upstream multus-shim (or anything else on the
 * socket) sent that cannot be turned into a CNI request, an endpoint this daemon does not serve, or a
 * socket path it cannot use. The message is the whole answer the shim sees, so it names the request
 * or path and says what to do. The contract's catalog covers what the daemon decides about Pods and
 * networks; these codes are about the socket conversation and stay local to the daemon.
 */
export type DaemonServerCode =
  | 'MalformedCniRequest'
  | 'MissingCniEnv'
  | 'InvalidCniArgs'
  | 'UnsupportedCniCommand'
  | 'DelegateNotSupported'
  | 'InvalidCniResult'
  | 'CniRequestFailed'
  | 'SocketPathOccupied'
  | 'SocketDirUnusable';

const REMEDIES: Readonly<Record<DaemonServerCode, string>> = {
  MalformedCniRequest:
    'send the JSON the upstream multus-shim sends: {"env": {…CNI_* variables}, "config": <base64 of the CNI configuration>}; check that the shim on this node is multus-shim v4',
  MissingCniEnv: 'run the CNI binary through a container runtime (or libcni), which sets every CNI_* variable the command needs',
  InvalidCniArgs: 'CNI_ARGS must be KEY=VALUE pairs separated by ";" with exactly one "=" each, as Kubernetes runtimes send them',
  UnsupportedCniCommand: 'the daemon serves ADD, DEL, CHECK, GC and STATUS; VERSION is answered by the shim itself',
  DelegateNotSupported: 'this daemon does not hot-plug interfaces; attach networks through the Pod networks annotation or a DRA claim',
  InvalidCniResult: 'this is a daemon defect; report it with the daemon log line of this request',
  CniRequestFailed: 'look in the daemon log for this container ID; the runtime retries the command',
  SocketPathOccupied: 'remove the file or directory at this path, or point socketDir in daemon-config.json at a directory the daemon owns',
  SocketDirUnusable: 'make socketDir in daemon-config.json a directory the daemon (running as root) can create and restrict to mode 0700',
};

export class DaemonServerError extends Error {
  override readonly name = 'DaemonServerError';
  readonly code: DaemonServerCode;
  /** The request (command and container ID), endpoint or path the failure is about. */
  readonly subject: string;

  constructor(code: DaemonServerCode, subject: string, detail: string, cause?: unknown) {
    super(`${code}: ${subject}: ${detail} \u2014 ${REMEDIES[code]}`, cause === undefined ? undefined : { cause });
    this.code = code;
    this.subject = subject;
  }
}

export function isDaemonServerError(error: unknown, code?: DaemonServerCode): error is DaemonServerError {
  return error instanceof DaemonServerError && (code === undefined || error.code === code);
}
