// The chart's CRDs compared with the upstream projects' own, on a real kube-apiserver: the same requests,
// sent to both, get the same answers, except where the chart is deliberately stricter. The upstream sample
// CRs are applied with server-side apply (dry run), through the API and with kubectl.
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { type Result, validateDeviceAttributes, validateSriovResourcePolicy } from '@sriov-dra/contract';
import { parseAllDocuments } from 'yaml';
import { isApiError } from '../src/api-errors.ts';
import { type KubeObject, contentTypes } from '../src/client.ts';
import { type ResourceType, resourcePath, resourceTypes } from '../src/resources.ts';
import { controlPlaneBinaries, installCrdObjects, readCrds } from '../src/testing/index.ts';
import {
  type Body,
  type FieldValidation,
  RULES_NOT_CHECKED,
  type Spec,
  deviceAttributes,
  expectInvalid,
  nodePolicy,
  resourcePolicy,
  dryRunCreate as dryRunCreateWith,
  unknownFields,
} from './crd-requests.ts';
import { createNamespace, useControlPlane } from './fixtures.ts';

const shared = useControlPlane({ crds: true, namespace: 'ai-workloads' });

const dryRunCreate = (type: ResourceType, namespace: string | undefined, body: Body, fieldValidation?: FieldValidation): Promise<KubeObject> =>
  dryRunCreateWith(shared.admin, type, namespace, body, fieldValidation);

// The upstream projects' own CRDs (charts/sriov-dra/test-data/upstream-crds, copied with their origin) are
// installed beside the chart's under a renamed group, so every request below can be sent to both and
// compared. The samples are the upstream projects' published example CRs (test-data/upstream-samples).
describe('compared with the upstream schemas', () => {
  const DATA_DIR = fileURLToPath(new URL('../../../charts/sriov-dra/test-data/', import.meta.url));
  const SAMPLES_DIR = join(DATA_DIR, 'upstream-samples');
  const UPSTREAM = 'upstream.';

  const readers: Readonly<Record<string, (value: unknown) => Result<unknown>>> = {
    DeviceAttributes: validateDeviceAttributes,
    SriovResourcePolicy: validateSriovResourcePolicy,
  };

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
      // What the API server stores from a driver sample, the driver's contract reads.
      const contract = readers[object.kind];
      if (contract !== undefined) {
        const read = contract(await applyDryRun(type, object, 'Strict'));
        expect(read.ok ? 'ok' : read.error.message).toBe('ok');
      }
    },
  );

  // Upstream's own rules hold unchanged: the same request fails on both schemas with the same fields.
  it.each([
    [
      'a policy without nodeSelector',
      resourceTypes.sriovNetworkNodePolicy,
      { ...nodePolicy({}), spec: { resourceName: 'r', numVfs: 1, nicSelector: {} } },
      ['spec.nodeSelector'],
    ],
    [
      'policy enums and bounds',
      resourceTypes.sriovNetworkNodePolicy,
      nodePolicy({ numVfs: -1, priority: 100, mtu: 0, deviceType: 'dpdk', linkType: 'Eth', eSwitchMode: 'off', vdpaType: 'vdpa' }),
      ['spec.deviceType', 'spec.eSwitchMode', 'spec.linkType', 'spec.mtu', 'spec.numVfs', 'spec.priority', 'spec.vdpaType'],
    ],
    [
      'an OVS bridge with a bad failMode and mtuRequest',
      resourceTypes.sriovNetworkNodePolicy,
      nodePolicy({ bridge: { ovs: { bridge: { failMode: 'open' }, uplink: { interface: { mtuRequest: 'x' } } } } }),
      ['spec.bridge.ovs.bridge.failMode', 'spec.bridge.ovs.uplink.interface.mtuRequest'],
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
      ['spec.linkState', 'spec.logLevel', 'spec.minTxRate', 'spec.resourceName', 'spec.spoofChk', 'spec.trust', 'spec.vlan', 'spec.vlanProto', 'spec.vlanQoS'],
    ],
    ['a resource policy without spec', resourceTypes.sriovResourcePolicy, resourcePolicy(undefined), ['spec']],
    [
      'a node selector without terms',
      resourceTypes.sriovResourcePolicy,
      resourcePolicy({ nodeSelector: {}, configs: [{ resourceFilters: [{ linkType: 'roce' }] }] }),
      ['spec.configs[0].resourceFilters[0].linkType', 'spec.nodeSelector.nodeSelectorTerms'],
    ],
    ['device attributes without spec', resourceTypes.deviceAttributes, deviceAttributes(undefined), ['spec']],
  ])('%s: 422 with the same fields as upstream', async (_case, type, body, fields) => {
    const chart = await outcome(dryRunCreate(type, 'ai-workloads', body));
    const upstream = target('upstream', type, body);
    expect(chart).toEqual({ status: 422, fields: [...fields].sort() });
    expect(await outcome(dryRunCreate(upstream.type, 'ai-workloads', upstream.body))).toEqual(chart);
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
