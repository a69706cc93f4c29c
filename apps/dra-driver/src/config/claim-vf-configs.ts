import { DRIVER_NAME, type ObjectRef, type Result, type VfConfig, fail, ok } from '@sriov-dra/contract';
import { type OpaqueDeviceConfig, vfConfigFromOpaque } from './opaque-vf-config.ts';
import { type EffectiveVfConfig, layerVfConfigs } from './vf-config-layering.ts';

/** One entry of a ResourceClaim's status.allocation.devices.config. */
export interface DeviceAllocationConfig {
  /** FromClass (copied from the DeviceClass) or FromClaim. */
  readonly source: string;
  readonly requests?: readonly string[];
  readonly opaque?: OpaqueDeviceConfig;
}

/** One entry of a ResourceClaim's status.allocation.devices.results. */
export interface DeviceAllocationResult {
  /** The request name, or `<request>/<subrequest>` for a result of a prioritized-list subrequest. */
  readonly request: string;
  readonly driver: string;
  readonly pool: string;
  readonly device: string;
}

/** The parts of an allocated ResourceClaim that configuration is computed from. */
export interface AllocatedClaim {
  readonly metadata: { readonly namespace?: string; readonly name: string; readonly uid: string };
  readonly status?: {
    readonly allocation?: { readonly devices?: { readonly results?: readonly DeviceAllocationResult[]; readonly config?: readonly DeviceAllocationConfig[] } };
  };
}

export interface ResultVfConfig {
  readonly result: DeviceAllocationResult;
  readonly config: EffectiveVfConfig;
}

const SOURCE_ORDER: Readonly<Record<string, number>> = { FromClass: 0, FromClaim: 1 };

/**
 * Whether a config entry applies to a result, as Kubernetes decides it: an empty request list means every
 * request (what the allocator emits for class configs); otherwise the list names the result's request
 * exactly, or the parent request of a `parent/subrequest` result.
 */
export function configAppliesTo(requests: readonly string[] | undefined, resultRequest: string): boolean {
  if (requests === undefined || requests.length === 0) return true;
  const parent = resultRequest.split('/')[0];
  return requests.some((request) => request === resultRequest || request === parent);
}

/**
 * The effective VfConfig of each of this driver's results in a claim (§5.2 step 1). Configs of other
 * drivers are skipped; class configs are layered before claim configs, each source in list order. Every
 * config of this driver must decode, including one that matches no result: a misspelled field fails the
 * claim instead of being ignored.
 */
export function effectiveVfConfigs(claim: AllocatedClaim): Result<ResultVfConfig[]> {
  const devices = claim.status?.allocation?.devices;
  const claimRef: ObjectRef = { kind: 'ResourceClaim', namespace: claim.metadata.namespace, name: claim.metadata.name, uid: claim.metadata.uid };
  const ours: { readonly order: number; readonly requests: readonly string[] | undefined; readonly config: VfConfig }[] = [];
  for (const [index, entry] of (devices?.config ?? []).entries()) {
    const at: ObjectRef = { ...claimRef, field: `status.allocation.devices.config[${index}]` };
    const order = SOURCE_ORDER[entry.source];
    if (order === undefined) return fail('InvalidApiObject', `source ${JSON.stringify(entry.source)} is neither FromClass nor FromClaim`, { object: at });
    if (entry.opaque === undefined) continue;
    const decoded = vfConfigFromOpaque(entry.opaque, at);
    if (!decoded.ok) return decoded;
    if (decoded.value !== null) ours.push({ order, requests: entry.requests, config: decoded.value });
  }
  // Array.prototype.sort is stable, so entries of one source keep their list order.
  ours.sort((a, b) => a.order - b.order);
  const results = (devices?.results ?? []).filter((result) => result.driver === DRIVER_NAME);
  return ok(
    results.map((result) => ({
      result,
      config: layerVfConfigs(ours.filter((entry) => configAppliesTo(entry.requests, result.request)).map((entry) => entry.config)),
    })),
  );
}
