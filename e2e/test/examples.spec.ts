// examples/ as a user applies them: every file of each example, in order, through the real kubectl's
// `apply --dry-run=server --validate=strict` against a real API server that has the CRDs an installation
// has (`crds apply`'s and the chart's), so that a field the API server or one of the CRD schemas refuses
// — a misspelt one included — fails here. Only what later files need to exist is created for real: the
// operator namespace (the chart's installation needs it first) and each example's namespace file. The
// editor schemas the files' modelines name must exist and accept them too.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isApiError, resourceTypes } from '@sriov-dra/k8s';
import { applyUpstreamOwnedCrds, crdsApplySucceeded, formatCrdsReport } from '@sriov-dra/node-policy-operator';
import { type ControlPlane, controlPlaneBinaries, createNamespace, installCrdObjects, readCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse, parseAllDocuments } from 'yaml';
import { EXAMPLES_DIR, type ExampleName, exampleFiles } from '../src/scenarios/example-manifests.ts';
import { OPERATOR_NAMESPACE } from '../src/stack/stack.ts';

/** What `kubectl apply -o name` reports for each example, in apply order. */
const APPLIED: Readonly<Record<ExampleName, readonly string[]>> = {
  'one-network': [
    'namespace/ai-workloads',
    'networkattachmentdefinition.k8s.cni.cncf.io/rail-a-net',
    'sriovresourcepolicy.sriovnetwork.k8snetworkplumbingwg.io/single-network-policy',
    'deviceclass.resource.k8s.io/sriov-one-network',
    'resourceclaimtemplate.resource.k8s.io/one-network-vf',
    'pod/one-vf',
  ],
  'gpu-nic-pairs': [
    'namespace/ai-workloads',
    'networkattachmentdefinition.k8s.cni.cncf.io/rail-a-net',
    'networkattachmentdefinition.k8s.cni.cncf.io/rail-b-net',
    'deviceattributes.sriovnetwork.k8snetworkplumbingwg.io/rail-a-network-attributes',
    'deviceattributes.sriovnetwork.k8snetworkplumbingwg.io/rail-b-network-attributes',
    'sriovresourcepolicy.sriovnetwork.k8snetworkplumbingwg.io/dual-rail-netdevice-policy',
    'deviceclass.resource.k8s.io/sriov-pcie-netdevice',
    'deviceclass.resource.k8s.io/nvidia-gpu-pcie',
    'resourceclaimtemplate.resource.k8s.io/gpu-nic-pairs',
    'pod/gpu-sriov-pairs-demo',
  ],
  'operator-rails': [
    'namespace/ai-workloads',
    'sriovnetwork.sriovnetwork.openshift.io/rail-a-net',
    'sriovnetwork.sriovnetwork.openshift.io/rail-b-net',
    'sriovnetworknodepolicy.sriovnetwork.openshift.io/rail-a-policy',
    'sriovnetworknodepolicy.sriovnetwork.openshift.io/rail-b-policy',
    'deviceclass.resource.k8s.io/sriov-pcie-netdevice',
    'deviceclass.resource.k8s.io/nvidia-gpu-pcie',
    'resourceclaimtemplate.resource.k8s.io/gpu-nic-pairs',
    'pod/gpu-sriov-pairs-demo',
  ],
};
const EXAMPLES = Object.keys(APPLIED) as ExampleName[];

/** The kinds this project (or the CRDs it installs) defines: each document of one names its editor schema. */
const SCHEMA_KINDS = new Set(['NetworkAttachmentDefinition', 'DeviceAttributes', 'SriovResourcePolicy', 'SriovNetwork', 'SriovNetworkNodePolicy']);
const MODELINE = /^# yaml-language-server: \$schema=(\S+)$/;

/** The controller manager would create it; ServiceAccount admission refuses a Pod until it exists. */
async function createDefaultServiceAccount(cp: ControlPlane, namespace: string): Promise<void> {
  try {
    await cp.adminClient.create(resourceTypes.serviceAccount, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }, { namespace });
  } catch (error) {
    if (!isApiError(error, 'AlreadyExists')) throw error;
  }
}

describe('examples/ applied in order by kubectl with a server-side dry run and strict field validation', () => {
  let cp: ControlPlane;

  const kubectl = (...args: string[]) =>
    spawnSync(controlPlaneBinaries().kubectl, ['--kubeconfig', cp.kubeconfig, ...args], { encoding: 'utf8', timeout: 60_000 });

  beforeAll(async () => {
    cp = await startControlPlane();
    const upstreamOwned = await applyUpstreamOwnedCrds(cp.adminClient, { dryRun: false, namespace: 'default' });
    if (!crdsApplySucceeded(upstreamOwned)) throw new Error(`crds apply failed:\n${formatCrdsReport(upstreamOwned).join('\n')}`);
    await installCrdObjects(cp.adminClient, readCrds());
    await createNamespace(cp.adminClient, OPERATOR_NAMESPACE);
  }, 120_000);

  afterAll(async () => {
    await cp.stop();
  }, 60_000);

  it.each(EXAMPLES)(
    '%s: the API server accepts every object of every file',
    async (example) => {
      const applied: string[] = [];
      for (const file of exampleFiles(example)) {
        const dryRun = kubectl('apply', '--dry-run=server', '--validate=strict', '-o', 'name', '-f', file);
        expect({ file, status: dryRun.status, stderr: dryRun.stderr }).toEqual({ file, status: 0, stderr: '' });
        applied.push(...dryRun.stdout.trim().split('\n'));
        const documents = parseAllDocuments(fs.readFileSync(file, 'utf8')).map((document) => document.toJS() as { kind: string; metadata: { name: string } });
        if (documents.every((document) => document.kind === 'Namespace')) {
          const created = kubectl('apply', '-f', file);
          expect({ file, status: created.status, stderr: created.stderr }).toEqual({ file, status: 0, stderr: '' });
          for (const namespace of documents) await createDefaultServiceAccount(cp, namespace.metadata.name);
        }
      }
      expect(applied).toEqual(APPLIED[example]);
    },
    120_000,
  );

  it.each(EXAMPLES)('%s: every document of this project’s kinds starts with the modeline naming its kind’s schema file', (example) => {
    const missing = exampleFiles(example).flatMap((file) =>
      // The modeline is a document's first line: each document's own text, split where the file separates them.
      fs
        .readFileSync(file, 'utf8')
        .split(/^---\n/m)
        .flatMap((text) => {
          const { apiVersion, kind } = parse(text) as { apiVersion: string; kind: string };
          if (!SCHEMA_KINDS.has(kind)) return [];
          const [group = '', version = ''] = apiVersion.split('/');
          const expected = `../../schemas/${group}/${kind.toLowerCase()}_${version}.json`;
          const named = MODELINE.exec(text.split('\n')[0] ?? '')?.[1];
          if (named !== expected) return [`${path.basename(file)} ${kind}: ${named ?? 'no modeline'}, not ${expected}`];
          return fs.existsSync(path.resolve(path.dirname(file), named)) ? [] : [`${path.basename(file)} ${kind}: ${named} does not exist`];
        }),
    );
    expect(missing).toEqual([]);
  });

  it.each(EXAMPLES)('%s: every document of this project’s kinds passes the schema its modeline names, as an editor checks it', (example) => {
    const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
    addFormats.default(ajv);
    const compiled = new Map<string, ValidateFunction>();
    const refusals = exampleFiles(example).flatMap((file) =>
      fs
        .readFileSync(file, 'utf8')
        .split(/^---\n/m)
        .flatMap((text) => {
          const named = MODELINE.exec(text.split('\n')[0] ?? '')?.[1];
          if (named === undefined) return [];
          const schemaFile = path.resolve(path.dirname(file), named);
          const validate = compiled.get(schemaFile) ?? ajv.compile(JSON.parse(fs.readFileSync(schemaFile, 'utf8')) as object);
          compiled.set(schemaFile, validate);
          const document = parse(text) as { kind: string; metadata: { name: string } };
          const label = `${path.basename(file)} ${document.kind} ${document.metadata.name}`;
          return validate(document) ? [] : [`${label}: ${ajv.errorsText(validate.errors)}`];
        }),
    );
    expect(refusals).toEqual([]);
  });

  it('gives §14.3 the workload files of §14.2 unchanged, as the spec retains them', () => {
    const read = (example: ExampleName, file: string) => fs.readFileSync(path.join(EXAMPLES_DIR, example, file), 'utf8');
    expect([
      read('operator-rails', '30-device-classes.yaml'),
      read('operator-rails', '40-resource-claim-template.yaml'),
      read('operator-rails', '50-pod.yaml'),
    ]).toEqual([
      read('gpu-nic-pairs', '40-device-classes.yaml'),
      read('gpu-nic-pairs', '50-resource-claim-template.yaml'),
      read('gpu-nic-pairs', '60-pod.yaml'),
    ]);
  });
});
