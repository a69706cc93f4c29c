// The editor schemas judge a manifest as the API server does: each sample is checked by ajv against its file
// under schemas/ and sent to a real API server that has the CRDs the schemas come from, as a dry-run create
// with strict field validation (kubectl's default). Both verdicts are written out per sample; the one place
// they differ on purpose is spec.dra, whose unknown members the API server keeps for the webhook to refuse.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { type KubeClient, isApiError, resourcePath, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { REPO_ROOT } from './schema-files.ts';

jest.setTimeout(60_000);

const NAMESPACE = 'rails';
const ajv = new Ajv({ strict: true, allowUnionTypes: true });
addFormats.default(ajv);

type Verdict = 'accepted' | 'refused';

const TYPES = {
  SriovNetworkNodePolicy: { type: resourceTypes.sriovNetworkNodePolicy, schema: 'schemas/sriovnetwork.openshift.io/sriovnetworknodepolicy_v1.json' },
  SriovNetwork: { type: resourceTypes.sriovNetwork, schema: 'schemas/sriovnetwork.openshift.io/sriovnetwork_v1.json' },
  SriovNetworkNodeState: { type: resourceTypes.sriovNetworkNodeState, schema: 'schemas/sriovnetwork.openshift.io/sriovnetworknodestate_v1.json' },
  DeviceAttributes: { type: resourceTypes.deviceAttributes, schema: 'schemas/sriovnetwork.k8snetworkplumbingwg.io/deviceattributes_v1alpha1.json' },
  SriovResourcePolicy: { type: resourceTypes.sriovResourcePolicy, schema: 'schemas/sriovnetwork.k8snetworkplumbingwg.io/sriovresourcepolicy_v1alpha1.json' },
  NetworkAttachmentDefinition: { type: resourceTypes.networkAttachmentDefinition, schema: 'schemas/k8s.cni.cncf.io/networkattachmentdefinition_v1.json' },
} as const;

type Kind = keyof typeof TYPES;

const object = (kind: Kind, apiVersion: string, fields: Record<string, unknown>) => ({
  apiVersion,
  kind,
  metadata: { name: 'sample', namespace: NAMESPACE, labels: { rail: 'a' } },
  ...fields,
});

const policy = (spec: Record<string, unknown>) =>
  object('SriovNetworkNodePolicy', 'sriovnetwork.openshift.io/v1', {
    spec: { resourceName: 'rail_a', nodeSelector: { 'networking.example.com/dual-rail': 'true' }, numVfs: 8, nicSelector: { vendor: '15b3' }, ...spec },
  });
const attributes = (spec: Record<string, unknown>) => object('DeviceAttributes', 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1', { spec });
const resourcePolicy = (spec: Record<string, unknown>) => object('SriovResourcePolicy', 'sriovnetwork.k8snetworkplumbingwg.io/v1alpha1', { spec });
const network = (spec: Record<string, unknown>) => object('SriovNetwork', 'sriovnetwork.openshift.io/v1', { spec: { resourceName: 'rail_a', ...spec } });
const nad = (spec: Record<string, unknown>) => object('NetworkAttachmentDefinition', 'k8s.cni.cncf.io/v1', { spec });

const DRA = { attributes: { 'networking.example.com/rail': { string: 'rail-a' }, 'networking.example.com/lanes': { int: 0 } } };

/** Sample, and the verdicts of the editor schema and of the API server, written out. */
interface Sample {
  readonly kind: Kind;
  readonly [field: string]: unknown;
}

const CASES: readonly [string, Sample, { editor: Verdict; apiServer: Verdict }][] = [
  ['a policy with spec.dra', policy({ dra: DRA }), { editor: 'accepted', apiServer: 'accepted' }],
  ['a policy with a misspelt spec field', policy({ numVfz: 8 }), { editor: 'refused', apiServer: 'refused' }],
  [
    'a policy with a misspelt metadata field',
    { ...policy({}), metadata: { name: 'sample', lables: { rail: 'a' } } },
    { editor: 'refused', apiServer: 'refused' },
  ],
  ['a policy with priority 100', policy({ priority: 100 }), { editor: 'refused', apiServer: 'refused' }],
  [
    'a policy with a spec.dra string of 65 characters',
    policy({ dra: { attributes: { 'networking.example.com/rail': { string: 'a'.repeat(65) } } } }),
    { editor: 'refused', apiServer: 'refused' },
  ],
  // Kept by the API server so that the webhook refuses it (no webhook runs here); the editor refuses it at once.
  ['a policy with spec.dra.atributes', policy({ dra: { atributes: DRA.attributes } }), { editor: 'refused', apiServer: 'accepted' }],
  ['DeviceAttributes with a list value', attributes({ attributes: { tier: { strings: ['gold'] } } }), { editor: 'accepted', apiServer: 'accepted' }],
  ['DeviceAttributes with a misspelt spec field', attributes({ attributez: {} }), { editor: 'refused', apiServer: 'refused' }],
  ['DeviceAttributes with an unknown value member', attributes({ attributes: { tier: { str: 'gold' } } }), { editor: 'refused', apiServer: 'refused' }],
  [
    'a SriovResourcePolicy with filters and a selector',
    resourcePolicy({ configs: [{ resourceFilters: [{ vendors: ['15b3'], pfNames: ['ens1f0'] }], deviceAttributesSelector: { matchLabels: { rail: 'a' } } }] }),
    { editor: 'accepted', apiServer: 'accepted' },
  ],
  [
    'a SriovResourcePolicy with an uppercase vendor ID',
    resourcePolicy({ configs: [{ resourceFilters: [{ vendors: ['15B3'] }] }] }),
    { editor: 'refused', apiServer: 'refused' },
  ],
  [
    'a SriovResourcePolicy with an unknown operator',
    resourcePolicy({ nodeSelector: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'Is' }] }] } }),
    { editor: 'refused', apiServer: 'refused' },
  ],
  ['a SriovNetwork with VLAN 100', network({ vlan: 100 }), { editor: 'accepted', apiServer: 'accepted' }],
  ['a SriovNetwork with VLAN 5000', network({ vlan: 5000 }), { editor: 'refused', apiServer: 'refused' }],
  [
    'a SriovNetwork without resourceName',
    object('SriovNetwork', 'sriovnetwork.openshift.io/v1', { spec: { vlan: 100 } }),
    { editor: 'refused', apiServer: 'refused' },
  ],
  [
    'a SriovNetworkNodeState with fields the config daemon writes undeclared',
    object('SriovNetworkNodeState', 'sriovnetwork.openshift.io/v1', { spec: { interfaces: [{ name: 'ens1f0' }] }, status: { lastSyncError: '' } }),
    { editor: 'accepted', apiServer: 'accepted' },
  ],
  ['a NetworkAttachmentDefinition', nad({ config: '{"cniVersion":"1.0.0","type":"sriov"}' }), { editor: 'accepted', apiServer: 'accepted' }],
  ['a NetworkAttachmentDefinition with a misspelt field', nad({ confg: '{}' }), { editor: 'refused', apiServer: 'refused' }],
];

let cp: ControlPlane;
let client: KubeClient;

beforeAll(async () => {
  cp = await startControlPlane();
  client = cp.adminClient;
  await installCrds(client);
  await createNamespace(client, NAMESPACE);
}, 120_000);

afterAll(async () => {
  await cp.stop();
});

function editorVerdict(kind: Kind, sample: unknown): Verdict {
  const validate =
    ajv.getSchema(TYPES[kind].schema) ??
    ajv.addSchema(JSON.parse(readFileSync(join(REPO_ROOT, TYPES[kind].schema), 'utf8')) as object, TYPES[kind].schema).getSchema(TYPES[kind].schema);
  if (validate === undefined) throw new Error(`${TYPES[kind].schema} does not compile`);
  return validate(sample) ? 'accepted' : 'refused';
}

async function apiServerVerdict(kind: Kind, sample: unknown): Promise<Verdict> {
  try {
    await client.request({
      method: 'POST',
      path: resourcePath(TYPES[kind].type, { namespace: NAMESPACE }),
      query: { dryRun: 'All', fieldValidation: 'Strict' },
      body: sample,
    });
    return 'accepted';
  } catch (error) {
    if (isApiError(error, 'Invalid', 'BadRequest')) return 'refused';
    throw error;
  }
}

describe('the editor schemas and the API server', () => {
  it.each(CASES)('judge %s', async (_name, sample, expected) => {
    const kind = sample.kind;
    expect({ editor: editorVerdict(kind, sample), apiServer: await apiServerVerdict(kind, sample) }).toEqual(expected);
  });
});
