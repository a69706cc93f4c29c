import { createHash } from 'node:crypto';
import { isDns1123Label, isDns1123Subdomain, isHex64, isInterfaceName, isPciAddress, isShadowName, isUUID } from '@sriov-dra/contract';
import { z } from 'zod';

/**
 * What the driver persists per prepared claim (§6.3). A record is everything needed after a restart to
 * answer a repeated NodePrepareResources without touching hardware, to undo the preparation on
 * NodeUnprepareResources, and to finish a managed binding's lifecycle.
 */

const uid = z.string().refine(isUUID, 'must be a lowercase UUID');
const namespace = z.string().refine(isDns1123Label, 'must be a namespace name');
const objectName = z.string().refine(isDns1123Subdomain, 'must be an object name');
const pciAddress = z.string().refine(isPciAddress, 'must be a lowercase PCI BDF with domain, e.g. 0000:03:00.1');
const hex64 = z.string().refine(isHex64, 'must be 64 lowercase hexadecimal characters');
const nonEmpty = z.string().min(1, 'must not be empty');
/** A kernel driver name as it appears under /sys/bus/pci/drivers, or null for "no driver bound". */
const kernelDriver = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'must be a kernel driver name')
  .nullable();

export const MANAGED_BINDING_VERSION = 1;

export const MANAGED_BINDING_PHASES = ['Pending', 'Ready', 'Deleting', 'ReleaseComplete'] as const;
export type ManagedBindingPhase = (typeof MANAGED_BINDING_PHASES)[number];

/** The managed binding of one prepared device: the shadow NAD it owns and how it was rendered (§6.3, §8). */
export const managedBindingSchema = z
  .strictObject({
    bindingVersion: z.literal(MANAGED_BINDING_VERSION),
    phase: z.enum(MANAGED_BINDING_PHASES),
    attachmentID: hex64,
    podUID: uid,
    podNamespace: namespace,
    podName: objectName,
    claimUID: uid,
    claimNamespace: namespace,
    claimName: objectName,
    nodeName: objectName,
    nodeUID: uid,
    driver: nonEmpty,
    pool: nonEmpty,
    device: nonEmpty,
    requestNames: z.array(nonEmpty).min(1),
    pciAddress,
    interface: z.string().refine(isInterfaceName, 'must be a Linux interface name'),
    source: z.strictObject({ namespace, name: objectName, uid, resourceVersion: nonEmpty }),
    // The shadow's UID stays empty until the driver has observed the created object (a lost Create
    // response leaves it empty; repair adopts the object by identity and content and fills it in).
    shadow: z.strictObject({
      namespace,
      name: z.string().refine(isShadowName, 'must be a generated shadow name'),
      uid: z.union([z.literal(''), uid]),
    }),
    renderedConfig: nonEmpty,
    configSHA256: hex64,
  })
  .refine((binding) => sha256Hex(binding.renderedConfig) === binding.configSHA256, {
    error: 'configSHA256 is not the SHA-256 of renderedConfig',
    path: ['configSHA256'],
  });

export type ManagedBinding = z.infer<typeof managedBindingSchema>;

export const preparedDeviceSchema = z.strictObject({
  pool: nonEmpty,
  device: nonEmpty,
  requestNames: z.array(nonEmpty).min(1),
  pciAddress,
  /** Bound before prepare; unprepare restores it when prepare changed the binding. */
  originalDriver: kernelDriver,
  /** Bound after prepare. Equal to originalDriver when the effective VfConfig kept the binding. */
  preparedDriver: kernelDriver,
  cdiDeviceIDs: z.array(nonEmpty),
  managedBinding: managedBindingSchema.optional(),
});

export type PreparedDevice = z.infer<typeof preparedDeviceSchema>;

export const podIdentitySchema = z.strictObject({ uid, namespace, name: objectName });

export type PodIdentity = z.infer<typeof podIdentitySchema>;

export const claimRecordSchema = z
  .strictObject({
    claimUID: uid,
    claimNamespace: namespace,
    claimName: objectName,
    pod: podIdentitySchema,
    devices: z.array(preparedDeviceSchema),
  })
  .superRefine((record, context) => {
    // A managed binding repeats identity the record already holds; a disagreement means the record was
    // assembled from two different preparations and none of it can be trusted for cleanup.
    record.devices.forEach((device, index) => {
      const binding = device.managedBinding;
      if (binding === undefined) return;
      const expected: Record<string, string> = {
        claimUID: record.claimUID,
        claimNamespace: record.claimNamespace,
        claimName: record.claimName,
        podUID: record.pod.uid,
        podNamespace: record.pod.namespace,
        podName: record.pod.name,
        pool: device.pool,
        device: device.device,
        pciAddress: device.pciAddress,
      };
      for (const [field, value] of Object.entries(expected)) {
        if (binding[field as keyof ManagedBinding] !== value) {
          context.addIssue({ code: 'custom', path: ['devices', index, 'managedBinding', field], message: `must equal the record's ${value}` });
        }
      }
    });
  });

export type ClaimRecord = z.infer<typeof claimRecordSchema>;

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
