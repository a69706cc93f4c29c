import { X509Certificate, createPrivateKey } from 'node:crypto';

/** The keys of the serving certificate Secret (a kubernetes.io/tls Secret plus the CA that signed it). */
export const SECRET_KEYS = { ca: 'ca.crt', cert: 'tls.crt', key: 'tls.key' } as const;

/** Renewal is due once this share of the serving certificate's (or its CA's) lifetime is left. */
export const RENEW_WHEN_LEFT = 1 / 3;

export type SecretVerdict = { readonly keep: true } | { readonly keep: false; readonly reason: string };

/** The PEM certificates of a bundle, in order. */
export function pemCertificates(bundle: string): string[] {
  return bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];
}

function decoded(data: Readonly<Record<string, string>>, key: string): string | undefined {
  const value = data[key];
  return value === undefined || value === '' ? undefined : Buffer.from(value, 'base64').toString('utf8');
}

function dueForRenewal(certificate: X509Certificate, now: Date): boolean {
  const from = certificate.validFromDate.getTime();
  const to = certificate.validToDate.getTime();
  return now.getTime() < from || now.getTime() >= to - (to - from) * RENEW_WHEN_LEFT;
}

/**
 * Whether the Secret's certificate can keep serving the webhook: kept when the CA, certificate and key
 * belong together, the certificate names exactly `dnsNames`, and more than a third of both lifetimes is
 * left. Anything else is renewed, with the reason logged. Never throws on bad content.
 */
export function assessCertificateSecret(data: Readonly<Record<string, string>> | undefined, dnsNames: readonly string[], now: Date): SecretVerdict {
  const caBundle = decoded(data ?? {}, SECRET_KEYS.ca);
  const certPem = decoded(data ?? {}, SECRET_KEYS.cert);
  const keyPem = decoded(data ?? {}, SECRET_KEYS.key);
  if (caBundle === undefined || certPem === undefined || keyPem === undefined) {
    return { keep: false, reason: `the Secret lacks ${Object.values(SECRET_KEYS).join(', ')}` };
  }
  let ca: X509Certificate;
  let certificate: X509Certificate;
  try {
    ca = new X509Certificate(pemCertificates(caBundle)[0] ?? '');
    certificate = new X509Certificate(certPem);
    if (!certificate.checkPrivateKey(createPrivateKey(keyPem))) return { keep: false, reason: `${SECRET_KEYS.key} is not the key of ${SECRET_KEYS.cert}` };
  } catch (error) {
    return { keep: false, reason: `the Secret's certificate or key cannot be parsed: ${(error as Error).message}` };
  }
  if (!certificate.checkIssued(ca) || !certificate.verify(ca.publicKey)) {
    return { keep: false, reason: `${SECRET_KEYS.cert} is not signed by the first certificate of ${SECRET_KEYS.ca}` };
  }
  const named = (certificate.subjectAltName ?? '')
    .split(', ')
    .filter((entry) => entry.startsWith('DNS:'))
    .map((entry) => entry.slice('DNS:'.length))
    .sort();
  const wanted = [...dnsNames].sort();
  if (named.join(',') !== wanted.join(',')) {
    return { keep: false, reason: `the certificate names ${named.join(', ') || 'no DNS name'}, the Service is ${wanted.join(', ')}` };
  }
  if (dueForRenewal(certificate, now) || dueForRenewal(ca, now)) {
    return {
      keep: false,
      reason: `a third or less of the lifetime of the certificate or its CA is left (valid until ${certificate.validToDate.toISOString()})`,
    };
  }
  return { keep: true };
}
