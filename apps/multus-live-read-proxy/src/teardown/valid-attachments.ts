import { z } from 'zod';

// CNI 1.1 GC input: the attachments the runtime still has, by CNI_CONTAINERID and CNI_IFNAME of their ADD.
const gcConfigSchema = z.object({
  'cni.dev/valid-attachments': z.array(z.object({ containerID: z.string(), ifname: z.string() })).optional(),
});

/** The attachment key the runtime's list and the daemon's records share. */
export function attachmentKey(containerID: string, ifName: string): string {
  return `${containerID}\u0000${ifName}`;
}

/**
 * The runtime's valid attachments from a GC request's configuration, or undefined when it names none (or
 * not as CNI 1.1 says): then the GC says nothing about which attachments are gone.
 */
export function validAttachmentsOf(config: Buffer): ReadonlySet<string> | undefined {
  let document: unknown;
  try {
    document = JSON.parse(config.toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = gcConfigSchema.safeParse(document);
  const list = parsed.success ? parsed.data['cni.dev/valid-attachments'] : undefined;
  return list === undefined ? undefined : new Set(list.map(({ containerID, ifname }) => attachmentKey(containerID, ifname)));
}
