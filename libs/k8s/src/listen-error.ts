import { SriovDraError } from '@sriov-dra/contract';

export interface ListenTarget {
  /** The flag that chose the port, named in the error. */
  readonly portFlag: string;
  readonly host: string;
  readonly port: number;
}

function systemCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/**
 * A listen that failed because of the port chosen (taken, or privileged) becomes an error naming the
 * flag that chose it; anything else is returned as it is.
 */
export function listenError(error: unknown, target: ListenTarget): unknown {
  const code = systemCode(error);
  const where = `${target.host}:${String(target.port)}`;
  if (code === 'EADDRINUSE') {
    return new SriovDraError('InvalidComponentSetting', `port ${where} is already in use`, {
      object: { kind: 'Flag', name: target.portFlag },
      remedy: `stop what listens there or set ${target.portFlag} to a free port`,
      cause: error,
    });
  }
  if (code === 'EACCES') {
    return new SriovDraError('InvalidComponentSetting', `port ${where} may not be bound by this process`, {
      object: { kind: 'Flag', name: target.portFlag },
      remedy: `set ${target.portFlag} to a port above 1023, or grant the process CAP_NET_BIND_SERVICE`,
      cause: error,
    });
  }
  return error;
}
