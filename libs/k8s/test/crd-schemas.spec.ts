// The chart's CRD schemas (charts/sriov-dra/crds) on a real kube-apiserver. Requests carry no
// fieldValidation parameter unless a test says so: the API server then prunes unknown fields instead of
// refusing them, so a rejection here is the schema's own (422 Invalid, with the field in
// status.details.causes), not the strict decoding a client may ask for. What strict field validation adds is
// tested separately.
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { DISCOVERY_RESERVED_ATTRIBUTES, attributeKeys, isDraQualifiedName, isSemver, validateSriovResourcePolicy } from '@sriov-dra/contract';
import { expectedError, expectsValid, loadFixtures } from '@sriov-dra/contract/fixtures';
import { parseAllDocuments } from 'yaml';
import { isApiError } from '../src/api-errors.ts';
import { type KubeObject, contentTypes } from '../src/client.ts';
import { type ResourceType, resourcePath, resourceTypes } from '../src/resources.ts';
import { controlPlaneBinaries, installCrdObjects, readCrds } from '../src/testing/index.ts';
import { createNamespace, useControlPlane } from './fixtures.ts';

const shared = useControlPlane({ crds: true, namespace: 'ai-workloads' });

type FieldValidation = 'Strict' | 'Warn' | 'Ignore' | undefined;
type Body = Record<string, unknown>;
type Spec = Record<string, unknown>;

function dryRunCreate(type: ResourceType, namespace: string | undefined, body: Body, fieldValidation?: FieldValidation): Promise<KubeObject> {
  return shared.admin.request({
    method: 'POST',
    path: resourcePath(type, { namespace }),
    query: { dryRun: 'All', fieldValidation },
    body,
  }) as Promise<KubeObject>;
}

/** The cause the API server adds when structural errors kept the CEL rules from running. */
const RULES_NOT_CHECKED = '<nil>';

/** Asserts exactly 422 Invalid whose causes name exactly `fields` (and, when given, carry `message`). */
async function expectInvalid(call: Promise<unknown>, fields: readonly string[], message?: string): Promise<void> {
  const error = await call.then(
    () => new Error('the request was accepted'),
    (caught: unknown) => caught,
  );
  if (!isApiError(error)) throw error;
  expect({ status: error.status, reason: error.apiStatus?.reason }).toEqual({ status: 422, reason: 'Invalid' });
  const causes = (error.apiStatus?.details?.causes ?? []).filter((cause) => cause.field !== RULES_NOT_CHECKED);
  expect([...new Set(causes.map((cause) => cause.field))].sort()).toEqual([...fields].sort());
  if (message !== undefined) expect(causes.map((cause) => cause.message)).toContainEqual(expect.stringContaining(message));
}

/** The fields a strict decoding error names, sorted. */
function unknownFields(error: unknown): string[] {
  const message = isApiError(error) ? (error.apiStatus?.message ?? '') : String(error);
  return [...message.matchAll(/unknown field "([^"]+)"/g)].map((match) => match[1] ?? '').sort();
}

async function verdict(call: Promise<unknown>): Promise<'accepted' | 'rejected'> {
  try {
    await call;
    return 'accepted';
  } catch (error) {
    if (isApiError(error, 'Invalid')) return 'rejected';
    throw error;
  }
}

function nodePolicy(spec: Spec): Body {
  return {
    apiVersion: 'sriovnetwork.openshift.io/v1',
    kind: 'SriovNetworkNodePolicy',
    metadata: { generateName: 'rail-', namespace: 'ai-workloads' },
    spec: { resourceName: 'rail_a', numVfs: 4, nicSelector: { pfNames: ['ens1f0'] }, nodeSelector: {}, ...spec },
  };
}

const withAttributes = (attributes: unknown): Body => nodePolicy({ dra: { attributes } });
const createPolicy = (body: Body, fieldValidation?: FieldValidation): Promise<KubeObject> =>
  dryRunCreate(resourceTypes.sriovNetworkNodePolicy, 'ai-workloads', body, fieldValidation);

function deviceAttributes(spec: Spec | undefined): Body {
  return {
    apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1',
    kind: 'DeviceAttributes',
    metadata: { generateName: 'attrs-', namespace: 'ai-workloads' },
    ...(spec === undefined ? {} : { spec }),
  };
}

function resourcePolicy(spec: Spec | undefined): Body {
  return {
    apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1',
    kind: 'SriovResourcePolicy',
    metadata: { generateName: 'policy-', namespace: 'ai-workloads' },
    ...(spec === undefined ? {} : { spec }),
  };
}

const attrsPath = 'spec.dra.attributes';

describe('SriovNetworkNodePolicy', () => {
  it('accepts zero and false as present values and keeps spec.dra unpruned', async () => {
    const attributes = { 'example.com/tier': { int: 0 }, 'example.com/fast': { bool: false } };
    const created = (await shared.admin.request({
      method: 'POST',
      path: resourcePath(resourceTypes.sriovNetworkNodePolicy, { namespace: 'ai-workloads' }),
      body: withAttributes(attributes),
    })) as KubeObject;
    const live = await shared.admin.get<KubeObject & { spec: { dra: unknown } }>(resourceTypes.sriovNetworkNodePolicy, {
      namespace: 'ai-workloads',
      name: created.metadata.name,
    });
    expect(live.spec.dra).toEqual({ attributes });
  });

  it('keeps status.conditions written through the status subresource', async () => {
    const created = await shared.admin.create(resourceTypes.sriovNetworkNodePolicy, withAttributes({}), { namespace: 'ai-workloads' });
    const condition = {
      type: 'DRAConfigurationReady',
      status: 'False',
      reason: 'SriovNetworkNotFound',
      message: 'SriovNetwork sriov-network-operator/rail-a-net not found',
      observedGeneration: 1,
      lastTransitionTime: '2026-11-30T00:00:00Z',
    };
    const at = { namespace: 'ai-workloads', name: created.metadata.name, subresource: 'status' };
    await shared.admin.patch(resourceTypes.sriovNetworkNodePolicy, at, { status: { conditions: [condition] } }, contentTypes.mergePatch);
    const live = await shared.admin.get<KubeObject & { status?: { conditions?: unknown[] } }>(resourceTypes.sriovNetworkNodePolicy, {
      namespace: 'ai-workloads',
      name: created.metadata.name,
    });
    expect(live.status?.conditions).toEqual([condition]);
    // The condition schema is metav1.Condition's: a reason is a CamelCase identifier.
    const bad = { status: { conditions: [{ ...condition, reason: 'not found' }] } };
    await expectInvalid(
      shared.admin.request({ method: 'PATCH', path: resourcePath(resourceTypes.sriovNetworkNodePolicy, at), body: bad, contentType: contentTypes.mergePatch }),
      ['status.conditions[0].reason'],
    );
  });

  it('requires nodeSelector and checks the upstream enums, bridge included', async () => {
    const withoutSelector = { resourceName: 'rail_a', numVfs: 4, nicSelector: { pfNames: ['ens1f0'] } };
    await expectInvalid(createPolicy({ ...nodePolicy({}), spec: withoutSelector }), ['spec.nodeSelector']);
    await expectInvalid(createPolicy(nodePolicy({ vdpaType: 'vdpa' })), ['spec.vdpaType']);
    await expectInvalid(createPolicy(nodePolicy({ bridge: { ovs: { bridge: { failMode: 'open' } } } })), ['spec.bridge.ovs.bridge.failMode']);
    await expectInvalid(createPolicy(nodePolicy({ resourceName: 'rail.a' })), ['spec.resourceName']);
    const bridge = {
      ovs: { bridge: { datapathType: 'netdev', failMode: 'secure' }, uplink: { interface: { type: 'dpdk', mtuRequest: 9000, options: { n_rxq: '2' } } } },
    };
    const created = await createPolicy(nodePolicy({ bridge, vdpaType: 'vhost', eSwitchMode: 'switchdev' }));
    expect(created['spec']).toMatchObject({ bridge, vdpaType: 'vhost', deviceType: 'netdevice' });
  });

  it.each([
    ['two members', { 'example.com/a': { int: 1, string: '1' } }, [`${attrsPath}[example.com/a]`], 'exactly one of int, bool, string or version'],
    ['no member', { 'example.com/a': {} }, [`${attrsPath}[example.com/a]`], 'exactly one of int, bool, string or version'],
    // Pruning removes the undeclared list member, which leaves a value without any member.
    ['a list value', { 'example.com/a': { strings: ['x'] } }, [`${attrsPath}[example.com/a]`], 'exactly one of int, bool, string or version'],
    ['65 bytes of UTF-8 in 33 characters', { 'example.com/a': { string: 'é'.repeat(32) + 'x' } }, [`${attrsPath}[example.com/a]`], 'at most 64 bytes of UTF-8'],
    ['a 65-character string', { 'example.com/a': { string: 'x'.repeat(65) } }, [`${attrsPath}.example.com/a.string`], 'Too long'],
    ['a version that is not semver 2.0.0', { 'example.com/a': { version: '1.0' } }, [`${attrsPath}.example.com/a.version`], 'should match'],
    ['an int beyond 2^53-1', { 'example.com/a': { int: 9007199254740992 } }, [`${attrsPath}.example.com/a.int`], 'less than or equal to 9007199254740991'],
    ['a fractional int', { 'example.com/a': { int: 1.5 } }, [`${attrsPath}.example.com/a.int`], 'must be of type int64'],
    [
      '33 attributes',
      Object.fromEntries(Array.from({ length: 33 }, (_unused, i) => [`example.com/a${i}`, { int: i }])),
      [attrsPath],
      'must have at most 32 items',
    ],
    ['an unqualified key', { rail: { string: 'a' } }, [attrsPath], 'attribute names must be'],
    ['a 64-character domain', { [`${'d'.repeat(60)}.com/a`]: { bool: true } }, [attrsPath], 'attribute names must be'],
    ['a 33-character identifier', { [`example.com/${'i'.repeat(33)}`]: { bool: true } }, [attrsPath], 'attribute names must be'],
    ['an identifier with a dash', { 'example.com/rail-name': { bool: true } }, [attrsPath], 'attribute names must be'],
    ['an uppercase domain', { 'Example.com/rail': { bool: true } }, [attrsPath], 'attribute names must be'],
    ['two slashes', { 'example.com/a/b': { bool: true } }, [attrsPath], 'attribute names must be'],
    ['only the SriovNetwork name', { 'sriovnetwork.openshift.io/sriovNetworkName': { string: 'rail-a-net' } }, [attrsPath], 'set together or not at all'],
    [
      'a SriovNetwork name as an int',
      { 'sriovnetwork.openshift.io/sriovNetworkName': { int: 1 }, 'sriovnetwork.openshift.io/sriovNetworkNamespace': { string: 'infra' } },
      [attrsPath],
      'sriovNetworkName must be a string value',
    ],
    [
      'a SriovNetwork name that is no object name',
      { 'sriovnetwork.openshift.io/sriovNetworkName': { string: 'Rail_A' }, 'sriovnetwork.openshift.io/sriovNetworkNamespace': { string: 'infra' } },
      [attrsPath],
      'sriovNetworkName must be a string value',
    ],
    [
      'an empty SriovNetwork namespace',
      { 'sriovnetwork.openshift.io/sriovNetworkName': { string: 'rail-a-net' }, 'sriovnetwork.openshift.io/sriovNetworkNamespace': { string: '' } },
      [attrsPath],
      'sriovNetworkNamespace must be a string value',
    ],
    [
      'a 64-character SriovNetwork namespace',
      { 'sriovnetwork.openshift.io/sriovNetworkName': { string: 'rail-a-net' }, 'sriovnetwork.openshift.io/sriovNetworkNamespace': { string: 'n'.repeat(64) } },
      [attrsPath],
      'sriovNetworkNamespace must be a string value',
    ],
    [
      'a SriovNetwork namespace with a dot',
      { 'sriovnetwork.openshift.io/sriovNetworkName': { string: 'rail-a-net' }, 'sriovnetwork.openshift.io/sriovNetworkNamespace': { string: 'in.fra' } },
      [attrsPath],
      'sriovNetworkNamespace must be a string value',
    ],
  ])('rejects %s in spec.dra with 422 at the failing field', async (_case, attributes, fields, message) => {
    await expectInvalid(createPolicy(withAttributes(attributes)), fields, message);
  });

  it.each([...DISCOVERY_RESERVED_ATTRIBUTES, ...Object.values(attributeKeys)])('rejects the operator-owned key %s', async (key) => {
    await expectInvalid(createPolicy(withAttributes({ [key]: { string: 'x' } })), [attrsPath], 'hardware discovery owns this attribute');
  });

  it('accepts the boundaries: 64 bytes, a 63-character domain, a 32-character identifier, ±(2^53-1), a SriovNetwork pair', async () => {
    const attributes = {
      'example.com/bytes': { string: 'é'.repeat(32) },
      [`${'d'.repeat(59)}.com/a`]: { version: '1.2.3-rc.1+build.5' },
      [`example.com/${'i'.repeat(32)}`]: { int: -9007199254740991 },
      'example.com/max': { int: 9007199254740991 },
      'sriovnetwork.openshift.io/sriovNetworkName': { string: 'n'.repeat(64) },
      'sriovnetwork.openshift.io/sriovNetworkNamespace': { string: 'sriov-network-operator' },
    };
    const created = await createPolicy(withAttributes(attributes));
    expect(created['spec']).toMatchObject({ dra: { attributes } });
  });

  // The schema and validateNodePolicyDra must agree on every shared example; the one exception is an
  // unknown field, which the API server prunes (and refuses only under strict field validation).
  it.each(loadFixtures('node-policy-dra').map((fixture) => [fixture.id, fixture] as const))('agrees with the contract on %s', async (id, fixture) => {
    const body = nodePolicy({ dra: fixture.input });
    if (id === 'node-policy-dra/unknown-block-field') {
      const stored = await createPolicy(body);
      expect(stored['spec']).toMatchObject({ dra: { attributes: {} } });
      expect((stored['spec'] as { dra: Spec }).dra).not.toHaveProperty('nadName');
      return;
    }
    expect(await verdict(createPolicy(body))).toBe(expectsValid(fixture) ? 'accepted' : 'rejected');
  });
});

describe('what strict field validation adds', () => {
  it('refuses with 400 what a non-strict request silently prunes', async () => {
    const body = nodePolicy({ dra: { attributes: { 'example.com/a': { string: 'x', strings: ['x'] } }, nadName: 'x' }, eSwitchParams: { multiport: true } });
    const pruned = await createPolicy(body);
    expect((pruned['spec'] as Spec)['dra']).toEqual({ attributes: { 'example.com/a': { string: 'x' } } });
    expect(pruned['spec']).not.toHaveProperty('eSwitchParams');
    const error = await createPolicy(body, 'Strict').catch((caught: unknown) => caught);
    expect(isApiError(error) ? { status: error.status, reason: error.apiStatus?.reason } : error).toEqual({ status: 400, reason: 'BadRequest' });
    expect(unknownFields(error)).toEqual(['spec.dra.attributes.example.com/a.strings', 'spec.dra.nadName', 'spec.eSwitchParams']);
  });
});

describe('DeviceAttributes', () => {
  const create = (body: Body): Promise<KubeObject> => dryRunCreate(resourceTypes.deviceAttributes, 'ai-workloads', body);

  it.each([
    ['no spec', deviceAttributes(undefined), ['spec'], 'Required value'],
    [
      'an identifier with a dash',
      deviceAttributes({ attributes: { 'example.com/rail-name': { string: 'a' } } }),
      ['spec.attributes'],
      'attribute names must be',
    ],
    ['two members', deviceAttributes({ attributes: { a: { int: 1, ints: [1] } } }), ['spec.attributes[a]'], 'exactly one of bool, int'],
    ['65 bytes of UTF-8', deviceAttributes({ attributes: { a: { string: 'é'.repeat(32) + 'x' } } }), ['spec.attributes[a]'], 'at most 64 bytes'],
    [
      '65 bytes of UTF-8 in a list',
      deviceAttributes({ attributes: { a: { strings: ['ok', 'é'.repeat(32) + 'x'] } } }),
      ['spec.attributes[a].strings'],
      'at most 64 bytes',
    ],
    [
      'a version list entry that is not semver',
      deviceAttributes({ attributes: { a: { versions: ['1.0.0', 'v1.0.0'] } } }),
      ['spec.attributes.a.versions[1]'],
      'should match',
    ],
    [
      'an int beyond 2^53-1 in a list',
      deviceAttributes({ attributes: { a: { ints: [-9007199254740992] } } }),
      ['spec.attributes.a.ints[0]'],
      'greater than or equal',
    ],
  ])('rejects %s with 422 at the failing field', async (_case, body, fields, message) => {
    await expectInvalid(create(body), fields, message);
  });

  it('refuses one attribute given bare and qualified', async () => {
    const attributes = { tier: { int: 1 }, 'sriovnetwork.k8snetworkplumbingwg.io/tier': { int: 2 } };
    await expectInvalid(create(deviceAttributes({ attributes })), ['spec.attributes'], 'the same attribute is given twice');
    expect(await verdict(create(deviceAttributes({ attributes: { tier: { int: 1 }, 'example.com/tier': { int: 2 } } })))).toBe('accepted');
  });

  // The schema refuses what ResourceSlice publication would (InvalidDeviceAttributes, the attribute
  // budget); the driver's semantic rules (discovery-owned keys, the NAD reference pair) are its own
  // input contract, as upstream, so those fixtures pass the schema.
  it.each(loadFixtures('device-attributes').map((fixture) => [fixture.id, fixture] as const))('agrees with the contract on %s', async (_id, fixture) => {
    const input = fixture.input as Body & { metadata: Body };
    const body = { ...input, metadata: { ...input.metadata, name: undefined, generateName: 'attrs-', namespace: 'ai-workloads' } };
    const schemaLevel = ['InvalidDeviceAttributes', 'AttributeBudgetExceeded'].includes(expectedError(fixture) ?? 'valid');
    expect(await verdict(create(body))).toBe(schemaLevel ? 'rejected' : 'accepted');
  });
});

describe('SriovResourcePolicy', () => {
  const create = (body: Body, fieldValidation?: FieldValidation): Promise<KubeObject> =>
    dryRunCreate(resourceTypes.sriovResourcePolicy, 'ai-workloads', body, fieldValidation);

  it('stores matchFields as upstream does, so the contract can refuse the policy instead of reading a match-all term', async () => {
    const nodeSelector = { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['worker-a'] }] }] };
    const stored = await create(resourcePolicy({ nodeSelector, configs: [] }), 'Strict');
    expect(stored['spec']).toEqual({ nodeSelector, configs: [] });
    const read = validateSriovResourcePolicy(stored);
    expect(read.ok ? 'accepted' : read.error.code).toBe('InvalidSriovResourcePolicy');
  });

  // The schema is upstream's and accepts what upstream accepts; managed mode's refusals (matchFields,
  // drivers filters, VF ranges, label syntax in selectors) are the contract's. Only an ID the driver could
  // never match is refused by both.
  it.each(loadFixtures('sriov-resource-policy').map((fixture) => [fixture.id, fixture] as const))('agrees with the contract on %s', async (id, fixture) => {
    const input = fixture.input as Body & { metadata: Body };
    const body = { ...input, metadata: { ...input.metadata, name: undefined, generateName: 'policy-', namespace: 'ai-workloads' } };
    const schemaLevel = ['sriov-resource-policy/uppercase-vendor'].includes(id);
    if (schemaLevel) expect(fixture.expect).not.toHaveProperty('valid');
    expect(await verdict(create(body))).toBe(schemaLevel ? 'rejected' : 'accepted');
  });

  it.each([
    ['no spec', resourcePolicy(undefined), ['spec']],
    ['a nodeSelector without nodeSelectorTerms', resourcePolicy({ nodeSelector: {} }), ['spec.nodeSelector.nodeSelectorTerms']],
    [
      'an unknown selector operator',
      resourcePolicy({ nodeSelector: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'Is' }] }] } }),
      ['spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].operator'],
    ],
    ['an uppercase vendor ID', resourcePolicy({ configs: [{ resourceFilters: [{ vendors: ['15B3'] }] }] }), ['spec.configs[0].resourceFilters[0].vendors[0]']],
    ['an unknown link type', resourcePolicy({ configs: [{ resourceFilters: [{ linkType: 'roce' }] }] }), ['spec.configs[0].resourceFilters[0].linkType']],
  ])('rejects %s with 422 at the failing field', async (_case, body, fields) => {
    await expectInvalid(create(body), fields);
  });
});

describe('SriovNetwork', () => {
  it('applies the upstream default and enums', async () => {
    const network = { apiVersion: 'sriovnetwork.openshift.io/v1', kind: 'SriovNetwork', metadata: { name: 'rail-a-net', namespace: 'ai-workloads' } };
    const created = await dryRunCreate(resourceTypes.sriovNetwork, 'ai-workloads', { ...network, spec: { resourceName: 'rail_a' } });
    expect(created['spec']).toEqual({ resourceName: 'rail_a', logLevel: 'info' });
    await expectInvalid(dryRunCreate(resourceTypes.sriovNetwork, 'ai-workloads', { ...network, spec: { vlan: 4095, trust: 'yes' } }), [
      'spec.resourceName',
      'spec.vlan',
      'spec.trust',
    ]);
  });
});

// The limits the schemas copy from DRA must be the ones the API server applies to ResourceSlices: every
// case below gets the same verdict from a ResourceSlice and from a DeviceAttributes object, and, for
// fully qualified names, from spec.dra of a SriovNetworkNodePolicy and from the contract's predicates.
describe('agreement with ResourceSlice validation', () => {
  function slice(attributes: Record<string, unknown>): Body {
    return {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceSlice',
      metadata: { generateName: 'worker-a-' },
      spec: {
        driver: 'sriovnetwork.k8snetworkplumbingwg.io',
        pool: { name: 'worker-a', generation: 1, resourceSliceCount: 1 },
        nodeName: 'worker-a',
        devices: [{ name: 'vf-0', attributes }],
      },
    };
  }

  async function verdicts(key: string, value: Record<string, unknown>): Promise<Record<string, string>> {
    const attributes = { [key]: value };
    return {
      resourceSlice: await verdict(dryRunCreate(resourceTypes.resourceSlice, undefined, slice(attributes))),
      deviceAttributes: await verdict(dryRunCreate(resourceTypes.deviceAttributes, 'ai-workloads', deviceAttributes({ attributes }))),
      ...(key.includes('/') ? { nodePolicy: await verdict(createPolicy(withAttributes(attributes))) } : {}),
    };
  }

  const same = (result: Record<string, string>, expected: string): Record<string, string> =>
    Object.fromEntries(Object.keys(result).map((key) => [key, expected]));

  it.each([
    ['1.0.0', true],
    ['0.0.0', true],
    ['1.2.3-alpha.1+build.5', true],
    ['1.0.0-0a.x-y--z', true],
    ['1.0.0+001', true],
    ['22.31.1014', true],
    [`1.0.0-${'a'.repeat(58)}`, true],
    [`1.0.0-${'a'.repeat(59)}`, false],
    ['1.0', false],
    ['v1.0.0', false],
    ['01.0.0', false],
    ['1.0.0-01', false],
    ['1.0.0-', false],
    ['1.0.0+', false],
    ['1.0.0-a..b', false],
    ['1.0.0 ', false],
    ['１.0.0', false],
  ])('version %j', async (version, valid) => {
    const result = await verdicts('example.com/v', { version });
    expect(result).toEqual(same(result, valid ? 'accepted' : 'rejected'));
    expect(isSemver(version)).toBe(valid);
  });

  it.each([
    ['64 ASCII bytes', 'x'.repeat(64), true],
    ['65 ASCII bytes', 'x'.repeat(65), false],
    ['32 two-byte characters (64 bytes)', 'é'.repeat(32), true],
    ['33 characters, 65 bytes', 'é'.repeat(32) + 'x', false],
    ['16 four-byte characters (64 bytes)', '😀'.repeat(16), true],
    ['17 characters, 65 bytes', '😀'.repeat(16) + 'x', false],
    ['the empty string', '', true],
  ])('string of %s', async (_case, string, valid) => {
    const result = await verdicts('example.com/s', { string });
    expect(result).toEqual(same(result, valid ? 'accepted' : 'rejected'));
  });

  it.each([
    ['example.com/a', true, null],
    [`${'d'.repeat(59)}.com/a`, true, null],
    [`${'d'.repeat(60)}.com/a`, false, null],
    [`example.com/${'i'.repeat(32)}`, true, null],
    [`example.com/${'i'.repeat(33)}`, false, null],
    ['example.com/_a1', true, null],
    ['example.com/1a', false, null],
    ['example.com/a-b', false, null],
    // Stricter than ResourceSlices on purpose: the API server lowercases the domain before checking it and
    // does not yet refuse a second slash; the contract accepts only the canonical spelling.
    ['Example.com/a', false, 'accepted'],
    ['example.com/a/b', false, 'accepted'],
    ['example..com/a', false, null],
    ['-example.com/a', false, null],
    ['/a', false, null],
    ['example.com/', false, null],
    ['rail', true, null],
    ['_rail', true, null],
    ['rail-a', false, null],
    ['i'.repeat(33), false, null],
  ])('name %j', async (key: string, valid: boolean, resourceSlice: string | null) => {
    const result = await verdicts(key, { bool: true });
    expect(result).toEqual({ ...same(result, valid ? 'accepted' : 'rejected'), ...(resourceSlice === null ? {} : { resourceSlice }) });
    expect(isDraQualifiedName(key)).toBe(valid);
  });
});

// The upstream projects' own CRDs (charts/sriov-dra/test-data/upstream-crds, copied with their origin) are
// installed beside the chart's under a renamed group, so every request below can be sent to both and
// compared. The samples are the upstream projects' published example CRs (test-data/upstream-samples).
describe('compared with the upstream schemas', () => {
  const DATA_DIR = fileURLToPath(new URL('../../../charts/sriov-dra/test-data/', import.meta.url));
  const SAMPLES_DIR = join(DATA_DIR, 'upstream-samples');
  const UPSTREAM = 'upstream.';

  const chartKinds: Readonly<Record<string, ResourceType>> = {
    DeviceAttributes: resourceTypes.deviceAttributes,
    SriovResourcePolicy: resourceTypes.sriovResourcePolicy,
    NetworkAttachmentDefinition: resourceTypes.networkAttachmentDefinition,
    SriovNetwork: resourceTypes.sriovNetwork,
    SriovNetworkNodePolicy: resourceTypes.sriovNetworkNodePolicy,
  };

  function upstreamCrd(crd: Record<string, unknown>): Record<string, unknown> {
    const spec = crd['spec'] as { group: string; names: { plural: string } };
    const group = `${UPSTREAM}${spec.group}`;
    return { ...crd, metadata: { name: `${spec.names.plural}.${group}` }, spec: { ...spec, group } };
  }

  /** Sends `body` as written to the chart's CRD, or to upstream's with the group renamed. */
  function target(schema: 'chart' | 'upstream', type: ResourceType, body: Body): { type: ResourceType; body: Body } {
    if (schema === 'chart') return { type, body };
    return { type: { ...type, group: `${UPSTREAM}${type.group}` }, body: { ...body, apiVersion: `${UPSTREAM}${String(body['apiVersion'])}` } };
  }

  type Outcome = { readonly spec: unknown } | { readonly status: number; readonly fields: readonly string[] };

  /** What the API server did: the stored spec, or the status code and the fields it named. */
  async function outcome(call: Promise<unknown>): Promise<Outcome> {
    try {
      return { spec: ((await call) as Body)['spec'] };
    } catch (error) {
      if (!isApiError(error)) throw error;
      const message = error.apiStatus?.message ?? '';
      const causes = (error.apiStatus?.details?.causes ?? []).map((cause) => cause.field ?? '').filter((field) => field !== RULES_NOT_CHECKED);
      const notDeclared = [...message.matchAll(/(\.[^\s:]+): field not declared in schema/g)].map((match) => match[1] ?? '');
      return { status: error.status, fields: [...new Set([...causes, ...unknownFields(error), ...notDeclared])].sort() };
    }
  }

  function applyDryRun(type: ResourceType, body: Body, fieldValidation: FieldValidation): Promise<unknown> {
    const metadata = body['metadata'] as { name: string; namespace?: string };
    return shared.admin.request({
      method: 'PATCH',
      path: resourcePath(type, { namespace: metadata.namespace ?? 'default', name: metadata.name }),
      query: { dryRun: 'All', fieldManager: 'upstream-samples', fieldValidation },
      body,
      contentType: contentTypes.apply,
    });
  }

  interface SampleObject extends Body {
    readonly kind: string;
    readonly metadata: { readonly name: string; readonly namespace?: string };
    readonly spec?: Spec;
  }

  const files = readdirSync(SAMPLES_DIR, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.yaml'))
    .sort();
  const documents = files.flatMap((file) =>
    parseAllDocuments(readFileSync(join(SAMPLES_DIR, file), 'utf8'))
      .map((document, index) => ({ file, index, object: document.toJS() as SampleObject | null }))
      .filter((document): document is { file: string; index: number; object: SampleObject } => document.object !== null),
  );
  const samples = documents.filter((document) => document.object.kind in chartKinds);

  /**
   * Fields the upstream documentation uses but upstream's own schema does not declare (nicSelector.pfName
   * for pfNames; a metaPluginsConfig the CRD never had). With both schemas, server-side apply fails on them
   * (500: the API server cannot build a typed patch, whatever the field validation), a strict create refuses
   * them (400) and a plain create prunes them.
   * Keyed by file and document index.
   */
  const UNDECLARED_UPSTREAM: Readonly<Record<string, readonly string[]>> = {
    'sriov-network-operator/README.yaml#0': ['.spec.nicSelector.pfName'],
    'sriov-network-operator/doc_advanced-features.yaml#0': ['.spec.nicSelector.pfName'],
    'sriov-network-operator/doc_advanced-features.yaml#1': ['.spec.metaPluginsConfig'],
    'sriov-network-operator/doc_advanced-features.yaml#2': ['.spec.nicSelector.pfName'],
    'sriov-network-operator/doc_api_sriov-network-api.yaml#1': ['.spec.metaPluginsConfig'],
    'sriov-network-operator/doc_api_sriov-network-api.yaml#2': ['.spec.metaPluginsConfig'],
    'sriov-network-operator/doc_basic-examples.yaml#0': ['.spec.nicSelector.pfName'],
    'sriov-network-operator/doc_basic-examples.yaml#2': ['.spec.nicSelector.pfName'],
    'sriov-network-operator/doc_basic-examples.yaml#4': ['.spec.nicSelector.pfName'],
    'sriov-network-operator/doc_rdma-configuration.yaml#0': ['.spec.nicSelector.pfName'],
    'sriov-network-operator/doc_rdma-configuration.yaml#1': ['.spec.metaPluginsConfig'],
  };
  const undeclaredIn = (file: string, index: number): readonly string[] => UNDECLARED_UPSTREAM[`${file}#${index}`] ?? [];

  /** The sample's spec as stored: schema defaults added, undeclared fields pruned. */
  function expectedSpec(object: SampleObject, undeclared: readonly string[]): Spec {
    const without = (at: Spec, steps: readonly string[]): Spec => {
      const [step, ...rest] = steps;
      return Object.fromEntries(
        Object.entries(at).flatMap(([key, value]) => (key !== step ? [[key, value]] : rest.length === 0 ? [] : [[key, without(value as Spec, rest)]])),
      );
    };
    const spec = undeclared.reduce((at, path) => without(at, path.replace(/^\.spec\./, '').split('.')), object.spec ?? {});
    if (object.kind === 'SriovNetworkNodePolicy') return { deviceType: 'netdevice', ...spec };
    if (object.kind === 'SriovNetwork') return { logLevel: 'info', ...spec };
    return spec;
  }

  beforeAll(async () => {
    await installCrdObjects(shared.admin, readCrds(join(DATA_DIR, 'upstream-crds')).map(upstreamCrd));
    const namespaces = new Set(documents.map(({ object }) => (object.kind === 'Namespace' ? object.metadata.name : (object.metadata.namespace ?? 'default'))));
    for (const namespace of namespaces) {
      const tolerateExisting = (error: unknown): void => {
        if (!isApiError(error, 'AlreadyExists')) throw error;
      };
      await createNamespace(shared.admin, namespace).catch(tolerateExisting);
      // No controller manager runs here to create it, and the samples' Pods need it for admission.
      const serviceAccount = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } };
      await shared.admin.create(resourceTypes.serviceAccount, serviceAccount, { namespace }).catch(tolerateExisting);
    }
  }, 60_000);

  it('has samples of every chart kind from both upstream projects', () => {
    expect([...new Set(samples.map(({ object }) => object.kind))].sort()).toEqual(Object.keys(chartKinds).sort());
    expect(new Set(samples.map(({ file }) => file.split('/')[0]))).toEqual(new Set(['dra-driver-sriov', 'sriov-network-operator']));
    expect(samples.length).toBe(64);
  });

  it.each(samples.map((sample) => [`${sample.file}#${sample.index} ${sample.object.kind} ${sample.object.metadata.name}`, sample] as const))(
    '%s: same outcome as upstream under server-side apply and create, strict or not',
    async (_id, { file, index, object }) => {
      const undeclared = undeclaredIn(file, index);
      const expected = undeclared.length === 0 ? { spec: expectedSpec(object, []) } : { status: 500, fields: undeclared };
      const type = chartKinds[object.kind] as ResourceType;
      for (const schema of ['chart', 'upstream'] as const) {
        const to = target(schema, type, object);
        const namespace = object.metadata.namespace ?? 'default';
        expect([schema, await outcome(applyDryRun(to.type, to.body, undefined))]).toEqual([schema, expected]);
        expect([schema, await outcome(applyDryRun(to.type, to.body, 'Strict'))]).toEqual([schema, expected]);
        // A create prunes what the schema does not declare, or refuses it under strict field validation.
        expect([schema, await outcome(dryRunCreate(to.type, namespace, to.body))]).toEqual([schema, { spec: expectedSpec(object, undeclared) }]);
        expect([schema, await outcome(dryRunCreate(to.type, namespace, to.body, 'Strict'))]).toEqual([
          schema,
          undeclared.length === 0 ? expected : { status: 400, fields: undeclared.map((field) => field.slice(1)) },
        ]);
      }
    },
  );

  // Upstream's own rules hold unchanged: the same request fails on both schemas with the same fields.
  it.each([
    ['a policy without nodeSelector', resourceTypes.sriovNetworkNodePolicy, { ...nodePolicy({}), spec: { resourceName: 'r', numVfs: 1, nicSelector: {} } }],
    [
      'policy enums and bounds',
      resourceTypes.sriovNetworkNodePolicy,
      nodePolicy({ numVfs: -1, priority: 100, mtu: 0, deviceType: 'dpdk', linkType: 'Eth', eSwitchMode: 'off', vdpaType: 'vdpa' }),
    ],
    [
      'an OVS bridge with a bad failMode and mtuRequest',
      resourceTypes.sriovNetworkNodePolicy,
      nodePolicy({ bridge: { ovs: { bridge: { failMode: 'open' }, uplink: { interface: { mtuRequest: 'x' } } } } }),
    ],
    [
      'network enums and bounds',
      resourceTypes.sriovNetwork,
      {
        apiVersion: 'sriovnetwork.openshift.io/v1',
        kind: 'SriovNetwork',
        metadata: { generateName: 'net-' },
        spec: { vlan: 4095, vlanQoS: 8, vlanProto: '802.1x', spoofChk: 'yes', trust: 'no', linkState: 'up', minTxRate: -1, logLevel: 'trace' },
      },
    ],
    ['a resource policy without spec', resourceTypes.sriovResourcePolicy, resourcePolicy(undefined)],
    [
      'a node selector without terms',
      resourceTypes.sriovResourcePolicy,
      resourcePolicy({ nodeSelector: {}, configs: [{ resourceFilters: [{ linkType: 'roce' }] }] }),
    ],
    ['device attributes without spec', resourceTypes.deviceAttributes, deviceAttributes(undefined)],
  ])('%s: 422 with the same fields as upstream', async (_case, type, body) => {
    const chart = await outcome(dryRunCreate(type, 'ai-workloads', body));
    const upstream = target('upstream', type, body);
    expect(chart).toEqual(await outcome(dryRunCreate(upstream.type, 'ai-workloads', upstream.body)));
    expect(chart).toMatchObject({ status: 422 });
  });

  it('SriovNetwork status conditions: the metav1.Condition rules, as upstream', async () => {
    const condition = { type: 'Ready', status: 'True', reason: 'NetworkReady', message: '', lastTransitionTime: '2026-11-30T00:00:00Z' };
    const outcomes: Record<string, Outcome[]> = {};
    for (const schema of ['chart', 'upstream'] as const) {
      const to = target(schema, resourceTypes.sriovNetwork, {
        apiVersion: 'sriovnetwork.openshift.io/v1',
        kind: 'SriovNetwork',
        metadata: { name: `conditions-${schema}` },
        spec: { resourceName: 'rail_a' },
      });
      await shared.admin.request({ method: 'POST', path: resourcePath(to.type, { namespace: 'ai-workloads' }), body: to.body });
      const status = (conditions: unknown[]) =>
        shared.admin.request({
          method: 'PATCH',
          path: resourcePath(to.type, { namespace: 'ai-workloads', name: `conditions-${schema}`, subresource: 'status' }),
          query: { dryRun: 'All' },
          body: { status: { conditions } },
          contentType: contentTypes.mergePatch,
        });
      outcomes[schema] = [
        await outcome(status([condition])),
        await outcome(status([{ ...condition, reason: 'network ready' }])),
        await outcome(status([{ ...condition, type: 'Ready?' }])),
        await outcome(status([{ ...condition, status: 'Yes' }])),
      ];
    }
    expect(outcomes['chart']).toEqual(outcomes['upstream']);
    expect(outcomes['chart']?.map((result) => ('fields' in result ? result.fields : 'accepted'))).toEqual([
      'accepted',
      ['status.conditions[0].reason'],
      ['status.conditions[0].type'],
      ['status.conditions[0].status'],
    ]);
  });

  // Deliberately stricter than upstream's schema, each where upstream's admission webhook, the driver or
  // ResourceSlice publication would refuse the value later (see the comments in the chart's CRDs).
  it.each([
    ['a resourceName the upstream webhook refuses', resourceTypes.sriovNetworkNodePolicy, nodePolicy({ resourceName: 'rail.a' }), ['spec.resourceName']],
    [
      'an uppercase vendor ID',
      resourceTypes.sriovResourcePolicy,
      resourcePolicy({ configs: [{ resourceFilters: [{ vendors: ['15B3'] }] }] }),
      ['spec.configs[0].resourceFilters[0].vendors[0]'],
    ],
    [
      'a node selector operator Kubernetes does not define',
      resourceTypes.sriovResourcePolicy,
      resourcePolicy({ nodeSelector: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'Is' }] }] } }),
      ['spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].operator'],
    ],
    [
      'a 65-character attribute string',
      resourceTypes.deviceAttributes,
      deviceAttributes({ attributes: { a: { string: 'x'.repeat(65) } } }),
      ['spec.attributes.a.string'],
    ],
    [
      'an attribute version that is not semver',
      resourceTypes.deviceAttributes,
      deviceAttributes({ attributes: { a: { version: '1.0' } } }),
      ['spec.attributes.a.version'],
    ],
    ['an attribute with two members', resourceTypes.deviceAttributes, deviceAttributes({ attributes: { a: { int: 1, bool: true } } }), ['spec.attributes[a]']],
  ])('%s: 422 here, accepted by upstream', async (_case, type, body, fields) => {
    await expectInvalid(dryRunCreate(type, 'ai-workloads', body), fields);
    const upstream = target('upstream', type, body);
    expect(await outcome(dryRunCreate(upstream.type, 'ai-workloads', upstream.body))).toHaveProperty('spec');
  });

  it.each(files)('kubectl apply --server-side --dry-run=server -f %s', async (file) => {
    const kubectl = (...args: string[]) =>
      promisify(execFile)(controlPlaneBinaries().kubectl, [
        `--kubeconfig=${shared.cp.kubeconfig}`,
        'apply',
        '--dry-run=server',
        ...args,
        '-f',
        join(SAMPLES_DIR, file),
      ]);
    const inFile = documents.filter((document) => document.file === file);
    const undeclared = inFile.flatMap(({ index }) => undeclaredIn(file, index));
    if (undeclared.length === 0) {
      const { stdout } = await kubectl('--server-side', '--validate=strict');
      expect(stdout.trim().split('\n')).toHaveLength(inFile.length);
      return;
    }
    const failure = await kubectl('--server-side', '--validate=strict').then(
      () => 'accepted',
      (error: unknown) => (error as { stderr: string }).stderr,
    );
    expect([...failure.matchAll(/(\.[^\s:]+): field not declared in schema/g)].map((match) => match[1])).toEqual(undeclared);
    // Without server-side apply and strict validation, the undeclared fields are pruned.
    const { stdout } = await kubectl('--validate=false');
    expect(stdout.trim().split('\n')).toHaveLength(inFile.length);
  });
});
