import { goField, goMapKeyOrder, goQuote, isPlainObject } from './go-marshal.ts';

/**
 * The `Conf` and `ConfList` members of a cached delegate, as upstream Multus v4.2.3 writes them: the
 * delegate's bytes decoded into libcni's PluginConf / NetConfList (cni v1.3.0) and encoded again.
 * PluginConf's own MarshalJSON goes through a map, so its keys come out sorted, `ipam` always present
 * and `dns` only when set. Upstream DEL looks only at `ConfList.plugins` (a conflist when non-empty)
 * and at `Bytes`; the rest is kept so the file matches what upstream itself would have written.
 * A field of the wrong type is left out: upstream refuses such a configuration before caching it.
 */

const stringOf = (object: Readonly<Record<string, unknown>>, field: string): string => {
  const value = goField(object, field);
  return typeof value === 'string' ? value : '';
};

const stringsOf = (object: Readonly<Record<string, unknown>>, field: string): string[] => {
  const value = goField(object, field);
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
};

function sortedObject(entries: readonly (readonly [string, string])[]): string {
  return `{${[...entries]
    .sort(([a], [b]) => goMapKeyOrder(a, b))
    .map(([key, value]) => `${goQuote(key)}:${value}`)
    .join(',')}}`;
}

const stringArray = (items: readonly string[]): string => `[${items.map(goQuote).join(',')}]`;

/** libcni types.PluginConf after MarshalJSON. */
export function pluginConfJson(conf: Readonly<Record<string, unknown>>): string {
  const entries: [string, string][] = [];
  const capabilities = goField(conf, 'capabilities');
  if (isPlainObject(capabilities)) {
    const flags = Object.entries(capabilities).filter((entry): entry is [string, boolean] => typeof entry[1] === 'boolean');
    if (flags.length > 0) entries.push(['capabilities', sortedObject(flags.map(([key, value]) => [key, String(value)]))]);
  }
  const cniVersion = stringOf(conf, 'cniVersion');
  if (cniVersion !== '') entries.push(['cniVersion', goQuote(cniVersion)]);
  const dns = goField(conf, 'dns');
  if (isPlainObject(dns)) {
    const members: [string, string][] = [];
    const domain = stringOf(dns, 'domain');
    if (domain !== '') members.push(['domain', goQuote(domain)]);
    for (const list of ['nameservers', 'search', 'options']) {
      const items = stringsOf(dns, list);
      if (items.length > 0) members.push([list, stringArray(items)]);
    }
    if (members.length > 0) entries.push(['dns', sortedObject(members)]);
  }
  const ipam = goField(conf, 'ipam');
  const ipamType = isPlainObject(ipam) ? stringOf(ipam, 'type') : '';
  entries.push(['ipam', ipamType === '' ? '{}' : `{"type":${goQuote(ipamType)}}`]);
  const name = stringOf(conf, 'name');
  if (name !== '') entries.push(['name', goQuote(name)]);
  const type = stringOf(conf, 'type');
  if (type !== '') entries.push(['type', goQuote(type)]);
  return sortedObject(entries);
}

/** libcni types.NetConfList: struct order, every member omitempty. */
export function netConfListJson(list: Readonly<Record<string, unknown>>): string {
  const members: string[] = [];
  const cniVersion = stringOf(list, 'cniVersion');
  if (cniVersion !== '') members.push(`"cniVersion":${goQuote(cniVersion)}`);
  const name = stringOf(list, 'name');
  if (name !== '') members.push(`"name":${goQuote(name)}`);
  if (goField(list, 'disableCheck') === true) members.push('"disableCheck":true');
  if (goField(list, 'disableGC') === true) members.push('"disableGC":true');
  const plugins = goField(list, 'plugins');
  if (Array.isArray(plugins) && plugins.length > 0) {
    members.push(`"plugins":[${plugins.map((plugin) => (isPlainObject(plugin) ? pluginConfJson(plugin) : 'null')).join(',')}]`);
  }
  return `{${members.join(',')}}`;
}

/** A delegate is a conflist when its configuration has no `type` (upstream LoadDelegateNetConf). */
export function isConfList(conf: Readonly<Record<string, unknown>>): boolean {
  return stringOf(conf, 'type') === '';
}
