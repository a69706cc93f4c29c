import { describe, expect, it } from '@jest/globals';
import { annotationChanges, escapePointerToken, identityPreconditions, pointer } from './json-patch.ts';

describe('JSON Pointer', () => {
  it.each([
    ['plain', 'plain'],
    ['k8s.v1.cni.cncf.io/networks', 'k8s.v1.cni.cncf.io~1networks'],
    ['a~b', 'a~0b'],
    ['~/', '~0~1'],
    ['~1', '~01'],
  ])('escapes %j as %j', (token, escaped) => {
    expect(escapePointerToken(token)).toBe(escaped);
  });

  it('joins tokens', () => {
    expect(pointer('metadata', 'finalizers', 2)).toBe('/metadata/finalizers/2');
  });
});

describe('annotationChanges', () => {
  it('creates the map when there is none, ignoring removals', () => {
    expect(annotationChanges(undefined, { a: '1', b: null })).toEqual([{ op: 'add', path: '/metadata/annotations', value: { a: '1' } }]);
    expect(annotationChanges(undefined, { b: null })).toEqual([]);
  });

  it('adds, replaces and removes single keys and skips unchanged ones', () => {
    expect(annotationChanges({ same: 'x', old: 'y', gone: 'z' }, { same: 'x', old: 'Y', gone: null, 'e.io/new': 'n', absent: null })).toEqual([
      { op: 'replace', path: '/metadata/annotations/old', value: 'Y' },
      { op: 'remove', path: '/metadata/annotations/gone' },
      { op: 'add', path: '/metadata/annotations/e.io~1new', value: 'n' },
    ]);
  });

  it('does not treat inherited properties as existing keys', () => {
    expect(annotationChanges({}, { constructor: 'c' })).toEqual([{ op: 'add', path: '/metadata/annotations/constructor', value: 'c' }]);
  });

  it('pins uid and resourceVersion', () => {
    expect(identityPreconditions({ uid: 'u', resourceVersion: '7' })).toEqual([
      { op: 'test', path: '/metadata/uid', value: 'u' },
      { op: 'test', path: '/metadata/resourceVersion', value: '7' },
    ]);
  });
});
