import { describe, expect, it } from '@jest/globals';
import { ERROR_CODES, SriovDraError, describeErrorCode, describeObject, isErrorCode, isSriovDraError } from './errors.ts';

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
      'DRABlockOnDefaultPolicy',
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

describe('describeObject', () => {
  it.each([
    [{ kind: 'ResourceClaim', namespace: 'ai-workloads', name: 'pairs-x' }, 'ResourceClaim ai-workloads/pairs-x'],
    [{ kind: 'Node', name: 'worker-a' }, 'Node worker-a'],
    [{ kind: 'Node', namespace: '', name: 'worker-a' }, 'Node worker-a'],
    [{ kind: 'Namespace', namespace: 'ai-workloads', name: '' }, 'Namespace ai-workloads'],
    [{ kind: 'BindingIdentityTuple' }, 'BindingIdentityTuple'],
    [
      { kind: 'Pod', namespace: 'ai-workloads', name: 'trainer-0', field: 'k8s.v1.cni.cncf.io/networks' },
      'Pod ai-workloads/trainer-0 k8s.v1.cni.cncf.io/networks',
    ],
    [{ kind: 'ResourceSlice', field: 'spec.devices' }, 'ResourceSlice spec.devices'],
  ])('names %j as %j, leaving out missing and empty parts', (ref, expected) => {
    expect(describeObject(ref)).toBe(expected);
  });
});

describe('SriovDraError details', () => {
  it('reads code: detail \u2014 remedy without an object, and carries no cause unless given one', () => {
    const error = new SriovDraError('ShadowConflict', 'a shadow is in the way');
    expect(error.message).toBe(`ShadowConflict: a shadow is in the way \u2014 ${describeErrorCode('ShadowConflict').remedy}`);
    expect(error.name).toBe('SriovDraError');
    expect(error.object).toBeUndefined();
    expect('cause' in error).toBe(false);
  });

  it('keeps the cause and a caller-given remedy', () => {
    const cause = new Error('etcd timeout');
    const error = new SriovDraError('ShadowConflict', 'a shadow is in the way', { cause, remedy: 'retry later' });
    expect(error.cause).toBe(cause);
    expect(error.message).toBe('ShadowConflict: a shadow is in the way \u2014 retry later');
    expect(error.toJSON()).toEqual({ code: 'ShadowConflict', detail: 'a shadow is in the way', object: undefined, remedy: 'retry later' });
  });

  it('isSriovDraError without a code accepts any SriovDraError and nothing else', () => {
    expect(isSriovDraError(new SriovDraError('ShadowConflict', 'x'))).toBe(true);
    expect(isSriovDraError(new Error('ShadowConflict: x'))).toBe(false);
    expect(isSriovDraError({ code: 'ShadowConflict' })).toBe(false);
  });

  it.each([[['ShadowConflict']], [{ toString: () => 'ShadowConflict' }], [42], [null], [undefined]])(
    'isErrorCode accepts only the code string itself, not %p',
    (value) => {
      expect(isErrorCode(value)).toBe(false);
    },
  );
});
