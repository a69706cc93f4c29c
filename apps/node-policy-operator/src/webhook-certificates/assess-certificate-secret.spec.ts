import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { assessCertificateSecret } from './assess-certificate-secret.ts';
import { time, unsignedInteger } from './der.ts';
import { issueWebhookCertificates } from './issue-certificates.ts';

const NAMES = ['hook', 'hook.ns', 'hook.ns.svc'];
const NOW = new Date('2030-01-01T00:00:00Z');
const DAY_MS = 24 * 60 * 60 * 1000;

function secretData(issued: { caPem: string; certPem: string; keyPem: string }): Record<string, string> {
  const base64 = (text: string): string => Buffer.from(text).toString('base64');
  return { 'ca.crt': base64(issued.caPem), 'tls.crt': base64(issued.certPem), 'tls.key': base64(issued.keyPem) };
}

describe('issueWebhookCertificates', () => {
  const issued = issueWebhookCertificates({ dnsNames: NAMES, validityDays: 90, now: NOW });
  const ca = new X509Certificate(issued.caPem);
  const serving = new X509Certificate(issued.certPem);

  it('makes a CA and a serving certificate it signed, for exactly the Service’s names', () => {
    expect({ ca: ca.ca, servingCa: serving.ca, issued: serving.checkIssued(ca), verified: serving.verify(ca.publicKey) }).toEqual({
      ca: true,
      servingCa: false,
      issued: true,
      verified: true,
    });
    expect(serving.subjectAltName).toBe('DNS:hook, DNS:hook.ns, DNS:hook.ns.svc');
    expect(serving.subject).toBe('CN=hook.ns.svc');
    expect(serving.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
  });

  it('is valid from an hour before now for the days asked', () => {
    expect(serving.validFromDate).toEqual(new Date('2029-12-31T23:00:00Z'));
    expect(serving.validToDate).toEqual(new Date(NOW.getTime() + 90 * DAY_MS));
    expect(ca.validToDate).toEqual(serving.validToDate);
  });

  it('gives every certificate a new serial', () => {
    const again = new X509Certificate(issueWebhookCertificates({ dnsNames: NAMES, validityDays: 90, now: NOW }).certPem);
    expect(again.serialNumber).not.toBe(serving.serialNumber);
  });
});

describe('assessCertificateSecret', () => {
  const issued = issueWebhookCertificates({ dnsNames: NAMES, validityDays: 90, now: NOW });
  const other = issueWebhookCertificates({ dnsNames: NAMES, validityDays: 90, now: NOW });

  it('keeps a fresh Secret for the Service’s names', () => {
    expect(assessCertificateSecret(secretData(issued), NAMES, NOW)).toEqual({ keep: true });
  });

  it.each([
    ['a key missing', { ...secretData(issued), 'tls.key': '' }, NOW, 'the Secret lacks ca.crt, tls.crt, tls.key'],
    ['no Secret data at all', undefined, NOW, 'the Secret lacks ca.crt, tls.crt, tls.key'],
    ['another certificate’s key', { ...secretData(issued), 'tls.key': secretData(other)['tls.key'] ?? '' }, NOW, 'tls.key is not the key of tls.crt'],
    ['another CA', { ...secretData(issued), 'ca.crt': secretData(other)['ca.crt'] ?? '' }, NOW, 'tls.crt is not signed by the first certificate of ca.crt'],
    [
      'a certificate that is not PEM',
      { ...secretData(issued), 'tls.crt': Buffer.from('nonsense').toString('base64') },
      NOW,
      'the Secret’s certificate or key cannot be parsed',
    ],
    [
      'a third of the lifetime left',
      secretData(issued),
      new Date(NOW.getTime() + 60 * DAY_MS),
      'a third or less of the lifetime of the certificate or its CA is left',
    ],
    [
      'a clock before the certificate',
      secretData(issued),
      new Date(NOW.getTime() - 2 * DAY_MS),
      'a third or less of the lifetime of the certificate or its CA is left',
    ],
  ])('renews %s', (_title, data, now, reason) => {
    const verdict = assessCertificateSecret(data, NAMES, now);
    expect(verdict.keep).toBe(false);
    expect(verdict.keep ? '' : verdict.reason).toContain(reason.replace('’', "'"));
  });

  it('keeps it until a third of its lifetime is left', () => {
    expect(assessCertificateSecret(secretData(issued), NAMES, new Date(NOW.getTime() + 59 * DAY_MS))).toEqual({ keep: true });
  });

  it('renews a certificate naming other names, and names both lists', () => {
    expect(assessCertificateSecret(secretData(issued), ['hook', 'hook.other', 'hook.other.svc'], NOW)).toEqual({
      keep: false,
      reason: 'the certificate names hook, hook.ns, hook.ns.svc, the Service is hook, hook.other, hook.other.svc',
    });
  });
});

describe('DER', () => {
  it('writes UTCTime through 2049 and GeneralizedTime from 2050 (RFC 5280 §4.1.2.5)', () => {
    expect(time(new Date('2049-12-31T23:59:59Z')).toString('latin1')).toBe('\x17\x0d491231235959Z');
    expect(time(new Date('2050-01-01T00:00:00Z')).toString('latin1')).toBe('\x18\x0f20500101000000Z');
  });

  it('keeps an INTEGER positive and minimal', () => {
    expect(unsignedInteger(Buffer.from([0x80])).toString('hex')).toBe('02020080');
    expect(unsignedInteger(Buffer.from([0, 0, 0x7f])).toString('hex')).toBe('02017f');
  });
});
