// The webhook registered with a real API server (the chart's CRDs installed): every object of the shared
// admission cases is created through the API server, which must refuse it with the expected HTTP status,
// naming the field, from the expected layer (strict field validation, the CRD schema and CEL rules, or
// the webhook) — or store it. With the CRD's spec.dra schema relaxed, as on a cluster whose CRD predates
// the extension, the webhook alone must refuse every one of them with the admission core's finding.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { parse } from 'yaml';
import { expectedError, expectsValid, loadFixtures } from '@sriov-dra/contract/fixtures';
import { type KubeClient, type KubeObject, contentTypes, isApiError, resourcePath, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, LocalPki, createNamespace, installCrds, startControlPlane, waitFor } from '@sriov-dra/k8s/testing';
import { validateManifests } from '../../src/validate/validate-manifests.ts';
import { type WebhookServer, WEBHOOK_PATHS, startWebhookServer } from '../../src/webhook/webhook-server.ts';
import { ADMISSION_CASES, API_VERSION, type AdmissionCase, type Layer, OPERATOR_NAMESPACE, TENANT_NAMESPACE } from '../admission/admission-cases.ts';

type Kind = AdmissionCase['object']['kind'];

const WEBHOOK_NAMES: Readonly<Record<Kind, string>> = {
  SriovNetworkNodePolicy: 'validate-sriovnetworknodepolicy.sriovnetwork.openshift.io',
  SriovNetwork: 'validate-sriovnetwork.sriovnetwork.openshift.io',
};
const RESOURCES = { SriovNetworkNodePolicy: resourceTypes.sriovNetworkNodePolicy, SriovNetwork: resourceTypes.sriovNetwork } as const;

let cp: ControlPlane;
let client: KubeClient;
let webhook: WebhookServer;
let pkiDir: string;

/** What the API server did with a create: stored it, or refused it with a status and message. */
type Outcome = { readonly stored: true } | { readonly stored: false; readonly status: number; readonly message: string; readonly causes: readonly unknown[] };

/** Creates the object (kubectl's strict field validation) and deletes it again once stored, so every attempt starts alike. */
async function attempt(object: AdmissionCase['object']): Promise<Outcome> {
  const type = RESOURCES[object.kind];
  const at = { namespace: object.metadata.namespace, name: object.metadata.name };
  try {
    await client.create(type, object, { namespace: at.namespace });
  } catch (error) {
    if (!isApiError(error) || error.status === 0) throw error;
    return { stored: false, status: error.status, message: error.apiStatus?.message ?? '', causes: error.apiStatus?.details?.causes ?? [] };
  }
  await client.delete(type, at);
  return { stored: true };
}

/** The layer a refusal came from, told apart by the API server's own wording for each. */
function layerOf(kind: Kind, name: string, message: string): Layer | 'unknown' {
  if (message.startsWith(`admission webhook "${WEBHOOK_NAMES[kind]}" denied the request: `)) return 'webhook';
  if (message.includes('strict decoding error: unknown field')) return 'field-validation';
  if (message.startsWith(`${kind}.sriovnetwork.openshift.io "${name}" is invalid: `)) return 'schema';
  return 'unknown';
}

/** The outcome in the terms a verdict states: status, layer, and whether the message names the field (and code). */
function observed(object: AdmissionCase['object'], outcome: Outcome, field: string, code: string): Record<string, unknown> {
  if (outcome.stored) return { stored: true };
  const layer = layerOf(object.kind, object.metadata.name, outcome.message);
  const named = layer === 'field-validation' ? outcome.message.includes(`unknown field "${field}"`) : outcome.message.includes(`${field}: `);
  return {
    stored: false,
    status: outcome.status,
    layer,
    namesField: named,
    ...(layer === 'webhook' ? { namesCode: outcome.message.includes(`${field}: ${code}: `) } : {}),
    ...(layer === 'unknown' ? { message: outcome.message } : {}),
  };
}

function expected(layer: Layer, status: number): Record<string, unknown> {
  return { stored: false, status, layer, namesField: true, ...(layer === 'webhook' ? { namesCode: true } : {}) };
}

function webhookConfiguration(port: number, caBundle: string): Record<string, unknown> {
  const hook = (kind: Kind, resource: string) => ({
    name: WEBHOOK_NAMES[kind],
    clientConfig: { url: `https://127.0.0.1:${port}${WEBHOOK_PATHS[kind]}`, caBundle },
    rules: [{ apiGroups: ['sriovnetwork.openshift.io'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: [resource], scope: 'Namespaced' }],
    failurePolicy: 'Fail',
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    timeoutSeconds: 5,
  });
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'sriov-dra-node-policy-operator' },
    webhooks: [hook('SriovNetworkNodePolicy', 'sriovnetworknodepolicies'), hook('SriovNetwork', 'sriovnetworks')],
  };
}

const caseOf = (title: string): AdmissionCase => {
  const found = ADMISSION_CASES.find((entry) => entry.title === title);
  if (found === undefined) throw new Error(`no admission case "${title}"`);
  return found;
};

/** Retries a create only the webhook can refuse until it does: the API server picks configuration changes up asynchronously. */
async function untilRefusedByWebhook(title: string): Promise<void> {
  const { object } = caseOf(title);
  await waitFor(
    `the webhook refusing "${title}"`,
    async () => {
      const outcome = await attempt(object);
      return !outcome.stored && layerOf(object.kind, object.metadata.name, outcome.message) === 'webhook';
    },
    { timeoutMs: 30_000 },
  );
}

const STORED_BEFORE = { namespace: TENANT_NAMESPACE, name: 'stored-before-the-webhook' };

/** The policy with five independent faults the validate command reports in one run (test/fixtures). */
const FIVE_FAULTS = parse(readFileSync(new URL('../fixtures/five-faults.yaml', import.meta.url), 'utf8'), { version: '1.1' }) as AdmissionCase['object'];

/** Each `<field>: <code>` a refusal's message names, in order: `; `-separated findings after the object. */
function namedFindings(message: string): string[] {
  return [...message.matchAll(/(?:: |; )(spec\.[^ ]*?): ([A-Za-z]+): /g)].map(([, field, code]) => `${field ?? ''}: ${code ?? ''}`);
}

beforeAll(async () => {
  cp = await startControlPlane();
  client = cp.adminClient;
  await installCrds(client);
  for (const namespace of [OPERATOR_NAMESPACE, TENANT_NAMESPACE]) await createNamespace(client, namespace);
  // Invalid, but stored while no webhook was registered: the ratchet test below edits it.
  await client.create(
    resourceTypes.sriovNetwork,
    { apiVersion: API_VERSION, kind: 'SriovNetwork', metadata: STORED_BEFORE, spec: { resourceName: 'rail_a', networkNamespace: 'team-b' } },
    { namespace: STORED_BEFORE.namespace },
  );

  pkiDir = mkdtempSync(join(tmpdir(), 'sriov-dra-webhook-pki-'));
  const pki = new LocalPki(pkiDir);
  const serving = pki.serving('node-policy-operator-webhook');
  webhook = await startWebhookServer({
    host: '127.0.0.1',
    port: 0,
    certFile: serving.cert,
    keyFile: serving.key,
    operatorNamespace: OPERATOR_NAMESPACE,
    logger: pino({ level: 'silent' }),
  });
  await client.create(resourceTypes.validatingWebhookConfiguration, webhookConfiguration(webhook.port, readFileSync(pki.caCert).toString('base64')));
  await untilRefusedByWebhook('the default policy with spec.dra attributes');
}, 120_000);

afterAll(async () => {
  await webhook.close();
  await cp.stop();
  rmSync(pkiDir, { recursive: true, force: true });
});

describe('admission through the API server, chart CRDs', () => {
  it.each(ADMISSION_CASES.map((entry) => [entry.title, entry] as const))('%s', async (_title, { object, verdict }) => {
    const outcome = await attempt(object);
    if (verdict.allowed) {
      expect(observed(object, outcome, '', '')).toEqual({ stored: true });
      return;
    }
    const { apiServer } = verdict;
    expect(observed(object, outcome, apiServer.field, verdict.code)).toEqual(expected(apiServer.layer, apiServer.status));
    if (apiServer.layer === 'webhook' && !outcome.stored) {
      // The API server passes the webhook's status on: one cause per finding, with its field.
      expect(outcome.causes).toEqual(
        [verdict, ...verdict.more].map(({ code, field }) => ({ reason: 'FieldValueInvalid', field, message: expect.stringMatching(new RegExp(`^${code}: `)) })),
      );
    }
  });

  it('denies a SriovNetwork with three faults once, naming every field in the message and as causes', async () => {
    const object = {
      apiVersion: API_VERSION,
      kind: 'SriovNetwork' as const,
      metadata: { name: 'three-faults', namespace: TENANT_NAMESPACE },
      spec: { resourceName: 'rail_a', networkNamespace: 'team-b', ipam: '{"type": host-local}', metaPlugins: '{"type":"tuning"},' },
    };
    const outcome = await attempt(object);
    expect(outcome.stored ? 'stored' : [outcome.status, layerOf('SriovNetwork', 'three-faults', outcome.message), namedFindings(outcome.message)]).toEqual([
      422,
      'webhook',
      ['spec.networkNamespace: NetworkAttachmentDefinitionInvalid', 'spec.ipam: MalformedSriovNetworkJson', 'spec.metaPlugins: MalformedSriovNetworkJson'],
    ]);
    expect(outcome.stored ? [] : outcome.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.networkNamespace',
        message: expect.stringMatching(/^NetworkAttachmentDefinitionInvalid: is allowed only .+ \u2014 /),
      },
      { reason: 'FieldValueInvalid', field: 'spec.ipam', message: expect.stringMatching(/^MalformedSriovNetworkJson: is not valid JSON .+ \u2014 /) },
      { reason: 'FieldValueInvalid', field: 'spec.metaPlugins', message: expect.stringMatching(/^MalformedSriovNetworkJson: is not a valid list .+ \u2014 /) },
    ]);
  });

  it('refuses the five-fault policy in its CRD schema, before the webhook is asked: the reason the validate command reports both layers', async () => {
    const outcome = await attempt(FIVE_FAULTS);
    expect(outcome.stored ? 'stored' : [outcome.status, layerOf('SriovNetworkNodePolicy', 'rail-a', outcome.message)]).toEqual([422, 'schema']);
    // Two of the five faults, and a note that the rest went unchecked: the CEL rules wait for a type-correct
    // object, and the webhook for one the schema admits. The API server lists its causes in no fixed order.
    expect(outcome.stored ? [] : outcome.causes.map((cause) => String((cause as { field?: unknown }).field)).sort()).toEqual([
      '<nil>',
      'spec.dra.attributes.example.com/rail.int',
      'spec.numVfs',
    ]);
    expect(outcome.stored ? '' : outcome.message).toContain('some validation rules were not checked because the object was invalid');
  });

  it('refuses an UPDATE that adds spec.dra to the default policy', async () => {
    const { object } = caseOf('the default policy without spec.dra');
    const at = { namespace: OPERATOR_NAMESPACE, name: 'default' };
    await client.create(resourceTypes.sriovNetworkNodePolicy, object, { namespace: OPERATOR_NAMESPACE });
    try {
      const update = client.patch(resourceTypes.sriovNetworkNodePolicy, at, { spec: { dra: {} } }, contentTypes.mergePatch);
      await expect(update).rejects.toMatchObject({ status: 422, apiStatus: { message: expect.stringContaining('spec.dra: DRABlockOnDefaultPolicy: ') } });
      await expect(update).rejects.toMatchObject({ apiStatus: { message: expect.stringMatching(/^admission webhook "validate-sriovnetworknodepolicy\./) } });
    } finally {
      await client.delete(resourceTypes.sriovNetworkNodePolicy, at);
    }
  });

  it('refuses an UPDATE that sets networkNamespace on a SriovNetwork outside the operator namespace', async () => {
    const at = { namespace: TENANT_NAMESPACE, name: 'rail-b' };
    await client.create(
      resourceTypes.sriovNetwork,
      { apiVersion: API_VERSION, kind: 'SriovNetwork', metadata: at, spec: { resourceName: 'rail_b' } },
      { namespace: at.namespace },
    );
    try {
      await expect(client.patch(resourceTypes.sriovNetwork, at, { spec: { networkNamespace: 'team-b' } }, contentTypes.mergePatch)).rejects.toMatchObject({
        status: 422,
        apiStatus: { message: expect.stringContaining(`SriovNetwork ${TENANT_NAMESPACE}/rail-b: spec.networkNamespace: NetworkAttachmentDefinitionInvalid: `) },
      });
    } finally {
      await client.delete(resourceTypes.sriovNetwork, at);
    }
  });

  it('keeps an object stored before the webhook editable while its spec is unchanged, but refuses a new invalid spec', async () => {
    const labelled = await client.patch(resourceTypes.sriovNetwork, STORED_BEFORE, { metadata: { labels: { tier: 'gold' } } }, contentTypes.mergePatch);
    expect(labelled.metadata.labels).toEqual({ tier: 'gold' });
    await expect(client.patch(resourceTypes.sriovNetwork, STORED_BEFORE, { spec: { vlan: 10 } }, contentTypes.mergePatch)).rejects.toMatchObject({
      status: 422,
      apiStatus: { message: expect.stringContaining('spec.networkNamespace: NetworkAttachmentDefinitionInvalid: ') },
    });
    // DELETE is not even sent to the webhook; a refused object can always be removed.
    await client.delete(resourceTypes.sriovNetwork, STORED_BEFORE);
  });
});

describe('admission through the API server, from a client that asks for no field validation', () => {
  // Without fieldValidation=Strict the API server prunes unknown fields silently; the CRD keeps those of
  // spec.dra, so the webhook sees and refuses them (§12.2.2) instead of a typo being applied as absent.
  it.each([
    ['a misspelt attributes member', { atributes: { 'example.com/x': { int: 1 } } }, 'spec.dra.atributes'],
    ['a list value beside a scalar one', { attributes: { 'example.com/x': { string: 'a', strings: ['a'] } } }, 'spec.dra.attributes["example.com/x"].strings'],
  ])('refuses %s rather than storing it pruned', async (_label, dra, field) => {
    const { object } = caseOf('no spec.dra');
    const body = { ...object, metadata: { name: 'lenient-client', namespace: TENANT_NAMESPACE }, spec: { ...object.spec, dra } };
    const type = resourceTypes.sriovNetworkNodePolicy;
    const created = client.request({ method: 'POST', path: resourcePath(type, { namespace: TENANT_NAMESPACE }), body });
    await expect(created).rejects.toMatchObject({
      status: 422,
      apiStatus: { message: expect.stringContaining(`: ${field}: InvalidDRAAttribute: `), details: { causes: [{ field }] } },
    });
    await expect(created).rejects.toMatchObject({ apiStatus: { message: expect.stringMatching(/^admission webhook "validate-sriovnetworknodepolicy\./) } });
  });
});

describe('the validate command and the API server’s dry run agree', () => {
  // Generated manifests: a valid policy and SriovNetwork with one field replaced by each of a set of values
  // of every JSON type, in range and out of it, plus the shared cases. Each is judged by validateManifests
  // and by a server-side dry run (kubectl's strict field validation, the webhook asked) on the same objects.
  const VALUES: readonly unknown[] = ['16', 16, -1, 0, 100, 4095, 1.5, true, [], ['ens1f0'], {}, { a: 'b' }, 'x', 'sriov.vfs', 'netdevice', 'on', '', null];
  const POLICY_FIELDS = [
    'numVfs',
    'priority',
    'mtu',
    'resourceName',
    'deviceType',
    'linkType',
    'isRdma',
    'eSwitchMode',
    'nodeSelector',
    'nicSelector',
    'nicSelector.pfNames',
    'nicSelector.vendor',
    'bridge',
    'numVf',
    'dra',
  ];
  const NETWORK_FIELDS = [
    'resourceName',
    'networkNamespace',
    'vlan',
    'vlanQoS',
    'vlanProto',
    'spoofChk',
    'logLevel',
    'minTxRate',
    'ipam',
    'capabilities',
    'vlans',
  ];

  function withField(object: AdmissionCase['object'], path: string, value: unknown, serial: number): AdmissionCase['object'] {
    const spec = structuredClone(object.spec);
    const names = path.split('.');
    let parent: Record<string, unknown> = spec;
    for (const name of names.slice(0, -1)) parent = parent[name] as Record<string, unknown>;
    parent[names.at(-1) ?? ''] = value;
    return { ...object, metadata: { ...object.metadata, name: `generated-${serial}` }, spec };
  }

  const generated: AdmissionCase['object'][] = [];
  for (const [base, fields] of [
    [caseOf('no spec.dra').object, POLICY_FIELDS],
    [caseOf('a SriovNetwork with ipam and metaPlugins').object, NETWORK_FIELDS],
  ] as const) {
    for (const field of fields) for (const value of VALUES) generated.push(withField(base, field, value, generated.length));
  }
  const objects = [...ADMISSION_CASES.map((entry) => entry.object), ...generated];

  it(`gives each of ${objects.length} objects the API server's verdict, naming the fields it names`, async () => {
    const disagreements: unknown[] = [];
    let refusedByBoth = 0;
    for (const object of objects) {
      const report = validateManifests([{ file: 'generated.yaml', index: 1, value: object }], {
        operatorNamespace: OPERATOR_NAMESPACE,
        namespace: TENANT_NAMESPACE,
      });
      const type = RESOURCES[object.kind];
      const outcome = await client
        .request({
          method: 'POST',
          path: resourcePath(type, { namespace: object.metadata.namespace }),
          query: { dryRun: 'All', fieldValidation: 'Strict' },
          body: object,
        })
        .then(
          () => undefined,
          (error: unknown) => {
            if (!isApiError(error) || error.status === 0) throw error;
            return error.apiStatus?.message ?? '';
          },
        );
      // Schema findings name fields as the API server does; spec.dra findings use the admission core's quoted keys.
      const unnamed = report.findings
        .filter((finding) => finding.code === 'CustomResourceSchemaViolation' && outcome !== undefined && !outcome.includes(finding.field))
        .map((finding) => finding.field);
      if ((outcome === undefined) !== (report.findings.length === 0) || unnamed.length > 0) {
        disagreements.push({ spec: object.spec, validate: report.findings.map((finding) => finding.message), apiServer: outcome ?? 'stored' });
      }
      if (outcome !== undefined && report.findings.length > 0) refusedByBoth += 1;
    }
    expect(disagreements).toEqual([]);
    // The generated set exercises both verdicts in earnest.
    expect(refusedByBoth).toBeGreaterThan(objects.length / 3);
    expect(refusedByBoth).toBeLessThan(objects.length);
  }, 120_000);
});

describe('admission through the API server, spec.dra unchecked by the CRD schema', () => {
  // The cases about spec.dra; the rest of the policy is the schema's either way.
  const policies = ADMISSION_CASES.filter(
    (entry) => entry.object.kind === 'SriovNetworkNodePolicy' && (entry.verdict.allowed || entry.verdict.field.startsWith('spec.dra')),
  );

  beforeAll(async () => {
    // The node policy CRD as a cluster would have it before the spec.dra extension's schema: anything goes.
    const crdType = resourceTypes.customResourceDefinition;
    const crd = await client.get<
      KubeObject & { spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } } }[] } }
    >(crdType, { name: 'sriovnetworknodepolicies.sriovnetwork.openshift.io' });
    for (const version of crd.spec.versions)
      version.schema.openAPIV3Schema.properties.spec.properties['dra'] = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    await client.request({ method: 'PUT', path: resourcePath(crdType, { name: crd.metadata.name }), body: crd });
    await untilRefusedByWebhook('a value with two members');
  }, 60_000);

  it.each(policies.map((entry) => [entry.title, entry] as const))('%s', async (_title, { object, verdict }) => {
    const outcome = await attempt(object);
    if (verdict.allowed) expect(observed(object, outcome, '', '')).toEqual({ stored: true });
    else expect(observed(object, outcome, verdict.field, verdict.code)).toEqual(expected('webhook', 422));
  });

  it('denies the five-fault policy, its schema fault mended, once, naming its four spec.dra faults in the message and as causes', async () => {
    const object = { ...FIVE_FAULTS, spec: { ...FIVE_FAULTS.spec, numVfs: 8 } };
    const outcome = await attempt(object);
    // The API server hands the webhook the attribute map with its keys sorted, as Go encodes a map.
    const fields = [
      'spec.dra.atributes',
      'spec.dra.attributes["example.com/rail"].int',
      'spec.dra.attributes["resource.kubernetes.io/pcieRoot"]',
      'spec.dra.attributes["tier"]',
    ];
    const codes = ['InvalidDRAAttribute', 'InvalidDRAAttribute', 'ReservedDRAAttribute', 'InvalidDRAAttribute'];
    expect(outcome.stored ? 'stored' : [outcome.status, layerOf('SriovNetworkNodePolicy', 'rail-a', outcome.message), namedFindings(outcome.message)]).toEqual([
      422,
      'webhook',
      fields.map((field, index) => `${field}: ${codes[index] ?? ''}`),
    ]);
    expect(outcome.stored ? [] : outcome.causes).toEqual(
      fields.map((field, index) => ({ reason: 'FieldValueInvalid', field, message: expect.stringMatching(new RegExp(`^${codes[index] ?? ''}: .+ \u2014 `)) })),
    );
  });

  it('gives every shared node-policy-dra contract fixture its stated verdict', async () => {
    const fixtures = loadFixtures('node-policy-dra');
    expect(fixtures.length).toBeGreaterThan(10);
    const verdicts: Record<string, string> = {};
    const stated: Record<string, string> = {};
    for (const fixture of fixtures) {
      const object = { ...caseOf('no spec.dra').object, metadata: { name: 'contract-fixture', namespace: TENANT_NAMESPACE } };
      const outcome = await attempt({ ...object, spec: { ...object.spec, dra: fixture.input } });
      // Each cause of the webhook's refusal starts with its finding's code; a fixture states the code of its fault.
      const codes = outcome.stored ? [] : outcome.causes.map((cause) => String((cause as { message?: unknown }).message).split(':')[0]);
      verdicts[fixture.id] = outcome.stored ? 'valid' : [...new Set(codes)].join(',');
      stated[fixture.id] = expectsValid(fixture) ? 'valid' : (expectedError(fixture) ?? '');
    }
    expect(verdicts).toEqual(stated);
  });
});
