import { z } from 'zod';
import type { Condition } from '../status/conditions.ts';

/**
 * The SriovNetworkNodePolicy fields the DRA generator reads (sriovnetwork.openshift.io/v1). Hardware fields
 * keep the CRD's shapes; spec.dra stays raw here because validateNodePolicyDra, the webhook's own check, reads it.
 */
export const nodePolicySchema = z.looseObject({
  metadata: z.looseObject({
    name: z.string(),
    namespace: z.string(),
    uid: z.string(),
    generation: z.int().optional(),
  }),
  spec: z.looseObject({
    resourceName: z.string(),
    nodeSelector: z.record(z.string(), z.string()).nullable().optional(),
    /** 0 is the highest priority; upstream applies lower numbers last so they win, ties by name. */
    priority: z.int().optional(),
    nicSelector: z.looseObject({
      vendor: z.string().optional(),
      deviceID: z.string().optional(),
      rootDevices: z.array(z.string()).nullable().optional(),
      pfNames: z.array(z.string()).nullable().optional(),
      netFilter: z.string().optional(),
    }),
    /** netdevice (default) or vfio-pci. */
    deviceType: z.string().optional(),
    dra: z.unknown().optional(),
  }),
});

export type NodePolicy = z.infer<typeof nodePolicySchema> & { readonly status?: { readonly conditions?: readonly Condition[] } };

/** The bootstrap policy upstream creates and treats specially; it may not carry spec.dra. */
export const DEFAULT_POLICY_NAME = 'default';

/** Upstream's default priority when the field is absent. */
export const DEFAULT_POLICY_PRIORITY = 99;
