import { describe, expect, it } from '@jest/globals';
import type { DeviceAttributeValue } from './dra-attribute-value.ts';
import { nadReferenceFromAttributes } from './nad-reference.ts';

const NAME = 'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName';
const NAMESPACE = 'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefNamespace';
const object = { kind: 'DeviceAttributes', namespace: 'dra-driver-sriov', name: 'rail-a' };

function outcome(attributes: Record<string, DeviceAttributeValue>): unknown {
  const result = nadReferenceFromAttributes(attributes, object);
  return result.ok ? result.value : result.error.code;
}

describe('nadReferenceFromAttributes', () => {
  it.each([
    ['no reference keys', { 'example.com/x': { int: 1 } }, null],
    ['a name only', { [NAME]: { string: 'rail-a-net' } }, { name: 'rail-a-net', namespace: null }],
    ['an empty namespace', { [NAME]: { string: 'rail-a-net' }, [NAMESPACE]: { string: '' } }, { name: 'rail-a-net', namespace: null }],
    ['an explicit namespace', { [NAME]: { string: 'rail-a-net' }, [NAMESPACE]: { string: 'infra' } }, { name: 'rail-a-net', namespace: 'infra' }],
    ['a 64-character name', { [NAME]: { string: 'a'.repeat(64) } }, { name: 'a'.repeat(64), namespace: null }],
    ['a dotted name', { [NAME]: { string: 'rail.a' } }, { name: 'rail.a', namespace: null }],
    ['a 63-character namespace', { [NAME]: { string: 'n' }, [NAMESPACE]: { string: 'a'.repeat(63) } }, { name: 'n', namespace: 'a'.repeat(63) }],
    ['a 65-character name', { [NAME]: { string: 'a'.repeat(65) } }, 'InvalidNetAttachDefReference'],
    ['an empty name', { [NAME]: { string: '' } }, 'InvalidNetAttachDefReference'],
    ['an uppercase name', { [NAME]: { string: 'Rail' } }, 'InvalidNetAttachDefReference'],
    ['a name as an int', { [NAME]: { int: 1 } }, 'InvalidNetAttachDefReference'],
    ['a name as a string list', { [NAME]: { strings: ['rail-a-net'] } }, 'InvalidNetAttachDefReference'],
    ['a namespace alone', { [NAMESPACE]: { string: 'infra' } }, 'InvalidNetAttachDefReference'],
    ['an empty namespace alone', { [NAMESPACE]: { string: '' } }, 'InvalidNetAttachDefReference'],
    ['a 64-character namespace', { [NAME]: { string: 'n' }, [NAMESPACE]: { string: 'a'.repeat(64) } }, 'InvalidNetAttachDefReference'],
    ['a dotted namespace', { [NAME]: { string: 'n' }, [NAMESPACE]: { string: 'in.fra' } }, 'InvalidNetAttachDefReference'],
    ['a namespace as a bool', { [NAME]: { string: 'n' }, [NAMESPACE]: { bool: false } }, 'InvalidNetAttachDefReference'],
    // Keys are qualified by the caller; a bare key here is ordinary metadata.
    ['bare keys', { netAttachDefName: { string: 'rail-a-net' } }, null],
  ])('%s', (_case, attributes, expected) => {
    expect(outcome(attributes as Record<string, DeviceAttributeValue>)).toEqual(expected);
  });

  it.each([
    [{ [NAME]: { string: '' } }, 'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName is empty'],
    [
      { [NAMESPACE]: { string: 'infra' } },
      'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefNamespace is set without sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName',
    ],
    [{ [NAME]: { int: 1 } }, 'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName must be a string attribute'],
    [{ [NAME]: { string: 'n' }, [NAMESPACE]: { int: 1 } }, 'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefNamespace must be a string attribute'],
    [{ [NAME]: { string: 'Rail' } }, 'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName "Rail" is not a NAD name of at most 64 characters'],
    [
      { [NAME]: { string: 'n' }, [NAMESPACE]: { string: 'in.fra' } },
      'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefNamespace "in.fra" is not a namespace name',
    ],
  ])('says what is wrong with %j and names the object', (attributes, detail) => {
    const result = nadReferenceFromAttributes(attributes, object);
    expect(result.ok ? 'accepted' : [result.error.code, result.error.detail, result.error.object]).toEqual(['InvalidNetAttachDefReference', detail, object]);
  });

  it('names the object and quotes a bounded excerpt of the bad value', () => {
    const result = nadReferenceFromAttributes({ [NAME]: { string: 'x'.repeat(10_000) } }, object);
    expect(result.ok ? 'accepted' : result.error.message.startsWith('InvalidNetAttachDefReference: DeviceAttributes dra-driver-sriov/rail-a: ')).toBe(true);
    expect(result.ok ? 0 : result.error.message.length).toBeLessThan(600);
  });
});
