import type { VfConfig } from '@sriov-dra/contract';

/**
 * The VfConfig that applies to one allocated device after layering (§5.2). Every field is resolved:
 * "" in `driver` keeps the current kernel binding, "" in `ifName` leaves the name to the driver, and ""
 * in `netAttachDefNamespace` stands for the verified Pod namespace, which only NodePrepare knows and
 * fills in after layering.
 */
export interface EffectiveVfConfig {
  readonly driver: string;
  readonly addVhostMount: boolean;
  readonly ifName: string;
  readonly netAttachDefName: string;
  readonly netAttachDefNamespace: string;
}

export const EMPTY_VF_CONFIG: EffectiveVfConfig = { driver: '', addVhostMount: false, ifName: '', netAttachDefName: '', netAttachDefNamespace: '' };

/**
 * Lays `next` over `current`. The API's fields are plain Go values, so "" and false mean "not set" and
 * never override. The NAD reference is a pair, not two fields: a new name brings its own namespace
 * (possibly "", the Pod's), so class A@infra under claim B resolves to B@<Pod namespace>, never B@infra.
 * A namespace alone moves the current name to that namespace.
 */
export function layerVfConfig(current: EffectiveVfConfig, next: VfConfig): EffectiveVfConfig {
  const nextName = next.netAttachDefName ?? '';
  const nextNamespace = next.netAttachDefNamespace ?? '';
  const reference =
    nextName !== ''
      ? { netAttachDefName: nextName, netAttachDefNamespace: nextNamespace }
      : {
          netAttachDefName: current.netAttachDefName,
          netAttachDefNamespace: nextNamespace !== '' ? nextNamespace : current.netAttachDefNamespace,
        };
  return {
    driver: next.driver !== undefined && next.driver !== '' ? next.driver : current.driver,
    addVhostMount: next.addVhostMount === true || current.addVhostMount,
    ifName: next.ifName !== undefined && next.ifName !== '' ? next.ifName : current.ifName,
    ...reference,
  };
}

/** Layers configs in order, the first over the empty config: the last value set wins field by field. */
export function layerVfConfigs(configs: readonly VfConfig[]): EffectiveVfConfig {
  return configs.reduce(layerVfConfig, EMPTY_VF_CONFIG);
}
