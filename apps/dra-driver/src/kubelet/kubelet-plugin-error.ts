/**
 * A failure at the kubelet plugin boundary: a malformed claim reference from the kubelet, a claim call
 * that outran its deadline, a socket path occupied by something that is not a socket, or a registration
 * the kubelet refused. The contract's catalog covers what the driver decides about claims; these codes
 * are about the plugin's conversation with the kubelet and stay local to the driver.
 */
export type KubeletPluginCode = 'InvalidClaimReference' | 'ClaimCallDeadlineExceeded' | 'ClaimCallCancelled' | 'SocketPathOccupied' | 'RegistrationRejected';

const REMEDIES: Readonly<Record<KubeletPluginCode, string>> = {
  InvalidClaimReference: 'the kubelet sends namespace, uid and name for every claim; check that the kubelet version speaks this DRA API version',
  ClaimCallDeadlineExceeded:
    'the kubelet retries the call; if it keeps timing out, look in the driver log for the step this claim is stuck in (API server, sysfs, checkpoint)',
  ClaimCallCancelled: 'the kubelet gave up on the call and will retry it; nothing needs to be done unless this repeats',
  SocketPathOccupied: 'remove the file or directory at this path, or point the kubelet directory flags at the kubelet’s real directories',
  RegistrationRejected: 'read the kubelet’s reason above; usually the kubelet does not support any DRA API version this driver serves, or DRA is disabled',
};

export class KubeletPluginError extends Error {
  override readonly name = 'KubeletPluginError';
  readonly code: KubeletPluginCode;
  /** The claim (namespace/name, uid) or path the failure is about. */
  readonly subject: string;

  constructor(code: KubeletPluginCode, subject: string, detail: string, cause?: unknown) {
    super(`${code}: ${subject}: ${detail} \u2014 ${REMEDIES[code]}`, cause === undefined ? undefined : { cause });
    this.code = code;
    this.subject = subject;
  }
}

export function isKubeletPluginError(error: unknown, code?: KubeletPluginCode): error is KubeletPluginError {
  return error instanceof KubeletPluginError && (code === undefined || error.code === code);
}
