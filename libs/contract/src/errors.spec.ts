import { describe, expect, it } from '@jest/globals';
import { ERROR_CODES, SriovDraError, describeErrorCode, isErrorCode, isSriovDraError } from './errors.ts';

describe('SriovDraError', () => {
  it('says what failed, on which object, and what to do', () => {
    const error = new SriovDraError('MissingNetworkTemplate', 'device 0000-03-00-1 has no template', {
      object: { kind: 'ResourceClaim', namespace: 'ai-workloads', name: 'pairs-x' },
    });
    expect(error.message).toBe(
      `MissingNetworkTemplate: ResourceClaim ai-workloads/pairs-x: device 0000-03-00-1 has no template \u2014 ${describeErrorCode('MissingNetworkTemplate').remedy}`,
    );
    expect(isSriovDraError(error, 'MissingNetworkTemplate')).toBe(true);
    expect(isSriovDraError(error, 'ShadowConflict')).toBe(false);
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ code: 'MissingNetworkTemplate', object: { name: 'pairs-x' } });
  });

  it('covers every rejection the specification names', () => {
    for (const code of [
      'MissingNetworkTemplate',
      'ManualSelectionConflictsWithManagedTemplate',
      'ClaimReleaseInProgress',
      'ShadowDeletionPending',
      'UnsupportedManagedClaimKind',
      'AnnotationTooLarge',
      'ConflictingDRAMapping',
      'UnsupportedManagedSelector',
      'InvalidDRAAttribute',
    ]) {
      expect(isErrorCode(code)).toBe(true);
    }
  });

  it('has a remedy for every code, and codes are unique identifiers', () => {
    for (const code of ERROR_CODES) {
      expect(code).toMatch(/^[A-Z][A-Za-z]+$/);
      expect(describeErrorCode(code).remedy.length).toBeGreaterThan(10);
    }
    expect(isErrorCode('toString')).toBe(false);
  });
});
