// `sriov-dra render` as its own process, on NAD manifest files: the rendered configuration alone, the
// whole shadow NAD for a given identity, typed refusals and command-line errors (exit 1, one line each). Expected
// outputs are written out by hand; the attachmentID and configSHA256 were computed with sha256sum
// (the identity's canonical bytes as in libs/contract/IDENTITY.md).
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sriovDra } from './run-sriov-dra.ts';

// Cases start the component from its TypeScript sources: seconds apiece on a loaded machine. The
// bound guards against a hang, it does not time the start.
jest.setTimeout(60_000);

/** As `kubectl get network-attachment-definitions rail-a-net -n ai-workloads -o yaml` prints it. */
const SRIOV_NAD_YAML = `apiVersion: k8s.cni.cncf.io/v1
kind: NetworkAttachmentDefinition
metadata:
  name: rail-a-net
  namespace: ai-workloads
  uid: 5f0c9a52-3d1e-4b7a-9c08-2e6f4d1b7a93
  resourceVersion: "4711"
  annotations:
    k8s.v1.cni.cncf.io/resourceName: openshift.io/rail_a
spec:
  config: '{"cniVersion":"1.0.0","plugins":[{"type":"sriov","vlan":100,"ipam":{"type":"whereabouts","range":"192.0.2.0/24"}},{"type":"tuning","mtu":9000}]}'
`;

const MACVLAN_NAD_JSON = JSON.stringify({
  apiVersion: 'k8s.cni.cncf.io/v1',
  kind: 'NetworkAttachmentDefinition',
  metadata: { name: 'legacy-net', namespace: 'ai-workloads' },
  spec: { config: '{"cniVersion":"1.0.0","type":"macvlan","master":"eth1","ipam":{"type":"host-local","subnet":"198.51.100.0/24"}}' },
});

const RENDERED =
  '{"cniVersion":"1.0.0","name":"rail-a-net","plugins":[{"type":"sriov","vlan":100,"ipam":{"type":"whereabouts","range":"192.0.2.0/24"},"deviceID":"0000:03:00.1"},{"type":"tuning","mtu":9000}]}';

const IDENTITY = [
  ['--node-name', 'worker-a'],
  ['--node-uid', '6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40'],
  ['--pod-namespace', 'ai-workloads'],
  ['--pod-name', 'trainer-0'],
  ['--pod-uid', '11111111-2222-3333-4444-555555555555'],
  ['--claim-uid', 'a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607'],
  ['--pool', 'worker-a'],
  ['--device', '0000-03-00-1'],
].flat();

let dir: string;
let sriovNad: string;
let macvlanNad: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sriov-dra-render-'));
  sriovNad = join(dir, 'rail-a-net.yaml');
  writeFileSync(sriovNad, SRIOV_NAD_YAML);
  macvlanNad = join(dir, 'legacy-net.json');
  writeFileSync(macvlanNad, MACVLAN_NAD_JSON);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('sriov-dra render', () => {
  it('prints the exact rendered configuration for a VF: name materialized, deviceID at the sriov entry only', async () => {
    const run = await sriovDra('render', '--nad', sriovNad, '--pci', 'pci:0000:03:00.1');
    expect(run).toEqual({ code: 0, stdout: `${RENDERED}\n`, stderr: '' });
  });

  it('prints the shadow NAD for a given identity: generated name, owner, finalizer, binding, no resourceName', async () => {
    const run = await sriovDra('render', '--nad', sriovNad, '--pci', '0000:03:00.1', ...IDENTITY);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: {
        name: 'dra-sriov-71179501bb6cd083245331b0ff5857fa',
        namespace: 'ai-workloads',
        labels: {
          'sriovnetwork.k8snetworkplumbingwg.io/managed-by': 'sriov-dra',
          'sriovnetwork.k8snetworkplumbingwg.io/pod-uid': '11111111-2222-3333-4444-555555555555',
          'sriovnetwork.k8snetworkplumbingwg.io/claim-uid': 'a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607',
          'sriovnetwork.k8snetworkplumbingwg.io/node-uid': '6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40',
        },
        annotations: {
          'sriovnetwork.k8snetworkplumbingwg.io/binding':
            '{"version":1,"attachmentID":"71179501bb6cd083245331b0ff5857fa31e1b3479ee5e9985da63f7c301d31cc","podUID":"11111111-2222-3333-4444-555555555555",' +
            '"claimUID":"a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607","nodeName":"worker-a","nodeUID":"6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40",' +
            '"source":{"namespace":"ai-workloads","name":"rail-a-net","uid":"5f0c9a52-3d1e-4b7a-9c08-2e6f4d1b7a93","resourceVersion":"4711"},' +
            '"pciAddress":"0000:03:00.1","interface":"dra0","configSHA256":"4550e9fda2c6e5df4ce73c0b80a7bbcfc87b5bc805b89e0c88e1518f77e251df"}',
        },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'trainer-0', uid: '11111111-2222-3333-4444-555555555555', blockOwnerDeletion: false }],
        finalizers: ['sriovnetwork.k8snetworkplumbingwg.io/attachment-protection'],
      },
      spec: { config: RENDERED },
    });
  });

  it('refuses a macvlan NAD with its code and remedy, exit 1', async () => {
    const run = await sriovDra('render', '--nad', macvlanNad, '--pci', '0000:03:00.1');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'error: UnsupportedCniTopology: NetworkAttachmentDefinition ai-workloads/legacy-net spec.config: the single plugin is "macvlan", not sriov' +
        ' \u2014 use a single sriov plugin, or a conflist whose first entry is sriov followed only by tuning\n',
    );
  });

  it('refuses a PCI address without its domain, exit 1', async () => {
    const run = await sriovDra('render', '--nad', sriovNad, '--pci', '03:00.1', ...IDENTITY);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'error: InvalidPciAddress: "03:00.1" is not a PCI address of the form 0000:03:00.1 \u2014 use the form 0000:03:00.1 without a pci: prefix\n',
    );
  });

  it.each<[string, string[], string]>([
    ['a namespace that is not a namespace name', ['--pod-namespace', 'AI'], 'InvalidComponentSetting: Flag --pod-namespace: "AI" is not a namespace name'],
    [
      'an interface name longer than 15 bytes',
      ['--interface', 'rail-a-interface'],
      'InvalidInterfaceName: Flag --interface: "rail-a-interface" is not a Linux interface name',
    ],
  ])('refuses %s among the identity flags, exit 1', async (_, override, message) => {
    const run = await sriovDra('render', '--nad', sriovNad, '--pci', '0000:03:00.1', ...IDENTITY, ...override);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
  });

  it.each<[string, () => string[], string]>([
    [
      'an identity given in part',
      () => ['--nad', sriovNad, '--pci', '0000:03:00.1', '--pod-uid', '11111111-2222-3333-4444-555555555555'],
      'missing --node-name, --node-uid',
    ],
    ['no --pci', () => ['--nad', sriovNad], '--nad and --pci are required'],
    ['--interface without the identity', () => ['--nad', sriovNad, '--pci', '0000:03:00.1', '--interface', 'rail-a'], '--interface needs the identity flags'],
    ['a manifest that is not a NAD', () => ['--nad', '/dev/null', '--pci', '0000:03:00.1'], 'exactly one YAML or JSON document'],
    [
      'a manifest without the stored identity the shadow records',
      () => ['--nad', macvlanNad, '--pci', '0000:03:00.1', ...IDENTITY],
      'lacks metadata.namespace, uid or resourceVersion',
    ],
  ])('rejects %s, exit 1', async (_, args, detail) => {
    const run = await sriovDra('render', ...args());
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(detail);
  });

  it('rejects an unknown command in one line naming the commands, exit 1', async () => {
    const run = await sriovDra('orphan');
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(
        /^error: InvalidCommandLine: unknown command "orphan" — see sriov-dra --help for the commands: render, inspect, orphans(, [a-z]+)*\n$/,
      ),
    });
  });

  it('names its subcommands in --help', async () => {
    const run = await sriovDra('--help');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('  render   render a source NAD for one VF');
    expect(run.stdout).toContain('  orphans  list a node’s shadow NADs its checkpoint does not account for');
  });
});
