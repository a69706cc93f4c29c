// `sriov-dra inspect pod` as its own process against a real API server: a Pod with one attached VF, one
// whose shadow is gone and one not prepared yet, plus a manual selection of a managed template.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ATTACHMENT_PROTECTION_FINALIZER, DRIVER_NAME, annotations, serializeBindingAnnotation, shadowNameFor } from '@sriov-dra/contract';
import { type KubeClient, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import { parse } from 'yaml';
import { sriovDra } from './run-sriov-dra.ts';

const NS = 'ai-workloads';
const POOL = 'worker-1';
const SOURCE = { namespace: NS, name: 'rail-a', uid: '2c9f5d0e-1a7b-4c3d-8e9f-0a1b2c3d4e5f', resourceVersion: '42' };
const SHA = 'f'.repeat(64);

let cp: ControlPlane;
let admin: KubeClient;
let kubeconfig: string;

beforeAll(async () => {
  cp = await startControlPlane();
  admin = cp.adminClient;
  await installCrds(admin);
  await createNamespace(admin, NS);
  kubeconfig = cp.kubeconfigFor('admin', { groups: ['system:masters'] });
}, 120_000);

afterAll(async () => {
  await cp.stop();
});

describe('sriov-dra inspect pod', () => {
  it('joins claims, registry, shadows and network-status into one view per VF', async () => {
    const claim = await admin.create(
      resourceTypes.resourceClaim,
      {
        apiVersion: 'resource.k8s.io/v1',
        kind: 'ResourceClaim',
        metadata: { name: 'nics', namespace: NS },
        spec: { devices: { requests: [{ name: 'nic', exactly: { deviceClassName: 'sriov-vf', count: 3 } }] } },
      },
      { namespace: NS },
    );
    await admin.patch(
      resourceTypes.resourceClaim,
      { namespace: NS, name: 'nics', subresource: 'status' },
      {
        status: {
          allocation: {
            devices: {
              results: ['0000-3b-00-2', '0000-3b-00-3', '0000-3b-00-4']
                .map((device) => ({ request: 'nic', driver: DRIVER_NAME, pool: POOL, device }))
                .concat([{ request: 'nic', driver: 'gpu.nvidia.com', pool: POOL, device: 'gpu-0' }]),
            },
          },
        },
      },
      'application/merge-patch+json',
    );
    const attached = shadowNameFor('a'.repeat(64));
    const gone = shadowNameFor('b'.repeat(64));
    const pod = await admin.create(
      resourceTypes.pod,
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'trainer-0', namespace: NS },
        spec: { containers: [{ name: 'c', image: 'registry.invalid/c' }], resourceClaims: [{ name: 'nics', resourceClaimName: 'nics' }] },
      },
      { namespace: NS },
    );
    const shadow = await admin.create(
      resourceTypes.networkAttachmentDefinition,
      {
        apiVersion: 'k8s.cni.cncf.io/v1',
        kind: 'NetworkAttachmentDefinition',
        metadata: {
          name: attached,
          namespace: NS,
          finalizers: [ATTACHMENT_PROTECTION_FINALIZER],
          annotations: {
            [annotations.binding]: serializeBindingAnnotation({
              version: 1,
              attachmentID: 'a'.repeat(64),
              podUID: pod.metadata.uid,
              claimUID: claim.metadata.uid,
              nodeName: POOL,
              nodeUID: '6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40',
              source: SOURCE,
              pciAddress: '0000:3b:00.2',
              interface: 'net1',
              configSHA256: SHA,
            }),
          },
        },
        spec: { config: '{"cniVersion":"1.0.0","name":"rail-a","type":"sriov","deviceID":"0000:3b:00.2"}' },
      },
      { namespace: NS },
    );
    const entry = (name: string, digit: string, uid: string, ifName: string) => ({
      attachmentID: digit.repeat(64),
      claimUID: claim.metadata.uid,
      namespace: NS,
      name,
      uid,
      interface: ifName,
      configSHA256: SHA,
    });
    await admin.patch(
      resourceTypes.pod,
      { namespace: NS, name: 'trainer-0' },
      {
        metadata: {
          annotations: {
            [annotations.networks]: JSON.stringify([
              { name: attached, namespace: NS, interface: 'net1' },
              { name: gone, namespace: NS, interface: 'net2' },
              { name: 'rail-a', interface: 'manual0' },
            ]),
            [annotations.managedNetworks]: JSON.stringify({
              version: 1,
              podUID: pod.metadata.uid,
              entries: [entry(attached, 'a', shadow.metadata.uid, 'net1'), entry(gone, 'b', '11111111-2222-4333-8444-555555555555', 'net2')],
            }),
            [annotations.networkStatus]: JSON.stringify([{ name: `${NS}/${attached}`, interface: 'net1', ips: ['192.0.2.14'] }]),
          },
        },
      },
      'application/merge-patch+json',
    );

    const json = await sriovDra('inspect', 'pod', `${NS}/trainer-0`, '--kubeconfig', kubeconfig, '-o', 'json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      attachments: [
        {
          claim: 'nics',
          request: 'nic',
          device: `${POOL}/0000-3b-00-2`,
          pci: '0000:3b:00.2',
          source: `${NS}/rail-a@42`,
          shadow: `${NS}/${attached}`,
          interface: 'net1',
          ips: ['192.0.2.14'],
          ipam: 'none',
          phase: '-',
          state: 'attached',
        },
        {
          claim: claim.metadata.uid,
          request: '?',
          device: '?',
          pci: '?',
          source: '?',
          shadow: `${NS}/${gone}`,
          interface: 'net2',
          ips: [],
          ipam: '?',
          phase: '-',
          state: 'shadow-missing',
        },
        {
          claim: 'nics',
          request: 'nic',
          device: `${POOL}/0000-3b-00-3`,
          pci: '?',
          source: '?',
          shadow: '-',
          interface: '-',
          ips: [],
          ipam: '-',
          phase: '-',
          state: 'not-prepared',
        },
        {
          claim: 'nics',
          request: 'nic',
          device: `${POOL}/0000-3b-00-4`,
          pci: '?',
          source: '?',
          shadow: '-',
          interface: '-',
          ips: [],
          ipam: '-',
          phase: '-',
          state: 'not-prepared',
        },
      ],
      permissionGaps: [],
      conflictingManualEntries: [`${NS}/rail-a`],
    });

    const text = await sriovDra('inspect', 'pod', 'trainer-0', '-n', NS, '--kubeconfig', kubeconfig);
    expect(text.stdout.split('\n').slice(0, 2)).toEqual([
      expect.stringMatching(/^CLAIM +DEVICE +SHADOW +INTERFACE +IPS +STATE$/),
      expect.stringMatching(new RegExp(`^nics +${POOL}/0000-3b-00-2 +${NS}/${attached} +net1 +192\\.0\\.2\\.14 +attached$`)),
    ]);
    expect(text.stdout).toContain(`conflicting manual selection: ${NS}/rail-a is a managed template`);

    const wide = await sriovDra('inspect', `pod/trainer-0`, '--namespace', NS, '--kubeconfig', kubeconfig, '-o', 'wide');
    expect(wide.stdout.split('\n')[0]).toMatch(/^CLAIM +REQUEST +DEVICE +PCI +SOURCE +SHADOW +INTERFACE +IPAM +IPS +PHASE +STATE$/);

    const yaml = await sriovDra('inspect', 'pod', `${NS}/trainer-0`, '--kubeconfig', kubeconfig, '-o', 'yaml');
    expect(parse(yaml.stdout)).toEqual(JSON.parse(json.stdout));
  }, 60_000);

  it('refuses a missing Pod with its typed error, and a malformed target', async () => {
    const missing = await sriovDra('inspect', 'pod', `${NS}/nobody`, '--kubeconfig', kubeconfig);
    expect([missing.code, missing.stderr]).toEqual([
      1,
      expect.stringMatching(/^error: ApiNotFound: Pod ai-workloads\/nobody: .* — check the name and the namespace/),
    ]);
    const usage = await sriovDra('inspect', 'pod', `${NS}/trainer-0`, '-n', 'elsewhere');
    expect([usage.code, usage.stderr]).toEqual([
      1,
      `error: InvalidCommandLine: the Pod ${NS}/trainer-0 is in namespace ${NS}, but -n says elsewhere — see sriov-dra inspect --help\n`,
    ]);
  }, 60_000);
});
