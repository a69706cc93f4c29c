// The CRD schemas this project installs (charts/sriov-dra/crds, and apps/node-policy-operator/crds through
// `crds apply`) on a real kube-apiserver. Requests carry no
// fieldValidation parameter unless a test says so: the API server then prunes unknown fields instead of
// refusing them, so a rejection here is the schema's own (422 Invalid, with the field in
// status.details.causes), not the strict decoding a client may ask for. What strict field validation adds is
// tested separately; the comparison with the upstream schemas and samples is in crd-upstream.spec.ts.
import { describe, expect, it } from '@jest/globals';
import {
  DISCOVERY_RESERVED_ATTRIBUTES,
  attributeKeys,
  draConfigurationReasons,
  isDraQualifiedName,
  isSemver,
  validateSriovResourcePolicy,
} from '@sriov-dra/contract';
import { expectedError, expectsValid, loadFixtures } from '@sriov-dra/contract/fixtures';
import { isApiError } from '../src/api-errors.ts';
import { type KubeObject, contentTypes } from '../src/client.ts';
import { type ResourceType, resourcePath, resourceTypes } from '../src/resources.ts';
import {
  type Body,
  type FieldValidation,
  type Spec,
  deviceAttributes,
  expectInvalid,
  nodePolicy,
  resourcePolicy,
  dryRunCreate as dryRunCreateWith,
  unknownFields,
  verdict,
  withAttributes,
} from './crd-requests.ts';
import { useControlPlane } from './fixtures.ts';

const shared = useControlPlane({ crds: true, namespace: 'ai-workloads' });

const dryRunCreate = (type: ResourceType, namespace: string | undefined, body: Body, fieldValidation?: FieldValidation): Promise<KubeObject> =>
  dryRunCreateWith(shared.admin, type, namespace, body, fieldValidation);
const createPolicy = (body: Body, fieldValidation?: FieldValidation): Promise<KubeObject> =>
  dryRunCreate(resourceTypes.sriovNetworkNodePolicy, 'ai-workloads', body, fieldValidation);

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
    // The condition schema is metav1.Condition's: a reason is a CamelCase identifier, which every reason
    // the operator sets must be.
    const statusDryRun = (changed: Record<string, unknown>) =>
      shared.admin.request({
        method: 'PATCH',
        path: resourcePath(resourceTypes.sriovNetworkNodePolicy, at),
        query: { dryRun: 'All' },
        body: { status: { conditions: [{ ...condition, ...changed }] } },
        contentType: contentTypes.mergePatch,
      });
    await expectInvalid(statusDryRun({ reason: 'not found' }), ['status.conditions[0].reason']);
    await expectInvalid(statusDryRun({ type: 'DRA configuration ready' }), ['status.conditions[0].type']);
    for (const reason of Object.values(draConfigurationReasons)) await statusDryRun({ reason });
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
    // The generated DeviceAttributes adds resourceName: 32 custom attributes would make 33.
    ['32 attributes', Object.fromEntries(Array.from({ length: 32 }, (_unused, i) => [`example.com/a${i}`, { int: i }])), [attrsPath], 'at most 31 attributes'],
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
  // unknown field, which the schema keeps (CEL cannot see it) for the webhook to refuse.
  it.each(loadFixtures('node-policy-dra').map((fixture) => [fixture.id, fixture] as const))('agrees with the contract on %s', async (id, fixture) => {
    const body = nodePolicy({ dra: fixture.input });
    if (id === 'node-policy-dra/unknown-block-field') {
      const stored = await createPolicy(body);
      expect((stored['spec'] as { dra: Spec }).dra).toEqual(fixture.input);
      return;
    }
    expect(await verdict(createPolicy(body))).toBe(expectsValid(fixture) ? 'accepted' : 'rejected');
  });

  // Each value is atomic for server-side apply (§12.2.2): a second manager replaces it whole, instead of
  // merging members into a value with two of them.
  it('replaces an attribute value whole when another field manager applies it', async () => {
    const apply = (attributes: Record<string, unknown>, fieldManager: string) =>
      shared.admin.request({
        method: 'PATCH',
        path: resourcePath(resourceTypes.sriovNetworkNodePolicy, { namespace: 'ai-workloads', name: 'atomic-values' }),
        query: { fieldManager, force: true },
        body: { ...withAttributes(attributes), metadata: { name: 'atomic-values', namespace: 'ai-workloads' } },
        contentType: contentTypes.apply,
      }) as Promise<KubeObject>;
    await apply({ 'example.com/tier': { int: 1 } }, 'first');
    const second = await apply({ 'example.com/tier': { string: 'gold' } }, 'second');
    expect(second['spec']).toMatchObject({ dra: { attributes: { 'example.com/tier': { string: 'gold' } } } });
  });
});

describe('what strict field validation adds', () => {
  it('refuses with 400 what a non-strict request silently prunes; unknown members of spec.dra are kept either way', async () => {
    const dra = { attributes: { 'example.com/a': { string: 'x', strings: ['x'] } }, nadName: 'x' };
    const body = nodePolicy({ dra, eSwitchParams: { multiport: true } });
    const pruned = await createPolicy(body);
    // Kept for the webhook (and reconciliation) to refuse, whatever the client's field validation (§12.2.2).
    expect((pruned['spec'] as Spec)['dra']).toEqual(dra);
    expect(pruned['spec']).not.toHaveProperty('eSwitchParams');
    const error = await createPolicy(body, 'Strict').catch((caught: unknown) => caught);
    expect(isApiError(error) ? { status: error.status, reason: error.apiStatus?.reason } : error).toEqual({ status: 400, reason: 'BadRequest' });
    expect(unknownFields(error)).toEqual(['spec.eSwitchParams']);
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
