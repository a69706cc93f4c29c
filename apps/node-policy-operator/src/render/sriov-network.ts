import { isDns1123Label, isDns1123Subdomain } from '@sriov-dra/contract';
import { z } from 'zod';

/*
 * The SriovNetwork fields the source NAD is rendered from, with the CRD's own limits
 * (sriovnetwork.openshift.io/v1). They are checked again here because an object stored before the
 * CRD gained a limit, or written while validation was off, must not render into a NAD (§12.2.2).
 * The Go type treats an empty string as unset (omitempty), so "" is accepted wherever a field is
 * optional and means the same as leaving it out.
 */

const unset = z.literal('');
const optionalText = z.string().optional();
const onOff = z.enum(['on', 'off']).or(unset).optional();
/** Go's *int: absent and null are both nil. */
const optionalRate = z.int().min(0).nullable().optional();

const sriovNetworkSpecSchema = z.looseObject({
  networkNamespace: z.string().refine(isDns1123Label, 'must be a namespace name').or(unset).optional(),
  resourceName: z.string().min(1, 'must be a nonempty resource name'),
  /** Raw JSON, validated where it is rendered so the error can name the field and the JSON fault. */
  capabilities: optionalText,
  ipam: optionalText,
  metaPlugins: optionalText,
  vlan: z.int().min(0).max(4094).optional(),
  vlanQoS: z.int().min(0).max(7).optional(),
  vlanProto: z.enum(['802.1q', '802.1Q', '802.1ad', '802.1AD']).or(unset).optional(),
  spoofChk: onOff,
  trust: onOff,
  linkState: z.enum(['auto', 'enable', 'disable']).or(unset).optional(),
  minTxRate: optionalRate,
  maxTxRate: optionalRate,
  logLevel: z.enum(['panic', 'error', 'warning', 'info', 'debug']).or(unset).optional(),
  logFile: optionalText,
});

export const sriovNetworkSchema = z.looseObject({
  metadata: z.looseObject({
    name: z.string().refine(isDns1123Subdomain, 'must be an object name'),
    namespace: z.string().refine(isDns1123Label, 'must be a namespace name'),
  }),
  spec: sriovNetworkSpecSchema,
});

/** A SriovNetwork as read from the API server (the fields this module reads; others are ignored). */
export type SriovNetwork = z.input<typeof sriovNetworkSchema>;
export type ValidSriovNetwork = z.output<typeof sriovNetworkSchema>;
