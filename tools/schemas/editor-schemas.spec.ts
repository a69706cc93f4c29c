// The editor JSON Schemas under schemas/: what the CRDs generate, valid draft-07 JSON Schema, and usable by a
// real validator the way yaml-language-server uses them: a manifest the API server accepts passes, a misspelt
// or out-of-range field fails at the field.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { REPO_ROOT, committedSchemaFiles, generatedSchemaFiles } from './schema-files.ts';

const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
addFormats.default(ajv);

function validator(path: string): ValidateFunction {
  return ajv.compile(JSON.parse(readFileSync(join(REPO_ROOT, path), 'utf8')) as object);
}

/** Each error as "<instance path> <message>", the way an editor marks it. */
function errorsOf(validate: ValidateFunction, object: unknown): string[] {
  validate(object);
  return (validate.errors ?? []).map((error: ErrorObject) => {
    const extra = error.keyword === 'additionalProperties' ? ` (${(error.params as { additionalProperty: string }).additionalProperty})` : '';
    return `${error.instancePath || '/'} ${error.message ?? error.keyword}${extra}`;
  });
}

const POLICY = 'schemas/sriovnetwork.openshift.io/sriovnetworknodepolicy_v1.json';
const DEVICE_ATTRIBUTES = 'schemas/sriovnetwork.k8snetworkplumbingwg.io/deviceattributes_v1alpha1.json';
const RESOURCE_POLICY = 'schemas/sriovnetwork.k8snetworkplumbingwg.io/sriovresourcepolicy_v1alpha1.json';
const NODE_STATE = 'schemas/sriovnetwork.openshift.io/sriovnetworknodestate_v1.json';

const policy = (spec: Record<string, unknown> = {}) => ({
  apiVersion: 'sriovnetwork.openshift.io/v1',
  kind: 'SriovNetworkNodePolicy',
  metadata: { name: 'rail-a', namespace: 'sriov-network-operator', labels: { rail: 'a' } },
  spec: {
    resourceName: 'rail_a',
    nodeSelector: { 'networking.example.com/dual-rail': 'true' },
    numVfs: 8,
    nicSelector: { vendor: '15b3', pfNames: ['ens1f0'] },
    dra: {
      attributes: {
        'networking.example.com/rail': { string: 'rail-a' },
        'networking.example.com/lanes': { int: 0 },
        'networking.example.com/lossless': { bool: false },
        'networking.example.com/firmware': { version: '22.39.1002' },
        'sriovnetwork.openshift.io/sriovNetworkName': { string: 'rail-a-net' },
        'sriovnetwork.openshift.io/sriovNetworkNamespace': { string: 'sriov-network-operator' },
      },
    },
    ...spec,
  },
});

const deviceAttributes = (attributes: Record<string, unknown>) => ({
  apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1',
  kind: 'DeviceAttributes',
  metadata: { name: 'rail-a', namespace: 'dra-driver-sriov', labels: { rail: 'a' } },
  spec: { attributes },
});

describe('schemas/', () => {
  it('holds what the CRDs generate, one file per kind and version (else run npm run schemas)', async () => {
    const generated = await generatedSchemaFiles();
    expect(committedSchemaFiles()).toEqual([
      'schemas/k8s.cni.cncf.io/networkattachmentdefinition_v1.json',
      DEVICE_ATTRIBUTES,
      RESOURCE_POLICY,
      'schemas/sriovnetwork.openshift.io/sriovnetwork_v1.json',
      POLICY,
      NODE_STATE,
    ]);
    for (const [path, text] of generated) expect({ path, text: readFileSync(join(REPO_ROOT, path), 'utf8') }).toEqual({ path, text });
  });

  it.each(committedSchemaFiles())('%s is draft-07 JSON Schema a strict validator compiles', (path) => {
    const schema = JSON.parse(readFileSync(join(REPO_ROOT, path), 'utf8')) as { $schema: string };
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(ajv.validateSchema(schema)).toBe(true);
    expect(() => validator(path)).not.toThrow();
  });
});

describe('SriovNetworkNodePolicy schema', () => {
  const validate = validator(POLICY);

  it('accepts a policy with every kind of spec.dra value and the SriovNetwork reference', () => {
    expect(errorsOf(validate, policy())).toEqual([]);
  });

  it('marks a misspelt spec.dra member, which the webhook refuses rather than prune', () => {
    expect(errorsOf(validate, policy({ dra: { atributes: { 'networking.example.com/rail': { string: 'a' } } } }))).toEqual([
      '/spec/dra must NOT have additional properties (atributes)',
    ]);
  });

  it('marks a list value, which spec.dra does not offer, and a string over 64 characters', () => {
    expect(
      errorsOf(
        validate,
        policy({ dra: { attributes: { 'networking.example.com/rails': { strings: ['a'] }, 'networking.example.com/rail': { string: 'a'.repeat(65) } } } }),
      ),
    ).toEqual([
      '/spec/dra/attributes/networking.example.com~1rails must NOT have additional properties (strings)',
      '/spec/dra/attributes/networking.example.com~1rail/string must NOT have more than 64 characters',
    ]);
  });

  it('marks an integer beyond ±(2^53-1), a version that is not semantic, and more than 32 attributes', () => {
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, index) => [`networking.example.com/a${index}`, { int: index }]));
    expect(errorsOf(validate, policy({ dra: { attributes: { 'networking.example.com/big': { int: 2 ** 53 } } } }))).toEqual([
      '/spec/dra/attributes/networking.example.com~1big/int must be <= 9007199254740991',
    ]);
    expect(errorsOf(validate, policy({ dra: { attributes: { 'networking.example.com/fw': { version: '1.0' } } } }))).toEqual([
      '/spec/dra/attributes/networking.example.com~1fw/version must match pattern "^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)(-(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)(\\.(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*)?(\\+[0-9a-zA-Z-]+(\\.[0-9a-zA-Z-]+)*)?$"',
    ]);
    expect(errorsOf(validate, policy({ dra: { attributes: many } }))).toEqual(['/spec/dra/attributes must NOT have more than 32 properties']);
  });

  it('marks an unknown field, a missing required one, an enum value and the wrong apiVersion', () => {
    const { resourceName, ...withoutResourceName } = policy().spec;
    expect(resourceName).toBe('rail_a');
    expect(
      errorsOf(validate, {
        ...policy(),
        apiVersion: 'sriovnetwork.openshift.io/v2',
        spec: { ...withoutResourceName, deviceType: 'vfio', numVfz: 8 },
      }),
    ).toEqual([
      '/apiVersion must be equal to one of the allowed values',
      "/spec must have required property 'resourceName'",
      '/spec must NOT have additional properties (numVfz)',
      '/spec/deviceType must be equal to one of the allowed values',
    ]);
  });
});

describe('the driver kinds and a kind that keeps unknown fields', () => {
  it('DeviceAttributes: accepts a template reference and a list value, marks a wrong kind and an unknown spec field', () => {
    const validate = validator(DEVICE_ATTRIBUTES);
    expect(
      errorsOf(
        validate,
        deviceAttributes({
          'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName': { string: 'rail-a-net' },
          tier: { strings: ['gold', 'silver'] },
        }),
      ),
    ).toEqual([]);
    expect(errorsOf(validate, { ...deviceAttributes({}), kind: 'DeviceAttribute', spec: { attributes: {}, attributez: {} } })).toEqual([
      '/kind must be equal to one of the allowed values',
      '/spec must NOT have additional properties (attributez)',
    ]);
  });

  it('SriovResourcePolicy: marks a vendor ID that is not 4 lowercase hex digits', () => {
    const validate = validator(RESOURCE_POLICY);
    const body = (vendors: string[]) => ({
      apiVersion: 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1',
      kind: 'SriovResourcePolicy',
      metadata: { name: 'node-a' },
      spec: { configs: [{ resourceFilters: [{ vendors, pfNames: ['ens1f0'] }], deviceAttributesSelector: { matchLabels: { rail: 'a' } } }] },
    });
    expect(errorsOf(validate, body(['15b3']))).toEqual([]);
    expect(errorsOf(validate, body(['15B3']))).toEqual(['/spec/configs/0/resourceFilters/0/vendors/0 must match pattern "^[0-9a-f]{4}$"']);
  });

  it('SriovNetworkNodeState: accepts the fields the config daemon writes that the CRD keeps undeclared', () => {
    const validate = validator(NODE_STATE);
    expect(
      errorsOf(validate, {
        apiVersion: 'sriovnetwork.openshift.io/v1',
        kind: 'SriovNetworkNodeState',
        metadata: { name: 'node-a', namespace: 'sriov-network-operator' },
        spec: { interfaces: [{ name: 'ens1f0', numVfs: 8 }] },
        status: {
          syncStatus: 'Succeeded',
          lastSyncError: '',
          interfaces: [{ pciAddress: '0000:3b:00.0', mtu: 1500, Vfs: [{ pciAddress: '0000:3b:00.2', vfID: 0, mac: 'x' }] }],
        },
      }),
    ).toEqual([]);
  });
});
