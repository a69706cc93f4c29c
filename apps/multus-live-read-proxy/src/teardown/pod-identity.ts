import { z } from 'zod';

/** The Pod an attachment belongs to; uid is '' when the runtime named none and none was read. */
export interface PodIdentity {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

export const podIdentitySchema = z.object({ namespace: z.string(), name: z.string(), uid: z.string() });

export function describePod(pod: PodIdentity): string {
  return `${pod.namespace}/${pod.name}`;
}
