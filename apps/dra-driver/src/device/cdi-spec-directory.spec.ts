import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClaimRecord } from '../checkpoint/checkpoint-record.ts';
import { CdiSpecDirectory } from './cdi-spec-directory.ts';
import { isHostOperationError } from './host-operation-error.ts';
import { podCdiAddresses } from './pod-cdi-addresses.ts';

const POD = '11111111-2222-3333-4444-555555555555';
const CLAIM_A = '0b1c2d3e-1111-4222-8333-444455556666';
const CLAIM_B = '0b1c2d3e-1111-4222-8333-777788889999';
const POD_FILE = 'sriovnetwork.k8snetworkplumbingwg.io-vf_11111111-2222-3333-4444-555555555555.json';
const CLAIM_A_FILE = 'sriovnetwork.k8snetworkplumbingwg.io-vf_0b1c2d3e-1111-4222-8333-444455556666.json';

let root: string;
let cdi: CdiSpecDirectory;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'cdi-'));
  cdi = new CdiSpecDirectory(root);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function readSpec(file: string): Promise<unknown> {
  return JSON.parse(await readFile(join(root, file), 'utf8')) as unknown;
}

function record(claimUID: string, addresses: string[], phase?: 'Ready' | 'ReleaseComplete'): ClaimRecord {
  return {
    claimUID,
    claimNamespace: 'ai-workloads',
    claimName: `claim-${claimUID.slice(-4)}`,
    pod: { uid: POD, namespace: 'ai-workloads', name: 'pairs' },
    devices: addresses.map((pciAddress) => {
      const device = {
        pool: 'node-a',
        device: pciAddress.replaceAll(':', '-').replace('.', '-'),
        requestNames: ['nic'],
        pciAddress,
        originalDriver: 'iavf',
        preparedDriver: 'iavf',
        cdiDeviceIDs: [],
      };
      return phase === undefined ? device : { ...device, managedBinding: { phase } as NonNullable<ClaimRecord['devices'][number]['managedBinding']> };
    }),
  };
}

describe('CdiSpecDirectory claim specs', () => {
  it('writes one spec file per claim and returns the kubelet\u2019s CDI device IDs', async () => {
    const ids = await cdi.writeClaimSpec(CLAIM_A, [{ device: '0000-3b-02-0', pciAddress: '0000:3b:02.0', netAttachDefName: 'rail-a', vhost: false }]);
    expect(ids).toEqual(['sriovnetwork.k8snetworkplumbingwg.io/vf=0b1c2d3e-1111-4222-8333-444455556666-0000-3b-02-0']);
    expect(await readdir(root)).toEqual([CLAIM_A_FILE]);
    expect(await readSpec(CLAIM_A_FILE)).toEqual({
      cdiVersion: '0.5.0',
      kind: 'sriovnetwork.k8snetworkplumbingwg.io/vf',
      devices: [
        {
          name: '0b1c2d3e-1111-4222-8333-444455556666-0000-3b-02-0',
          containerEdits: { env: ['SRIOVNETWORK_VF_DEVICE_0000_3b_02_0=0000:3b:02.0', 'SRIOVNETWORK_NET_ATTACH_DEF_NAME=rail-a'] },
        },
      ],
    });
  });

  it('removes a claim spec, and succeeds again when it is already gone', async () => {
    await cdi.writeClaimSpec(CLAIM_A, [{ device: 'vf0', pciAddress: '0000:3b:02.0', netAttachDefName: '', vhost: false }]);
    await cdi.removeClaimSpec(CLAIM_A);
    await cdi.removeClaimSpec(CLAIM_A);
    expect(await readdir(root)).toEqual([]);
  });

  it('writes no spec for a claim without VFs, since CDI needs at least one device', async () => {
    await expect(cdi.writeClaimSpec(CLAIM_A, [])).resolves.toEqual([]);
    expect(await readdir(root)).toEqual([]);
  });

  it('fails with the claim and the spec path when the directory is not writable', async () => {
    const missing = new CdiSpecDirectory(join(root, 'absent'));
    const error = await missing
      .writeClaimSpec(CLAIM_A, [{ device: 'vf0', pciAddress: '0000:3b:02.0', netAttachDefName: '', vhost: false }])
      .catch((caught: unknown) => caught);
    expect(isHostOperationError(error) ? [error.code, error.subject, error.path] : error).toEqual([
      'CdiSpecFailed',
      CLAIM_A,
      join(root, 'absent', CLAIM_A_FILE),
    ]);
  });
});

describe('the Pod-wide spec', () => {
  it('lives while any claim of the Pod is prepared and lists only those claims\u2019 VFs', async () => {
    const claimA = record(CLAIM_A, ['0000:3b:02.0']);
    const claimB = record(CLAIM_B, ['0000:86:02.1', '0000:86:02.2']);

    await expect(cdi.syncPodSpec(POD, podCdiAddresses([claimB, claimA]))).resolves.toBe(
      'sriovnetwork.k8snetworkplumbingwg.io/vf=11111111-2222-3333-4444-555555555555',
    );
    expect(await readSpec(POD_FILE)).toEqual({
      cdiVersion: '0.5.0',
      kind: 'sriovnetwork.k8snetworkplumbingwg.io/vf',
      devices: [{ name: POD, containerEdits: { env: ['SRIOVNETWORK_PCI_ADDRESSES=0000:3b:02.0,0000:86:02.1,0000:86:02.2'] } }],
    });

    // Claim A is released: the Pod's spec stays for claim B.
    await expect(cdi.syncPodSpec(POD, podCdiAddresses([claimB]))).resolves.toBe('sriovnetwork.k8snetworkplumbingwg.io/vf=11111111-2222-3333-4444-555555555555');
    expect(await readSpec(POD_FILE)).toEqual({
      cdiVersion: '0.5.0',
      kind: 'sriovnetwork.k8snetworkplumbingwg.io/vf',
      devices: [{ name: POD, containerEdits: { env: ['SRIOVNETWORK_PCI_ADDRESSES=0000:86:02.1,0000:86:02.2'] } }],
    });

    // The last claim is released: the spec goes, and going again is not an error.
    await expect(cdi.syncPodSpec(POD, podCdiAddresses([]))).resolves.toBeNull();
    await expect(cdi.syncPodSpec(POD, [])).resolves.toBeNull();
    expect(await readdir(root)).toEqual([]);
  });
});

describe('podCdiAddresses', () => {
  it('orders claims by UID, keeps device order, and lists an address once', () => {
    expect(podCdiAddresses([record(CLAIM_B, ['0000:86:02.2', '0000:3b:02.0']), record(CLAIM_A, ['0000:3b:02.0', '0000:3b:02.1'])])).toEqual([
      '0000:3b:02.0',
      '0000:3b:02.1',
      '0000:86:02.2',
    ]);
  });

  it('leaves out devices whose managed binding finished local release', () => {
    expect(podCdiAddresses([record(CLAIM_A, ['0000:3b:02.0'], 'ReleaseComplete'), record(CLAIM_B, ['0000:86:02.1'], 'Ready')])).toEqual(['0000:86:02.1']);
  });
});
