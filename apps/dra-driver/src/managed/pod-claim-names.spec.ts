import { describe, expect, it } from '@jest/globals';
import { type PodShape, podOf, rejectionOf } from '../../test/consumer-fixtures.ts';
import { type PodClaimName, podClaimNames } from './pod-claim-names.ts';

describe('podClaimNames', () => {
  it.each<[string, PodShape, readonly PodClaimName[]]>([
    [
      'a direct claim with no status entries at all',
      { resourceClaims: [{ name: 'net', resourceClaimName: 'nics' }] },
      [{ kind: 'claim', podClaimName: 'net', claimName: 'nics', mustCheckOwner: false }],
    ],
    [
      'a direct claim with an empty status list',
      { resourceClaims: [{ name: 'net', resourceClaimName: 'nics' }], resourceClaimStatuses: [] },
      [{ kind: 'claim', podClaimName: 'net', claimName: 'nics', mustCheckOwner: false }],
    ],
    [
      'a template claim through its status entry, to be owner-checked',
      {
        resourceClaims: [{ name: 'net', resourceClaimTemplateName: 'two-vfs' }],
        resourceClaimStatuses: [{ name: 'net', resourceClaimName: 'trainer-0-net-x7k2p' }],
      },
      [{ kind: 'claim', podClaimName: 'net', claimName: 'trainer-0-net-x7k2p', mustCheckOwner: true }],
    ],
    [
      'a template claim intentionally not created (no name in its status entry)',
      { resourceClaims: [{ name: 'net', resourceClaimTemplateName: 'two-vfs' }], resourceClaimStatuses: [{ name: 'net' }] },
      [{ kind: 'absent', podClaimName: 'net' }],
    ],
    [
      'a template claim intentionally not created (a null name)',
      { resourceClaims: [{ name: 'net', resourceClaimTemplateName: 'two-vfs' }], resourceClaimStatuses: [{ name: 'net', resourceClaimName: null }] },
      [{ kind: 'absent', podClaimName: 'net' }],
    ],
    [
      'the direct name when an entry sets both sources, as resourceclaim.Name does',
      { resourceClaims: [{ name: 'net', resourceClaimName: 'nics', resourceClaimTemplateName: 'two-vfs' }] },
      [{ kind: 'claim', podClaimName: 'net', claimName: 'nics', mustCheckOwner: false }],
    ],
    [
      'aliases and mixed sources in Pod order',
      {
        resourceClaims: [
          { name: 'gpu', resourceClaimTemplateName: 'one-gpu' },
          { name: 'net', resourceClaimName: 'nics' },
          { name: 'net-again', resourceClaimName: 'nics' },
        ],
        resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'trainer-0-gpu-abcde' }],
      },
      [
        { kind: 'claim', podClaimName: 'gpu', claimName: 'trainer-0-gpu-abcde', mustCheckOwner: true },
        { kind: 'claim', podClaimName: 'net', claimName: 'nics', mustCheckOwner: false },
        { kind: 'claim', podClaimName: 'net-again', claimName: 'nics', mustCheckOwner: false },
      ],
    ],
    ['no claims', { resourceClaims: [] }, []],
  ])('resolves %s', (_, shape, expected) => {
    expect(podClaimNames(podOf(shape))).toEqual({ ok: true, value: expected });
  });

  it.each<[string, PodShape, RegExp, string]>([
    [
      'a template claim not created yet',
      { resourceClaims: [{ name: 'net', resourceClaimTemplateName: 'two-vfs' }], resourceClaimStatuses: [] },
      /entry "net" \(template two-vfs\) is not created yet/,
      'status.resourceClaimStatuses',
    ],
    [
      'a template claim whose status entry belongs to another entry',
      { resourceClaims: [{ name: 'net', resourceClaimTemplateName: 'two-vfs' }], resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'x' }] },
      /entry "net" \(template two-vfs\) is not created yet/,
      'status.resourceClaimStatuses',
    ],
    [
      'an entry with neither source',
      { resourceClaims: [{ name: 'net' }] },
      /entry "net" sets neither resourceClaimName nor resourceClaimTemplateName/,
      'spec.resourceClaims',
    ],
  ])('refuses %s', (_, shape, detail, field) => {
    const error = rejectionOf(podClaimNames(podOf(shape)));
    expect(error.code).toBe('InvalidApiObject');
    expect(error.detail).toMatch(detail);
    expect(error.object).toMatchObject({ kind: 'Pod', name: 'trainer-0', field });
    expect(error.remedy).toMatch(/\S/);
  });
});
