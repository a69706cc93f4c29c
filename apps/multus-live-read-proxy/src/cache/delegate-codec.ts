import { isIP } from 'node:net';
import { DelegateCacheError } from './delegate-cache-error.ts';
import { goField, goQuote, isPlainObject } from './go-marshal.ts';
import { isConfList, netConfListJson, pluginConfJson } from './netconf-view.ts';

/**
 * One entry of the Multus delegate cache: upstream's DelegateNetConf (multus-cni v4.2.3 pkg/types)
 * as far as it is persisted. `bytes` are the exact configuration the delegate was added with; DEL must
 * run with the same bytes, because IPAM releases by what it reads on stdin.
 */
export interface DelegateRecord {
  /** "<namespace>/<nad>" for a NAD selection, else the configuration's name. */
  readonly name: string;
  readonly bytes: Uint8Array;
  readonly ifnameRequest?: string;
  readonly macRequest?: string;
  readonly infinibandGUIDRequest?: string;
  readonly ipRequest?: readonly string[];
  /** The selection's `default-route` gateways. */
  readonly gatewayRequest?: readonly string[];
  readonly isFilterV4Gateway?: boolean;
  readonly isFilterV6Gateway?: boolean;
  readonly deviceID?: string;
  readonly resourceName?: string;
}

/** libcni.NetworkConfigList has no JSON tags; upstream fills it only for file-based conflists, never for a NAD. */
const EMPTY_NETWORK_CONFIG_LIST =
  '{"Name":"","CNIVersion":"","DisableCheck":false,"DisableGC":false,"LoadOnlyInlinedPlugins":false,"Plugins":null,"Bytes":null}';

const optionalString = (key: string, value: string | undefined): string => (value === undefined || value === '' ? '' : `,${goQuote(key)}:${goQuote(value)}`);

/**
 * The file upstream's saveDelegates writes for these delegates (json.Marshal of []*DelegateNetConf):
 * struct field order, omitempty where upstream has it, `Bytes` as standard base64.
 */
export function encodeDelegates(delegates: readonly DelegateRecord[]): Buffer {
  const entries = delegates.map((delegate, index) => {
    let conf: unknown;
    try {
      conf = JSON.parse(Buffer.from(delegate.bytes).toString('utf8'));
    } catch (error) {
      throw new DelegateCacheError('DelegateNotEncodable', `delegate ${index} (${delegate.name})`, 'its configuration is not JSON', error);
    }
    if (!isPlainObject(conf))
      throw new DelegateCacheError('DelegateNotEncodable', `delegate ${index} (${delegate.name})`, 'its configuration is not a JSON object');
    const confList = isConfList(conf) ? netConfListJson(conf) : '{}';
    return (
      `{"Conf":${pluginConfJson(conf)},"ConfList":${confList},"CNINetworkConfigList":${EMPTY_NETWORK_CONFIG_LIST},"Name":${goQuote(delegate.name)}` +
      optionalString('ifnameRequest', delegate.ifnameRequest) +
      optionalString('macRequest', delegate.macRequest) +
      optionalString('infinibandGUIDRequest', delegate.infinibandGUIDRequest) +
      (delegate.ipRequest === undefined || delegate.ipRequest.length === 0 ? '' : `,"ipRequest":[${delegate.ipRequest.map(goQuote).join(',')}]`) +
      (delegate.gatewayRequest === undefined ? '' : `,"default-route":[${delegate.gatewayRequest.map(goQuote).join(',')}]`) +
      `,"IsFilterV4Gateway":${String(delegate.isFilterV4Gateway ?? false)},"IsFilterV6Gateway":${String(delegate.isFilterV6Gateway ?? false)}` +
      optionalString('deviceID', delegate.deviceID) +
      optionalString('resourceName', delegate.resourceName) +
      `,"Bytes":"${Buffer.from(delegate.bytes).toString('base64')}"}`
    );
  });
  return Buffer.from(`[${entries.join(',')}]`, 'utf8');
}

// Go's base64.StdEncoding: padded, standard alphabet; line breaks are skipped.
const STD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Reads a cache file the way upstream's DEL does (json.Unmarshal into []*DelegateNetConf: keys matched
 * case-insensitively, the last match winning, unknown keys ignored), but refuses what upstream would
 * fail on or crash with later: anything but a non-empty array of objects, a member of the wrong type,
 * a delegate without configuration bytes.
 */
export function decodeDelegates(data: Uint8Array, path: string): DelegateRecord[] {
  const corrupt = (detail: string, cause?: unknown): DelegateCacheError => new DelegateCacheError('DelegateCacheCorrupt', path, detail, cause);
  let document: unknown;
  try {
    document = JSON.parse(Buffer.from(data).toString('utf8'));
  } catch (error) {
    throw corrupt('not JSON', error);
  }
  if (!Array.isArray(document)) throw corrupt(`not a Multus delegate cache: a JSON ${document === null ? 'null' : typeof document}, not an array of delegates`);
  if (document.length === 0) throw corrupt('an empty list of delegates');
  return document.map((entry: unknown, index) => {
    if (!isPlainObject(entry)) throw corrupt(`delegate ${index} is not an object`);
    const field = <T>(name: string, check: (value: unknown) => value is T, expected: string): T | undefined => {
      const value = goField(entry, name);
      if (value === undefined || value === null) return undefined;
      if (!check(value)) throw corrupt(`delegate ${index}: ${name} is not ${expected}`);
      return value;
    };
    const text = (name: string): string | undefined => {
      const value = field(name, (v): v is string => typeof v === 'string', 'a string');
      return value === '' ? undefined : value;
    };
    const flag = (name: string): boolean => field(name, (v): v is boolean => typeof v === 'boolean', 'a boolean') ?? false;
    const strings = (name: string): string[] | undefined =>
      field(name, (v): v is string[] => Array.isArray(v) && v.every((item) => typeof item === 'string'), 'a list of strings');
    const object = (name: string): Record<string, unknown> | undefined => field(name, isPlainObject, 'an object');

    const encoded = text('Bytes');
    if (encoded === undefined) throw corrupt(`delegate ${index} has no configuration bytes (Bytes)`);
    const base64 = encoded.replace(/[\r\n]/g, '');
    if (!STD_BASE64.test(base64)) throw corrupt(`delegate ${index}: Bytes is not standard base64`);
    object('Conf');
    object('CNINetworkConfigList');
    // Upstream's DEL reads ConfList.plugins to choose between a list and one plugin; this daemon reads the
    // exact bytes for that, but a file whose ConfList upstream could not decode is corrupt for both.
    const plugins = goField(object('ConfList') ?? {}, 'plugins');
    if (plugins !== undefined && plugins !== null && !Array.isArray(plugins)) throw corrupt(`delegate ${index}: ConfList.plugins is not a list`);
    const ipRequest = strings('ipRequest');
    const gatewayRequest = strings('default-route');
    const badGateway = gatewayRequest?.find((ip) => isIP(ip) === 0);
    if (badGateway !== undefined) throw corrupt(`delegate ${index}: default-route ${goQuote(badGateway)} is not an IP address`);
    const optional = {
      ifnameRequest: text('ifnameRequest'),
      macRequest: text('macRequest'),
      infinibandGUIDRequest: text('infinibandGUIDRequest'),
      ipRequest: ipRequest === undefined || ipRequest.length === 0 ? undefined : ipRequest,
      gatewayRequest,
      deviceID: text('deviceID'),
      resourceName: text('resourceName'),
    };
    return {
      name: text('Name') ?? '',
      bytes: Buffer.from(base64, 'base64'),
      isFilterV4Gateway: flag('IsFilterV4Gateway'),
      isFilterV6Gateway: flag('IsFilterV6Gateway'),
      ...Object.fromEntries(Object.entries(optional).filter((entry) => entry[1] !== undefined)),
    };
  });
}
