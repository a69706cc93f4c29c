import { createHash } from 'node:crypto';
import { type Result, fail, ok } from './errors.ts';
import { isDns1123Label, isDns1123Subdomain, isUUID } from './formats.ts';
import { SHADOW_NAME_PREFIX } from './keys.ts';
import { messageValue } from './message-value.ts';

/** The only identity protocol this build produces and accepts. */
export const IDENTITY_PROTOCOL_VERSION = 1;

/**
 * Everything that makes one attachment unique (§6.2). Deliberately absent: source resourceVersion,
 * timestamps, request names and RPC batch positions — none of them may change an attachment's identity.
 */
export interface BindingIdentityTuple {
  readonly protocolVersion: number;
  readonly nodeUID: string;
  readonly podUID: string;
  readonly claimUID: string;
  readonly driver: string;
  readonly pool: string;
  readonly device: string;
}

export interface BindingIdentity {
  /** Full lowercase hex SHA-256 of the canonical bytes. */
  readonly attachmentID: string;
  /** `dra-sriov-` + the first 32 hex characters of the attachmentID. */
  readonly shadowName: string;
}

/** Field order of the canonical serialization; part of the protocol. */
const FIELDS = ['protocolVersion', 'nodeUID', 'podUID', 'claimUID', 'driver', 'pool', 'device'] as const;

function isPoolName(value: string): boolean {
  // A DRA pool name is one or more DNS subdomains joined by "/", at most 253 characters in all.
  return value.length > 0 && value.length <= 253 && value.split('/').every(isDns1123Subdomain);
}

/**
 * Checks a tuple without computing anything; identity inputs come from API objects and are untrusted, so
 * anything at all (null, a number, a field of the wrong type) yields a typed error rather than a throw.
 */
export function validateIdentityTuple(input: unknown): Result<BindingIdentityTuple> {
  const object = { kind: 'BindingIdentityTuple' };
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return fail('InvalidIdentityTuple', `must be an object of the seven identity fields, got ${messageValue(input)}`, { object });
  }
  const tuple = input as Readonly<Record<keyof BindingIdentityTuple, unknown>>;
  if (tuple.protocolVersion !== IDENTITY_PROTOCOL_VERSION) {
    return fail('UnsupportedIdentityProtocol', `protocolVersion ${messageValue(tuple.protocolVersion)} is not ${IDENTITY_PROTOCOL_VERSION}`, { object });
  }
  for (const field of ['nodeUID', 'podUID', 'claimUID'] as const) {
    if (typeof tuple[field] !== 'string' || !isUUID(tuple[field])) {
      return fail('InvalidIdentityTuple', `${field} ${messageValue(tuple[field])} is not a lowercase UUID`, { object });
    }
  }
  if (typeof tuple.driver !== 'string' || tuple.driver.length > 63 || !isDns1123Subdomain(tuple.driver)) {
    return fail('InvalidIdentityTuple', `driver ${messageValue(tuple.driver)} is not a DNS subdomain of at most 63 characters`, { object });
  }
  if (typeof tuple.pool !== 'string' || !isPoolName(tuple.pool)) {
    return fail('InvalidIdentityTuple', `pool ${messageValue(tuple.pool)} is not a DRA pool name`, { object });
  }
  if (typeof tuple.device !== 'string' || !isDns1123Label(tuple.device)) {
    return fail('InvalidIdentityTuple', `device ${messageValue(tuple.device)} is not a DNS label`, { object });
  }
  // A fresh copy: what is hashed is exactly what was checked, whatever the input object does later.
  const { nodeUID, podUID, claimUID } = tuple as Readonly<Record<'nodeUID' | 'podUID' | 'claimUID', string>>;
  return ok({ protocolVersion: IDENTITY_PROTOCOL_VERSION, nodeUID, podUID, claimUID, driver: tuple.driver, pool: tuple.pool, device: tuple.device });
}

/**
 * The canonical bytes of a tuple: one line per field, in FIELDS order,
 * `<field>:<type>:<byte length>:<value>\n`, where type is `u` (unsigned decimal) or `s` (UTF-8 string) and
 * the length counts the UTF-8 bytes of the value. The length prefix makes the encoding injective even
 * for values containing ":" or newlines. See libs/contract/IDENTITY.md for a worked example.
 */
export function canonicalIdentityBytes(tuple: BindingIdentityTuple): Buffer {
  const lines = FIELDS.map((field) => {
    const value = tuple[field];
    const text = typeof value === 'number' ? value.toString(10) : value;
    const type = typeof value === 'number' ? 'u' : 's';
    return `${field}:${type}:${Buffer.byteLength(text, 'utf8')}:${text}\n`;
  });
  return Buffer.from(lines.join(''), 'utf8');
}

/** Accepts any input: a tuple assembled from API objects is validated before a byte is hashed. */
export function buildBindingIdentity(tuple: unknown): Result<BindingIdentity> {
  const checked = validateIdentityTuple(tuple);
  if (!checked.ok) return checked;
  const attachmentID = createHash('sha256').update(canonicalIdentityBytes(checked.value)).digest('hex');
  return ok({ attachmentID, shadowName: shadowNameFor(attachmentID) });
}

/** The deterministic shadow NAD name of an attachment. */
export function shadowNameFor(attachmentID: string): string {
  return `${SHADOW_NAME_PREFIX}${attachmentID.slice(0, 32)}`;
}
