import { z } from 'zod';
import { objectRecordSchema } from './object-record.ts';
import {
  isDns1123Label,
  isDns1123Subdomain,
  isHex64,
  isInterfaceName,
  isLabelKey,
  isLabelValue,
  isPciAddress,
  isShadowName,
  isUUID,
  utf8Length,
} from './formats.ts';

/** zod views of the contract formats, with messages that name the expected form. */
export const uuidSchema = z.string().refine(isUUID, 'must be a lowercase UUID');
export const hex64Schema = z.string().refine(isHex64, 'must be 64 lowercase hexadecimal characters');
export const shadowNameSchema = z.string().refine(isShadowName, 'must be dra-sriov- followed by 32 lowercase hexadecimal characters');
export const pciAddressSchema = z.string().refine(isPciAddress, 'must be a lowercase PCI BDF with domain, e.g. 0000:03:00.1');
export const namespaceSchema = z.string().refine(isDns1123Label, 'must be a DNS-1123 label (a namespace name)');
export const objectNameSchema = z.string().refine(isDns1123Subdomain, 'must be a DNS-1123 subdomain (an object name)');
export const interfaceNameSchema = z.string().refine(isInterfaceName, 'must be a Linux interface name of 1-15 bytes');
export const labelKeySchema = z.string().refine(isLabelKey, 'must be a label key: [DNS subdomain/]name of at most 63 characters');
export const labelValueSchema = z.string().refine(isLabelValue, 'must be a label value of at most 63 characters');
/** A label map, read entry by entry (see objectRecordSchema): every key and value follows the label rules. */
export const labelsSchema = objectRecordSchema('must be a map of labels')
  .superRefine((labels, context) => {
    for (const [key, value] of Object.entries(labels)) {
      if (!isLabelKey(key)) context.addIssue({ code: 'custom', path: [key], message: 'must be a label key: [DNS subdomain/]name of at most 63 characters' });
      else if (typeof value !== 'string' || !isLabelValue(value))
        context.addIssue({ code: 'custom', path: [key], message: 'must be a label value of at most 63 characters' });
    }
  })
  .transform((labels) => labels as Readonly<Record<string, string>>);

/** Longest resourceVersion carried in an annotation; etcd's are decimal uint64s (at most 20 bytes). */
export const RESOURCE_VERSION_MAX_BYTES = 64;
/** Kubernetes treats resourceVersion as opaque: only presence and a bounded length are part of the contract. */
export const resourceVersionSchema = z
  .string()
  .min(1, 'must be a nonempty resourceVersion')
  .refine((value) => utf8Length(value) <= RESOURCE_VERSION_MAX_BYTES, `must be at most ${RESOURCE_VERSION_MAX_BYTES} bytes`);
