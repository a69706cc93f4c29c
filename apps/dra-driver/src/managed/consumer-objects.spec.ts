import { describe, expect, it } from '@jest/globals';
import { CLAIM_UID, NAMESPACE, NODE, POD, apiClaim, apiNode, apiPod, podController, rejectionOf } from '../../test/consumer-fixtures.ts';
import { parseConsumerClaim, parseConsumerNode, parseConsumerPod } from './consumer-objects.ts';

const AT_CLAIM = { kind: 'ResourceClaim' };
const AT_POD = { kind: 'Pod', namespace: NAMESPACE, name: POD };

/** A copy of `object` with `value` at `path` (undefined deletes it). */
function withField(object: Record<string, unknown>, path: readonly string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(object);
  let at: Record<string, unknown> = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>;
  const last = path[path.length - 1] as string;
  if (value === undefined) Reflect.deleteProperty(at, last);
  else at[last] = value;
  return copy;
}

describe('parseConsumerClaim', () => {
  it('reads unset optional fields as unset whether absent or null', () => {
    const nulls = withField(
      withField(withField(apiClaim(), ['metadata', 'annotations'], null), ['metadata', 'ownerReferences'], null),
      ['status', 'reservedFor'],
      null,
    );
    const parsed = parseConsumerClaim(nulls, AT_CLAIM);
    expect(parsed).toMatchObject({ ok: true, value: { uid: CLAIM_UID, controller: undefined, reservedFor: [] } });
  });

  it('keeps the controlling owner, not the first owner', () => {
    const claim = apiClaim({ ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'u1' }, podController()] });
    expect(parseConsumerClaim(claim, AT_CLAIM)).toMatchObject({ ok: true, value: { controller: { kind: 'Pod', name: POD } } });
  });

  it('reads an allocation without devices as allocated with no results', () => {
    const claim = withField(apiClaim(), ['status', 'allocation'], { nodeSelector: {} });
    expect(parseConsumerClaim(claim, AT_CLAIM)).toMatchObject({ ok: true, value: { allocation: { results: [] } } });
  });

  const NAMED = { kind: 'ResourceClaim', namespace: NAMESPACE, name: 'nics' };
  it.each<[string, unknown, RegExp, Record<string, unknown>]>([
    ['a non-object', 'nics', /expected object/, { kind: 'ResourceClaim' }],
    ['a claim without a UID', withField(apiClaim(), ['metadata', 'uid'], undefined), /^metadata\.uid: /, NAMED],
    [
      'results that are not a list',
      withField(apiClaim(), ['status', 'allocation', 'devices', 'results'], {}),
      /^status\.allocation\.devices\.results: /,
      NAMED,
    ],
    [
      'a result without a device',
      apiClaim({ results: [{ request: 'vfs', driver: 'd', pool: 'p' }] }),
      /^status\.allocation\.devices\.results\.0\.device: /,
      NAMED,
    ],
    ['a reservation that is not an object', apiClaim({ reservedFor: ['trainer-0' as unknown as Record<string, unknown>] }), /^status\.reservedFor\.0: /, NAMED],
    [
      'adminAccess that is not a boolean',
      apiClaim({ results: [{ request: 'vfs', driver: 'd', pool: 'p', device: 'x', adminAccess: 'yes' }] }),
      /adminAccess/,
      NAMED,
    ],
  ])('refuses %s as InvalidApiObject naming what it can', (_, value, detail, object) => {
    const error = rejectionOf(parseConsumerClaim(value, AT_CLAIM));
    expect(error.code).toBe('InvalidApiObject');
    expect(error.detail).toMatch(detail);
    expect(error.object).toEqual(object);
  });
});

describe('parseConsumerPod', () => {
  it('reads an unset claim name in a status entry as intentionally absent, whether absent or null', () => {
    const pod = apiPod({ resourceClaimStatuses: [{ name: 'a', resourceClaimName: null }, { name: 'b' }] });
    expect(parseConsumerPod(pod, AT_POD)).toMatchObject({
      ok: true,
      value: {
        resourceClaimStatuses: [
          { name: 'a', resourceClaimName: undefined },
          { name: 'b', resourceClaimName: undefined },
        ],
      },
    });
  });

  it('reads deletionTimestamp as terminating and a missing nodeName as unbound', () => {
    expect(parseConsumerPod(apiPod({ deletionTimestamp: '2026-01-01T00:00:00Z', nodeName: null }), AT_POD)).toMatchObject({
      ok: true,
      value: { terminating: true, nodeName: '', hostNetwork: false },
    });
  });

  it.each<[string, unknown, RegExp]>([
    ['a Pod without a spec', withField(apiPod(), ['spec'], undefined), /^spec: /],
    ['a claim entry without a name', apiPod({ resourceClaims: [{ resourceClaimName: 'nics' }] }), /^spec\.resourceClaims\.0\.name: /],
    ['hostNetwork that is not a boolean', apiPod({ hostNetwork: 'true' as unknown as boolean }), /^spec\.hostNetwork: /],
    [
      'an extended-resource status without its claim name',
      apiPod({ extendedResourceClaimStatus: { requestMappings: [] } }),
      /^status\.extendedResourceClaimStatus\.resourceClaimName: /,
    ],
  ])('refuses %s as InvalidApiObject', (_, value, detail) => {
    const error = rejectionOf(parseConsumerPod(value, AT_POD));
    expect(error.code).toBe('InvalidApiObject');
    expect(error.detail).toMatch(detail);
    expect(error.object).toEqual(AT_POD);
  });
});

describe('parseConsumerNode', () => {
  it('reads the name and UID', () => {
    expect(parseConsumerNode(apiNode(), { kind: 'Node', name: NODE })).toEqual({ ok: true, value: { name: NODE, uid: expect.any(String) } });
  });

  it('refuses a Node without a UID', () => {
    expect(rejectionOf(parseConsumerNode(withField(apiNode(), ['metadata', 'uid'], ''), { kind: 'Node', name: NODE })).code).toBe('InvalidApiObject');
  });
});

describe('consumer objects with their optional parts absent', () => {
  it('reads a claim without spec or status as requesting nothing, unallocated and unreserved', () => {
    const bare = withField(withField(apiClaim(), ['spec'], undefined), ['status'], undefined);
    expect(parseConsumerClaim(bare, AT_CLAIM)).toMatchObject({ ok: true, value: { requests: [], allocation: undefined, reservedFor: [] } });
    const noDevices = withField(withField(apiClaim(), ['spec', 'devices'], undefined), ['status', 'allocation'], null);
    expect(parseConsumerClaim(noDevices, AT_CLAIM)).toMatchObject({ ok: true, value: { requests: [], allocation: undefined } });
  });

  it('reads a Pod without status as having no claim statuses and no extended-resource claim', () => {
    const bare = withField(apiPod(), ['status'], undefined);
    expect(parseConsumerPod(bare, AT_POD)).toMatchObject({ ok: true, value: { resourceClaimStatuses: [], extendedResourceClaim: undefined } });
    const noClaims = withField(apiPod(), ['spec', 'resourceClaims'], undefined);
    expect(parseConsumerPod(noClaims, AT_POD)).toMatchObject({ ok: true, value: { resourceClaims: [] } });
  });

  it('reads a null extended-resource claim status as none, and one without mappings as mapping nothing', () => {
    const none = withField(apiPod(), ['status', 'extendedResourceClaimStatus'], null);
    expect(parseConsumerPod(none, AT_POD)).toMatchObject({ ok: true, value: { extendedResourceClaim: undefined } });
    const unmapped = apiPod({ extendedResourceClaimStatus: { resourceClaimName: 'trainer-0-extended-resources-x' } });
    expect(parseConsumerPod(unmapped, AT_POD)).toMatchObject({
      ok: true,
      value: { extendedResourceClaim: { resourceClaimName: 'trainer-0-extended-resources-x', requestMappings: [] } },
    });
  });

  it('names a malformed object by what it carries, and otherwise by where it was read', () => {
    const at = { kind: 'ResourceClaim', namespace: NAMESPACE, name: 'expected' };
    const objectOf = (value: unknown) => rejectionOf(parseConsumerClaim(value, at)).object;
    expect(objectOf(null)).toEqual(at);
    expect(objectOf('claim')).toEqual(at);
    expect(objectOf({ metadata: null })).toEqual(at);
    expect(objectOf({ metadata: { namespace: 5, name: 'carried' } })).toEqual({ ...at, name: 'carried' });
    expect(objectOf({ metadata: { namespace: 'elsewhere', name: 7 } })).toEqual({ ...at, namespace: 'elsewhere' });
  });
});
