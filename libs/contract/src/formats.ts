/**
 * Exact string formats of the contract. Each predicate accepts only the canonical spelling: values are
 * compared byte for byte across processes and languages, so a second spelling of the same thing
 * (uppercase hex, a "pci:" prefix, a missing PCI domain) would silently break equality.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEX64 = /^[0-9a-f]{64}$/;
const SHADOW_NAME = /^dra-sriov-[0-9a-f]{32}$/;
const PCI_BDF = /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const C_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
// Semantic Versioning 2.0.0, the grammar Kubernetes uses for DRA version attributes.
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** A Kubernetes object UID as the API server generates it: a lowercase RFC 4122 UUID. */
export function isUUID(value: string): boolean {
  return UUID.test(value);
}

/** A full lowercase SHA-256 digest in hex. */
export function isHex64(value: string): boolean {
  return HEX64.test(value);
}

export function isShadowName(value: string): boolean {
  return SHADOW_NAME.test(value);
}

/** A canonical PCI BDF: lowercase, with its domain, without a "pci:" prefix (e.g. 0000:03:00.1). */
export function isPciAddress(value: string): boolean {
  return PCI_BDF.test(value);
}

/** RFC 1123 label, e.g. a namespace name (at most 63 characters). */
export function isDns1123Label(value: string): boolean {
  return value.length <= 63 && DNS1123_LABEL.test(value);
}

/** RFC 1123 subdomain, e.g. most object names (at most 253 characters). */
export function isDns1123Subdomain(value: string): boolean {
  return value.length <= 253 && DNS1123_SUBDOMAIN.test(value);
}

/** A label value: empty, or at most 63 alphanumerics with "-", "_" or "." inside. */
export function isLabelValue(value: string): boolean {
  return value === '' || (value.length <= 63 && LABEL_NAME.test(value));
}

/** A label key: `[<DNS subdomain>/]<name>`, the name as a nonempty label value. */
export function isLabelKey(value: string): boolean {
  const slash = value.indexOf('/');
  // Without a slash indexOf gives -1, so the name is the whole value.
  const name = value.slice(slash + 1);
  if (slash >= 0 && !isDns1123Subdomain(value.slice(0, slash))) return false;
  return name !== '' && isLabelValue(name);
}

export const INTERFACE_NAME_MAX_BYTES = 15;

/** Lengths the API server and the kernel enforce are Go/C byte lengths: UTF-8 bytes, not UTF-16 units. */
export function utf8Length(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

/**
 * Bytes the kernel refuses in a name: NUL (it would end the C string early, so the kernel would see a
 * shorter name than the one recorded), "/", ":" and its isspace() set, which includes byte 0xa0 (the
 * second byte of "à" in UTF-8, for instance).
 */
const KERNEL_FORBIDDEN_BYTES = new Set([0x00, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x2f, 0x3a, 0xa0]);
/** The common case decided without encoding: 1–15 printable ASCII characters other than space, "/" and ":". */
const ASCII_INTERFACE_NAME = /^[!-.0-9;-~]{1,15}$/;

/**
 * A Linux network interface name as the kernel accepts it (dev_valid_name): 1–15 bytes, not "." or "..",
 * no forbidden byte. Unicode whitespace is refused as well: tools around CNI trim or split on it.
 */
export function isInterfaceName(value: string): boolean {
  if (value === '' || value === '.' || value === '..') return false;
  if (ASCII_INTERFACE_NAME.test(value)) return true;
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.length > INTERFACE_NAME_MAX_BYTES) return false;
  if (bytes.some((byte) => KERNEL_FORBIDDEN_BYTES.has(byte))) return false;
  return !/\s/u.test(value);
}

/** DRA limits (resource.k8s.io/v1) for attribute names and values. */
export const draLimits = {
  domainMaxLength: 63,
  identifierMaxLength: 32,
  stringValueMaxLength: 64,
  versionValueMaxLength: 64,
  attributesAndCapacitiesPerDevice: 32,
} as const;

/** C identifier of at most 32 characters: the name part of a DRA attribute. */
export function isDraIdentifier(value: string): boolean {
  return value.length <= draLimits.identifierMaxLength && C_IDENTIFIER.test(value);
}

/** `<DNS subdomain of at most 63>/<C identifier of at most 32>`. */
export function isFullyQualifiedDraName(value: string): boolean {
  const slash = value.indexOf('/');
  // A second "/" would land in the identifier part, which a C identifier refuses.
  if (slash <= 0) return false;
  const domain = value.slice(0, slash);
  return domain.length <= draLimits.domainMaxLength && isDns1123Subdomain(domain) && isDraIdentifier(value.slice(slash + 1));
}

/** A DRA attribute name: fully qualified, or a bare identifier that takes the driver's domain. */
export function isDraQualifiedName(value: string): boolean {
  return value.includes('/') ? isFullyQualifiedDraName(value) : isDraIdentifier(value);
}

export function isSemver(value: string): boolean {
  return utf8Length(value) <= draLimits.versionValueMaxLength && SEMVER.test(value);
}
