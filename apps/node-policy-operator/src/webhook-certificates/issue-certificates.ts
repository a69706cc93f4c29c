import { type KeyObject, createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { bitString, booleanTrue, explicit, namedBits, objectIdentifier, octetString, sequence, set, tlv, time, unsignedInteger, utf8String } from './der.ts';

/** A CA and the serving certificate it signed, PEM; the CA's private key is never kept. */
export interface WebhookCertificates {
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
}

export interface CertificateRequest {
  /** The Service's names; the last one (<service>.<namespace>.svc, what the API server dials) is also the subject. */
  readonly dnsNames: readonly string[];
  readonly validityDays: number;
  readonly now: Date;
}

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
} as const;

const KEY_USAGE = { digitalSignature: 0, keyCertSign: 5, cRLSign: 6 } as const;
const CA_NAME = 'sriov-dra node-policy-operator webhook CA';
/** Backdated so that an API server whose clock is a little behind accepts a certificate made this second. */
const CLOCK_SKEW_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

const signatureAlgorithm = (): Buffer => sequence(objectIdentifier(OID.ecdsaWithSha256));
const name = (commonName: string): Buffer => sequence(set(sequence(objectIdentifier(OID.commonName), utf8String(commonName))));
const extension = (oid: string, critical: boolean, value: Buffer): Buffer =>
  sequence(objectIdentifier(oid), ...(critical ? [booleanTrue()] : []), octetString(value));

/** RFC 5280 §4.2.1.2 method 1: SHA-1 of the subjectPublicKey bits. */
function keyIdentifier(publicKey: KeyObject): Buffer {
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  // For a P-256 key the BIT STRING is the last 66 bytes: tag, length, unused-bits byte, 65-byte point.
  return createHash('sha1')
    .update(spki.subarray(spki.length - 65))
    .digest();
}

function certificate(fields: {
  readonly issuer: string;
  readonly subject: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly publicKey: KeyObject;
  readonly signingKey: KeyObject;
  readonly extensions: readonly Buffer[];
}): string {
  const serial = randomBytes(16);
  // Positive and of full length: RFC 5280 allows up to 20 octets.
  serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x40;
  const tbs = sequence(
    explicit(0, unsignedInteger(Buffer.from([2]))),
    unsignedInteger(serial),
    signatureAlgorithm(),
    name(fields.issuer),
    sequence(time(fields.notBefore), time(fields.notAfter)),
    name(fields.subject),
    fields.publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(...fields.extensions)),
  );
  const signature = sign('sha256', tbs, { key: fields.signingKey, dsaEncoding: 'der' });
  const der = sequence(tbs, signatureAlgorithm(), bitString(signature));
  const body = der.toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN CERTIFICATE-----\n${body}${body.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE-----\n`;
}

/**
 * A fresh ECDSA P-256 CA and a serving certificate for the Service's DNS names, both valid for
 * `validityDays` from `now` (backdated an hour). Effect-free apart from the randomness of keys and serials.
 */
export function issueWebhookCertificates(request: CertificateRequest): WebhookCertificates {
  const subject = request.dnsNames.at(-1);
  if (subject === undefined) throw new RangeError('a serving certificate needs at least one DNS name');
  const notBefore = new Date(request.now.getTime() - CLOCK_SKEW_MS);
  const notAfter = new Date(request.now.getTime() + request.validityDays * DAY_MS);
  const ca = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const serving = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const caKeyId = keyIdentifier(ca.publicKey);
  const caPem = certificate({
    issuer: CA_NAME,
    subject: CA_NAME,
    notBefore,
    notAfter,
    publicKey: ca.publicKey,
    signingKey: ca.privateKey,
    extensions: [
      extension(OID.basicConstraints, true, sequence(booleanTrue(), unsignedInteger(Buffer.from([0])))),
      extension(OID.keyUsage, true, namedBits([KEY_USAGE.digitalSignature, KEY_USAGE.keyCertSign, KEY_USAGE.cRLSign])),
      extension(OID.subjectKeyIdentifier, false, octetString(caKeyId)),
    ],
  });
  const certPem = certificate({
    issuer: CA_NAME,
    subject,
    notBefore,
    notAfter,
    publicKey: serving.publicKey,
    signingKey: ca.privateKey,
    extensions: [
      extension(OID.basicConstraints, true, sequence()),
      extension(OID.keyUsage, true, namedBits([KEY_USAGE.digitalSignature])),
      extension(OID.extKeyUsage, false, sequence(objectIdentifier(OID.serverAuth))),
      extension(OID.subjectAltName, false, sequence(...request.dnsNames.map((dnsName) => tlv(0x82, Buffer.from(dnsName, 'ascii'))))),
      extension(OID.authorityKeyIdentifier, false, sequence(tlv(0x80, caKeyId))),
    ],
  });
  return { caPem, certPem, keyPem: serving.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}
