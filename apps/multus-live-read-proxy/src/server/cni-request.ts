import { goTrimSpace } from '@sriov-dra/cni-render';
import { DaemonServerError } from './daemon-server-error.ts';
import type { ShimRequest } from './wire.ts';

export const CNI_COMMANDS = ['ADD', 'DEL', 'CHECK', 'GC', 'STATUS'] as const;
export type CniCommand = (typeof CNI_COMMANDS)[number];

/** One CNI invocation of the shim, as the daemon's pipelines consume it. */
export interface CniRequest {
  readonly command: CniCommand;
  readonly containerID: string;
  readonly netns: string;
  readonly ifName: string;
  /** CNI_ARGS pairs in the order sent, keys and values trimmed as Multus trims them. */
  readonly args: readonly (readonly [string, string])[];
  /** CNI_PATH of the shim's environment. */
  readonly path: string;
  /** The exact stdin bytes of the shim. */
  readonly config: Buffer;
  /** The shim's whole environment. */
  readonly env: Readonly<Record<string, string>>;
}

/** What a handler answers: ADD carries the CNI 1.0.0 result; the other commands answer nothing. */
export interface CniResponse {
  readonly result?: unknown;
}

export interface CniRequestHandler {
  handle(request: CniRequest, signal: AbortSignal): Promise<CniResponse>;
}

/** The interface name Multus assumes when CNI_IFNAME is absent. */
export const DEFAULT_IFNAME = 'eth0';

/**
 * CNI_ARGS exactly as the Multus daemon reads it (gatherCNIArgs): split on ";", each part on "=" into
 * exactly two parts. An empty CNI_ARGS is one empty part and so invalid, as it is upstream.
 */
export function parseCniArgs(cniArgs: string, subject: string): readonly (readonly [string, string])[] {
  return cniArgs.split(';').map((arg) => {
    const parts = arg.split('=');
    if (parts.length !== 2) {
      throw new DaemonServerError('InvalidCniArgs', subject, `invalid CNI_ARG '${arg}' in CNI_ARGS '${cniArgs}'`);
    }
    return [goTrimSpace(parts[0] ?? ''), goTrimSpace(parts[1] ?? '')] as const;
  });
}

function isCniCommand(value: string): value is CniCommand {
  return (CNI_COMMANDS as readonly string[]).includes(value);
}

/** Commands that act on one attachment need to know which one; GC and STATUS act on the network. */
const ATTACHMENT_ENV = ['CNI_CONTAINERID', 'CNI_NETNS', 'CNI_ARGS'] as const;

/**
 * Builds the CniRequest from what the shim posted. ADD, DEL and CHECK need CNI_CONTAINERID, CNI_NETNS
 * and CNI_ARGS to be present (empty values pass, as upstream only tests presence); GC and STATUS need
 * CNI_COMMAND alone.
 */
export function cniRequestFromShim(shim: ShimRequest): CniRequest {
  const env = shim.env;
  const command = env['CNI_COMMAND'];
  if (command === undefined) throw new DaemonServerError('MissingCniEnv', 'CNI request', 'CNI_COMMAND is missing from the request environment');
  const containerID = env['CNI_CONTAINERID'] ?? '';
  const subject = `CNI ${command} request for container '${containerID}'`;
  if (!isCniCommand(command)) throw new DaemonServerError('UnsupportedCniCommand', subject, `unknown CNI_COMMAND '${command}'`);
  const perAttachment = command === 'ADD' || command === 'DEL' || command === 'CHECK';
  if (perAttachment) {
    const missing = ATTACHMENT_ENV.filter((key) => env[key] === undefined);
    if (missing.length > 0) throw new DaemonServerError('MissingCniEnv', subject, `${missing.join(', ')} missing from the request environment`);
  }
  const cniArgs = env['CNI_ARGS'] ?? '';
  return {
    command,
    containerID,
    netns: env['CNI_NETNS'] ?? '',
    ifName: env['CNI_IFNAME'] ?? DEFAULT_IFNAME,
    args: perAttachment || cniArgs !== '' ? parseCniArgs(cniArgs, subject) : [],
    path: env['CNI_PATH'] ?? '',
    config: shim.config,
    env,
  };
}
