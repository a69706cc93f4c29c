import { z } from 'zod';
import type { CniRequest } from '../server/cni-request.ts';

/**
 * What the runtime handed the shim for one attachment, kept so that a DEL can run again later exactly as
 * the runtime's own would have: every delegate's RuntimeConf is rebuilt from these and the delegate cache
 * (CNI_NETNS, CNI_IFNAME, CNI_ARGS, and the stdin configuration whose runtimeConfig carries the runtime's
 * capabilities), and CNI_PATH and the configuration also give the same plugin directories and settings.
 */
export interface DelInputs {
  readonly netns: string;
  readonly ifName: string;
  /** CNI_ARGS pairs in the order sent. */
  readonly cniArgs: readonly (readonly [string, string])[];
  /** CNI_PATH. */
  readonly cniPath: string;
  /** The shim's stdin configuration, exactly as sent (UTF-8 JSON). */
  readonly config: string;
}

export const delInputsSchema = z.object({
  netns: z.string(),
  ifName: z.string().min(1),
  cniArgs: z.array(z.tuple([z.string(), z.string()])),
  cniPath: z.string(),
  config: z.string(),
});

export function delInputsOf(request: CniRequest): DelInputs {
  return { netns: request.netns, ifName: request.ifName, cniArgs: request.args, cniPath: request.path, config: request.config.toString('utf8') };
}

/** The DEL request the runtime would send for this container again. */
export function delRequestOf(containerID: string, inputs: DelInputs): CniRequest {
  return {
    command: 'DEL',
    containerID,
    netns: inputs.netns,
    ifName: inputs.ifName,
    args: inputs.cniArgs,
    path: inputs.cniPath,
    config: Buffer.from(inputs.config, 'utf8'),
    env: {},
  };
}
