import { serializeJson } from '@sriov-dra/contract';
import { type NetworkSelection, goFoldEqual } from '@sriov-dra/cni-render';

/** What one network selection asks of its delegate at run time (Multus's DelegateNetConf requests). */
export interface DelegateRequests {
  readonly ips?: readonly string[];
  readonly mac?: string;
  readonly infinibandGUID?: string;
  readonly deviceID?: string;
  readonly portMappings?: unknown;
  readonly bandwidth?: unknown;
}

/** The container runtime's own runtimeConfig from the shim's stdin (portMappings, bandwidth …). */
export function runtimeCapabilities(config: Buffer): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(config.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null) return {};
    const runtimeConfig = (parsed as Record<string, unknown>)['runtimeConfig'];
    return typeof runtimeConfig === 'object' && runtimeConfig !== null && !Array.isArray(runtimeConfig)
      ? { ...(runtimeConfig as Record<string, unknown>) }
      : {};
  } catch {
    return {};
  }
}

/** A selection's requests, as Multus's LoadDelegateNetConf copies them from the NetworkSelectionElement. */
export function selectionRequests(selection: NetworkSelection): DelegateRequests {
  // Go's decoder matches a member to its field case-insensitively ("PortMappings" is portMappings); the parser
  // refuses two members folding to one field, so at most one matches.
  const plain = (key: string): unknown => {
    const value = [...selection.raw].find(([member]) => goFoldEqual(member, key))?.[1];
    return value === undefined || value === null ? undefined : (JSON.parse(serializeJson(value)) as unknown);
  };
  return {
    ...(selection.ips === undefined || selection.ips.length === 0 ? {} : { ips: selection.ips }),
    ...(selection.mac === undefined || selection.mac === '' ? {} : { mac: selection.mac }),
    ...(selection.infinibandGUID === undefined || selection.infinibandGUID === '' ? {} : { infinibandGUID: selection.infinibandGUID }),
    ...(selection.deviceID === undefined || selection.deviceID === '' ? {} : { deviceID: selection.deviceID }),
    ...(plain('portMappings') === undefined ? {} : { portMappings: plain('portMappings') }),
    ...(plain('bandwidth') === undefined ? {} : { bandwidth: plain('bandwidth') }),
  };
}

/**
 * Multus's mergeCNIRuntimeConfig: the runtime's capabilities go to every delegate, and a selection's
 * requests override them for every delegate but the master (the cluster network keeps the runtime's).
 */
export function capabilityArgs(runtime: Readonly<Record<string, unknown>>, requests: DelegateRequests, master: boolean): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...runtime };
  if (master) return merged;
  if (requests.portMappings !== undefined) merged['portMappings'] = requests.portMappings;
  if (requests.bandwidth !== undefined) merged['bandwidth'] = requests.bandwidth;
  if (requests.ips !== undefined && requests.ips.length > 0) merged['ips'] = requests.ips;
  if (requests.mac !== undefined && requests.mac !== '') merged['mac'] = requests.mac;
  if (requests.infinibandGUID !== undefined && requests.infinibandGUID !== '') merged['infinibandGUID'] = requests.infinibandGUID;
  if (requests.deviceID !== undefined && requests.deviceID !== '') merged['deviceID'] = requests.deviceID;
  return merged;
}

/** Multus's getIfname over a delegate list read back from the cache: the first delegate is the master. */
export function cachedIfName(ifnameRequest: string | undefined, index: number, runtimeIfName: string): string {
  if (ifnameRequest !== undefined && ifnameRequest !== '') return ifnameRequest;
  return index === 0 ? runtimeIfName : `net${String(index)}`;
}
