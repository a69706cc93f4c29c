import { SriovDraError, isSriovDraError } from '@sriov-dra/contract';
import { type ClientConfig, KubeApiError, errorMessage } from '@sriov-dra/k8s';

/** A command line the command cannot run: says what is wrong and where the command's usage is. */
export function commandLineError(command: string, detail: string): SriovDraError {
  return new SriovDraError('InvalidCommandLine', detail, { remedy: `see sriov-dra ${command} --help` });
}

/** Whom the failed request went to and as whom, named in the remedies of API failures. */
type Target = Pick<ClientConfig, 'origin' | 'context' | 'server' | 'userName'>;

/** An API failure restated for the administrator at a terminal: what to check from here, not what a controller retries. */
function apiFailure(error: KubeApiError, target: Target | undefined): SriovDraError {
  const where = target === undefined ? 'the API server' : `server ${target.server.origin} (context "${target.context}")`;
  const subject = { ...(error.object === undefined ? {} : { object: error.object }), cause: error };
  if ((error.kind === 'Unavailable' || error.kind === 'Timeout') && error.status === 0)
    return new SriovDraError(error.code, `${where} did not answer ${error.request.method} ${error.request.path}: ${errorMessage(error.cause)}`, {
      ...subject,
      remedy: `check that the API server is running and reachable from here (kubectl cluster-info${target === undefined ? '' : ` --context ${target.context}`}), or choose another context with --context`,
    });
  if (error.kind === 'Forbidden')
    return new SriovDraError(error.code, error.detail, {
      ...subject,
      remedy:
        'ask a cluster administrator to grant the permission named above (check it with kubectl auth can-i), or act as an identity that has it with --as/--as-group',
    });
  if (error.kind === 'Unauthorized')
    return new SriovDraError(error.code, error.detail, {
      ...subject,
      remedy: `${where} rejected the credentials of user "${target?.userName ?? ''}"${target === undefined ? '' : ` in ${target.origin}`}: log in again or renew them, or choose another context with --context`,
    });
  if (error.kind === 'NotFound')
    return new SriovDraError(error.code, error.detail, { ...subject, remedy: 'check the name and the namespace (-n NAMESPACE); nothing was changed' });
  return error;
}

/**
 * The one line a failed command prints: `error: <code>: <object>: <what failed> — <what to do>`. A typed
 * error carries its stable code; anything else is a failure the command does not classify.
 */
export function failureLine(error: unknown, target?: Target): string {
  const typed =
    error instanceof KubeApiError
      ? apiFailure(error, target)
      : isSriovDraError(error)
        ? error
        : new SriovDraError('UnexpectedFailure', errorMessage(error) || String(error));
  return `error: ${typed.message.replaceAll(/\s*\n\s*/g, ' ')}`;
}

/** Whether failures also print their stack (SRIOV_DRA_DEBUG=1), for a report. */
export function debugging(env: NodeJS.ProcessEnv = process.env): boolean {
  return env['SRIOV_DRA_DEBUG'] === '1';
}
