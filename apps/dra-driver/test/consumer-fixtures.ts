// API-shaped ResourceClaim, Pod and Node objects for the consumer-resolution unit tests: a Pod "trainer-0"
// on node worker-a using claim "nics" (two VFs of this driver), as the API server would return them.
// Each builder takes the fields a test changes; everything else is the valid default.
import { DRIVER_NAME, type Result, type SriovDraError, isSriovDraError } from '@sriov-dra/contract';
import { type ConsumerClaim, type ConsumerPod, parseConsumerClaim, parseConsumerPod } from '../src/managed/consumer-objects.ts';
import type { DeviceSnapshot } from '../src/managed/owned-results.ts';

export const NAMESPACE = 'workloads';
export const NODE = 'worker-a';
export const NODE_UID = '0b8f7a8e-3c1d-4a55-9f0e-7d2b6c1e9a01';
export const POD = 'trainer-0';
export const POD_UID = '5f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f';
export const CLAIM = 'nics';
export const CLAIM_UID = 'c1a2b3c4-d5e6-4f70-8192-a3b4c5d6e7f8';
export const VF_A = '0000-3b-00-2';
export const VF_B = '0000-3b-00-3';

export const SNAPSHOT: DeviceSnapshot = { pool: NODE, devices: new Set([VF_A, VF_B, '0000-3b-00-4']) };

export const vfResult = (device: string, request = 'vfs', extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  request,
  driver: DRIVER_NAME,
  pool: NODE,
  device,
  ...extra,
});

export const gpuResult = (device = 'gpu-0', request = 'gpu'): Record<string, unknown> => ({ request, driver: 'gpu.nvidia.com', pool: NODE, device });

export const podConsumer = (name = POD, uid = POD_UID): Record<string, unknown> => ({ resource: 'pods', name, uid });

export const podController = (uid = POD_UID, name = POD): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'Pod', name, uid, controller: true });

export interface ClaimShape {
  readonly name?: string;
  readonly uid?: string;
  readonly annotations?: Record<string, string>;
  readonly ownerReferences?: readonly Record<string, unknown>[];
  readonly requests?: readonly Record<string, unknown>[];
  /** null: not allocated. */
  readonly results?: readonly Record<string, unknown>[] | null;
  readonly reservedFor?: readonly Record<string, unknown>[];
}

export function apiClaim(shape: ClaimShape = {}): Record<string, unknown> {
  const results = shape.results === undefined ? [vfResult(VF_A), vfResult(VF_B)] : shape.results;
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: {
      name: shape.name ?? CLAIM,
      namespace: NAMESPACE,
      uid: shape.uid ?? CLAIM_UID,
      resourceVersion: '42',
      ...(shape.annotations === undefined ? {} : { annotations: shape.annotations }),
      ...(shape.ownerReferences === undefined ? {} : { ownerReferences: shape.ownerReferences }),
    },
    spec: { devices: { requests: shape.requests ?? [{ name: 'vfs', exactly: { deviceClassName: 'sriov-vf', count: 2 } }] } },
    status: {
      ...(results === null ? {} : { allocation: { devices: { results } } }),
      reservedFor: shape.reservedFor ?? [podConsumer()],
    },
  };
}

export interface PodShape {
  readonly name?: string;
  readonly uid?: string;
  readonly deletionTimestamp?: string;
  readonly nodeName?: string | null;
  readonly hostNetwork?: boolean;
  readonly resourceClaims?: readonly Record<string, unknown>[];
  readonly resourceClaimStatuses?: readonly Record<string, unknown>[];
  readonly extendedResourceClaimStatus?: Record<string, unknown>;
}

export function apiPod(shape: PodShape = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: shape.name ?? POD,
      namespace: NAMESPACE,
      uid: shape.uid ?? POD_UID,
      resourceVersion: '7',
      ...(shape.deletionTimestamp === undefined ? {} : { deletionTimestamp: shape.deletionTimestamp }),
    },
    spec: {
      ...(shape.nodeName === null ? {} : { nodeName: shape.nodeName ?? NODE }),
      ...(shape.hostNetwork === undefined ? {} : { hostNetwork: shape.hostNetwork }),
      containers: [{ name: 'app', image: 'registry.invalid/app:1' }],
      resourceClaims: shape.resourceClaims ?? [{ name: 'net', resourceClaimName: CLAIM }],
    },
    status: {
      phase: 'Pending',
      ...(shape.resourceClaimStatuses === undefined ? {} : { resourceClaimStatuses: shape.resourceClaimStatuses }),
      ...(shape.extendedResourceClaimStatus === undefined ? {} : { extendedResourceClaimStatus: shape.extendedResourceClaimStatus }),
    },
  };
}

export const apiNode = (uid = NODE_UID): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: NODE, uid, resourceVersion: '3' } });

function valueOf<T>(result: Result<T>): T {
  if (!result.ok) throw result.error;
  return result.value;
}

export const claimOf = (shape: ClaimShape = {}): ConsumerClaim => valueOf(parseConsumerClaim(apiClaim(shape), { kind: 'ResourceClaim' }));

export const podOf = (shape: PodShape = {}): ConsumerPod => valueOf(parseConsumerPod(apiPod(shape), { kind: 'Pod' }));

/** The error a rejected Result carries; a test expecting a rejection fails on success. */
export function rejectionOf(result: Result<unknown>): SriovDraError {
  if (result.ok) throw new Error(`expected a rejection, got ${JSON.stringify(result.value)}`);
  return result.error;
}

/** The typed error a call rejects with; any other outcome fails the test. */
export async function rejection(promise: Promise<unknown>): Promise<SriovDraError> {
  try {
    await promise;
  } catch (error) {
    if (isSriovDraError(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}
