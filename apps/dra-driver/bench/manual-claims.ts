// Manual-mode claims on the benchmark node: claim n is allocated the n-th pair of VFs on request "vf"
// with a VfConfig that rebinds them to vfio-pci, and is reserved for one Pod.
import { DRIVER_NAME } from '@sriov-dra/contract';
import type { ClaimRecord } from '../src/checkpoint/checkpoint-record.ts';
import { cdiDeviceID, claimCdiDeviceName } from '../src/device/cdi-spec.ts';
import type { ReservedClaim } from '../src/device/claim-plan.ts';
import { deviceNameOf } from '../src/discovery/device-name.ts';
import type { VirtualFunction } from '../src/discovery/virtual-function.ts';
import { BENCH_NODE } from './fake-node.ts';

export interface ClaimRef {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/** A lowercase UUID numbered in its last group: claim and Pod UIDs for the workloads. */
function numberedUID(prefix: string, n: number): string {
  return `${prefix}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

/** The pair of claim n, wrapping around the node. */
export function pairOf(n: number, vfs: readonly VirtualFunction[]): VirtualFunction[] {
  return [0, 1].map((offset) => {
    const vf = vfs[(2 * n + offset) % vfs.length];
    if (vf === undefined) throw new Error('the benchmark node has no VFs');
    return vf;
  });
}

export function manualClaim(n: number, vfs: readonly VirtualFunction[]): { ref: ClaimRef; claim: ReservedClaim } {
  const ref = { namespace: 'bench', name: `pair-${n}`, uid: numberedUID('c1a10000', n) };
  const config = {
    source: 'FromClaim',
    requests: ['vf'],
    opaque: { driver: DRIVER_NAME, parameters: { apiVersion: `${DRIVER_NAME}/v1alpha1`, kind: 'VfConfig', driver: 'vfio-pci' } },
  };
  const results = pairOf(n, vfs).map((vf) => ({ request: 'vf', driver: DRIVER_NAME, pool: BENCH_NODE, device: deviceNameOf(vf.pciAddress) }));
  return {
    ref,
    claim: {
      metadata: { ...ref },
      status: {
        allocation: { devices: { results, config: [config] as never } },
        reservedFor: [{ resource: 'pods', name: `trainer-${n}`, uid: numberedUID('90d00000', n) }],
      },
    },
  };
}

/** The checkpoint record prepare leaves for claim n: both VFs moved from mlx5_core to vfio-pci. */
export function preparedRecord(n: number, vfs: readonly VirtualFunction[]): ClaimRecord {
  const { ref } = manualClaim(n, vfs);
  return {
    claimUID: ref.uid,
    claimNamespace: ref.namespace,
    claimName: ref.name,
    pod: { uid: numberedUID('90d00000', n), namespace: ref.namespace, name: `trainer-${n}` },
    devices: pairOf(n, vfs).map((vf) => {
      const device = deviceNameOf(vf.pciAddress);
      return {
        pool: BENCH_NODE,
        device,
        requestNames: ['vf'],
        pciAddress: vf.pciAddress,
        originalDriver: 'mlx5_core',
        preparedDriver: 'vfio-pci',
        cdiDeviceIDs: [cdiDeviceID(claimCdiDeviceName(ref.uid, device))],
      };
    }),
  };
}
