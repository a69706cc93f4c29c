import { z } from 'zod';
import { isDns1123Label, isDns1123Subdomain, isHex64, isInterfaceName, isPciAddress, isShadowName, isUUID } from './formats.ts';

/** zod views of the contract formats, with messages that name the expected form. */
export const uuidSchema = z.string().refine(isUUID, 'must be a lowercase UUID');
export const hex64Schema = z.string().refine(isHex64, 'must be 64 lowercase hexadecimal characters');
export const shadowNameSchema = z.string().refine(isShadowName, 'must be dra-sriov- followed by 32 lowercase hexadecimal characters');
export const pciAddressSchema = z.string().refine(isPciAddress, 'must be a lowercase PCI BDF with domain, e.g. 0000:03:00.1');
export const namespaceSchema = z.string().refine(isDns1123Label, 'must be a DNS-1123 label (a namespace name)');
export const objectNameSchema = z.string().refine(isDns1123Subdomain, 'must be a DNS-1123 subdomain (an object name)');
export const interfaceNameSchema = z.string().refine(isInterfaceName, 'must be a Linux interface name of 1-15 bytes');
/** Kubernetes treats resourceVersion as opaque; only its presence is part of the contract. */
export const resourceVersionSchema = z.string().min(1, 'must be a nonempty resourceVersion');
