import { DRIVER_NAME } from './keys.ts';

/**
 * The fully qualified form of a DRA attribute or capacity name. Kubernetes puts a name without a domain
 * into the domain of the driver that publishes it, so `netAttachDefName` and
 * `sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName` are one attribute: every rule about a key
 * (reserved, reference, duplicate, budget) must look at this form.
 */
export function qualifiedAttributeName(name: string): string {
  return name.includes('/') ? name : `${DRIVER_NAME}/${name}`;
}
