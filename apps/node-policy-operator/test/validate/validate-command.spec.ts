// `node-policy-operator validate` as a child process on manifest files: the shared admission cases (the
// ones the API server judges in test/webhook) one per file, as one multi-document stream and as JSON,
// get the same verdicts; exit statuses 0, 1 and 2; YAML read as kubectl reads it.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runSourceEntry } from '@sriov-dra/k8s/testing';
import { stringify } from 'yaml';
import { ADMISSION_CASES, type AdmissionCase, OPERATOR_NAMESPACE } from '../admission/admission-cases.ts';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

// Each test starts the operator's command from its TypeScript sources, one Node.js process or more: a
// start takes a second on an idle machine and several when the suites run side by side.
jest.setTimeout(30_000);

let dir: string;

const validate = (...args: string[]) => runSourceEntry(MAIN, ['validate', ...args]);

/** YAML as kubectl users write it; quoted wherever YAML 1.1 would read a string as something else. */
const yaml = (value: unknown): string => stringify(value, { version: '1.1' });

function write(path: string, text: string): string {
  writeFileSync(path, text);
  return path;
}

/** The start of each line the command prints for a case: everything up to the finding's code; none for a valid case. */
function expectedPrefixes(file: string, entry: AdmissionCase): string[] {
  const { verdict, object } = entry;
  if (verdict.allowed) return [];
  return [verdict, ...verdict.more].map(
    ({ code, field }) => `${file}: ${object.kind} ${object.metadata.namespace}/${object.metadata.name}: ${field}: ${code}: `,
  );
}

/** Each printed line reduced to the expected prefix it starts with (or kept whole, to show in a failure). */
function linesAsPrefixes(stdout: string, prefixes: readonly string[]): string[] {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => prefixes.find((prefix) => line.startsWith(prefix)) ?? line);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sriov-dra-validate-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('node-policy-operator validate: the shared admission cases', () => {
  it('gives every case, one file each, the verdict the API server gives it, and exits 1', async () => {
    const cases = join(dir, 'cases');
    mkdirSync(cases);
    const files = ADMISSION_CASES.map((entry, index) => write(join(cases, `${String(index).padStart(2, '0')}.yaml`), yaml(entry.object)));
    const prefixes = ADMISSION_CASES.flatMap((entry, index) => expectedPrefixes(files[index] ?? '', entry));
    const run = await validate('-f', cases);
    expect(linesAsPrefixes(run.stdout, prefixes)).toEqual(prefixes);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`validate: ${prefixes.length} finding(s) in ${ADMISSION_CASES.length} SriovNetworkNodePolicy/SriovNetwork object(s)\n`);
  });

  it('gives the same verdicts to the cases as one multi-document YAML stream', async () => {
    const stream = write(join(dir, 'all-cases.yaml'), ADMISSION_CASES.map((entry) => yaml(entry.object)).join('---\n'));
    const prefixes = ADMISSION_CASES.flatMap((entry) => expectedPrefixes(stream, entry));
    const run = await validate('-f', stream);
    expect([run.code, linesAsPrefixes(run.stdout, prefixes)]).toEqual([1, prefixes]);
  });

  it('admits the valid cases as JSON files and a List, ignoring other kinds and hidden directories, and exits 0', async () => {
    const clean = join(dir, 'clean');
    mkdirSync(join(clean, 'nested'), { recursive: true });
    mkdirSync(join(clean, '.git'));
    const valid = ADMISSION_CASES.filter((entry) => entry.verdict.allowed).map((entry) => entry.object);
    valid.forEach((object, index) => write(join(clean, 'nested', `${index}.json`), JSON.stringify(object, null, 2)));
    write(join(clean, 'list.yml'), yaml({ apiVersion: 'v1', kind: 'List', items: valid }));
    write(join(clean, 'deployment.yaml'), yaml({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' }, spec: { dra: 'not ours' } }));
    write(join(clean, 'values.yaml'), 'replicas: 2\n---\n');
    write(join(clean, 'README.md'), '# not a manifest: {');
    write(join(clean, '.git', 'broken.yaml'), 'a: [');
    const run = await validate('-f', clean);
    expect(run).toEqual({ code: 0, stdout: '', stderr: `validate: 0 finding(s) in ${2 * valid.length} SriovNetworkNodePolicy/SriovNetwork object(s)\n` });
  });
});

describe('node-policy-operator validate: every finding in one run', () => {
  const FIVE_FAULTS = fileURLToPath(new URL('../fixtures/five-faults.yaml', import.meta.url));

  it('prints the five faults of one policy, its CRD schema’s and the webhook’s together, each at its field, and exits 1', async () => {
    const run = await validate('-f', FIVE_FAULTS);
    const subject = `${FIVE_FAULTS}: SriovNetworkNodePolicy sriov-network-operator/rail-a: `;
    expect(run.stdout.split('\n').map((line) => (line.startsWith(subject) ? line.slice(subject.length).split(' \u2014 ')[0] : line))).toEqual([
      'spec.numVfs: CustomResourceSchemaViolation: must be of type integer, not string',
      'spec.dra.atributes: InvalidDRAAttribute: unknown field spec.dra.atributes',
      'spec.dra.attributes["tier"]: InvalidDRAAttribute: key "tier" is not <DNS subdomain of at most 63>/<C identifier of at most 32>',
      'spec.dra.attributes["example.com/rail"].int: InvalidDRAAttribute: Invalid input: expected number, received string',
      'spec.dra.attributes["resource.kubernetes.io/pcieRoot"]: ReservedDRAAttribute: key resource.kubernetes.io/pcieRoot is owned by discovery or generated by the operator',
      '',
    ]);
    expect([run.code, run.stderr]).toEqual([1, 'validate: 5 finding(s) in 1 SriovNetworkNodePolicy/SriovNetwork object(s)\n']);
  });

  it('reports a SriovNetwork field its CRD schema refuses once, beside the webhook’s findings of other fields', async () => {
    const file = write(
      join(dir, 'network-faults.yaml'),
      yaml({
        apiVersion: 'sriovnetwork.openshift.io/v1',
        kind: 'SriovNetwork',
        metadata: { name: 'rail-a', namespace: 'team-a' },
        spec: { resourceName: 'rail_a', vlan: 4095, networkNamespace: 'team-b', ipam: '{"type": host-local}' },
      }),
    );
    const run = await validate('-f', file);
    expect(run.stdout.split('\n').map((line) => line.split(': ').slice(2, 4).join(': '))).toEqual([
      'spec.vlan: CustomResourceSchemaViolation',
      'spec.networkNamespace: NetworkAttachmentDefinitionInvalid',
      'spec.ipam: MalformedSriovNetworkJson',
      '',
    ]);
  });
});

describe('node-policy-operator validate: reading manifests as kubectl does', () => {
  const validPolicySpec = { resourceName: 'rail_a', nodeSelector: {}, numVfs: 0, nicSelector: { pfNames: ['ens1f0'] } };
  const network = (spoofChk: string) => `apiVersion: sriovnetwork.openshift.io/v1
kind: SriovNetwork
metadata:
  name: rail-a
  namespace: team-a
spec:
  resourceName: rail_a
  spoofChk: ${spoofChk}
`;

  it('reads an unquoted on as the boolean kubectl sends (YAML 1.1), which the API server refuses', async () => {
    const unquoted = write(join(dir, 'spoofchk-unquoted.yaml'), network('on'));
    const run = await validate('-f', unquoted);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      new RegExp(`^${unquoted}: SriovNetwork team-a/rail-a: spec\\.spoofChk: CustomResourceSchemaViolation: must be of type string, not boolean `),
    );
    await expect(validate('-f', write(join(dir, 'spoofchk-quoted.yaml'), network('"on"')))).resolves.toMatchObject({ code: 0, stdout: '' });
  });

  it('places objects without a namespace in -n, where the default-policy rule applies to them', async () => {
    const file = write(
      join(dir, 'default-policy.yaml'),
      yaml({
        apiVersion: 'sriovnetwork.openshift.io/v1',
        kind: 'SriovNetworkNodePolicy',
        metadata: { name: 'default' },
        spec: { ...validPolicySpec, dra: {} },
      }),
    );
    await expect(validate('-f', file)).resolves.toMatchObject({ code: 0 });
    const inOperatorNamespace = await validate('-f', file, '-n', OPERATOR_NAMESPACE);
    expect([inOperatorNamespace.code, inOperatorNamespace.stdout]).toEqual([
      1,
      expect.stringMatching(new RegExp(`^${file}: SriovNetworkNodePolicy ${OPERATOR_NAMESPACE}/default: spec\\.dra: DRABlockOnDefaultPolicy: `)),
    ]);
    await expect(validate('-f', file, '-n', 'platform', '--operator-namespace', 'platform')).resolves.toMatchObject({ code: 1 });
  });
});

describe('node-policy-operator validate: unusable input', () => {
  it('exits 2 naming every input it could not check, and still prints the findings of the rest', async () => {
    const finding = write(join(dir, 'finding.yaml'), yaml(ADMISSION_CASES.find((entry) => !entry.verdict.allowed)?.object));
    const syntax = write(join(dir, 'syntax.yaml'), `${yaml({ kind: 'ConfigMap' })}---\nspec: [\n`);
    const duplicate = write(join(dir, 'duplicate.yaml'), 'kind: SriovNetwork\nkind: SriovNetworkNodePolicy\n');
    const scalar = write(join(dir, 'scalar.yaml'), 'just text\n');
    const noMetadata = write(join(dir, 'no-metadata.json'), JSON.stringify({ apiVersion: 'sriovnetwork.openshift.io/v1', kind: 'SriovNetwork', spec: {} }));
    const missing = join(dir, 'missing.yaml');
    const run = await validate('-f', finding, '-f', syntax, '-f', duplicate, '-f', scalar, '-f', noMetadata, '-f', missing);
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(new RegExp(`^${finding}: SriovNetworkNodePolicy `));
    expect(run.stderr.split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^${syntax}: document 2 is not valid YAML: `)),
      expect.stringMatching(new RegExp(`^${duplicate}: document 1 is not valid YAML: Map keys must be unique`)),
      expect.stringMatching(new RegExp(`^${missing}: cannot be read: ENOENT`)),
      `${scalar}: document 1 is not a Kubernetes object`,
      `${noMetadata}: document 1: SriovNetwork has no metadata object`,
      'validate: 1 finding(s) in 1 SriovNetworkNodePolicy/SriovNetwork object(s); 5 input(s) could not be checked',
      '',
    ]);
  });

  it('exits 2 on a bad command line, and 0 for --help', async () => {
    await expect(validate()).resolves.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--filename: name at least one manifest file or directory with -f'),
    });
    await expect(validate('-f', dir, '--namespace', 'Not_A_Namespace')).resolves.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('is not a namespace name'),
    });
    await expect(validate('-f', dir, 'stray')).resolves.toMatchObject({ code: 2 });
    await expect(validate('--help')).resolves.toMatchObject({ code: 0, stdout: expect.stringContaining('Usage: node-policy-operator validate -f FILE|DIR') });
  });
});
