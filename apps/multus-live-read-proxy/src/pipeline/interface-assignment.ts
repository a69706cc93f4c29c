import { type ObjectRef, type Result, fail, isInterfaceName, ok } from '@sriov-dra/contract';

/** What decides a delegate's interface name. */
export interface InterfaceRequest {
  /** Delegate name as Multus reports it (`<namespace>/<nad>`, or the CNI name of a file-based network). */
  readonly name: string;
  /** The `interface` of the selection, when one was given. */
  readonly ifnameRequest?: string;
  /** The cluster network (delegate 0, or the Pod's default-network override). */
  readonly master: boolean;
}

/**
 * Interface names exactly as Multus's getIfname assigns them — an explicit request wins, the master
 * plugin takes the runtime's CNI_IFNAME, every other delegate is `net<position in the delegate list>` —
 * then checked as one list before any delegate runs (§6.5). Multus itself only notices a collision when
 * the second delegate finds the link already present in the netns, after the first one has run; here
 * the whole ADD is refused up front, naming both networks, and nothing is renamed.
 */
export function assignDelegateInterfaces(delegates: readonly InterfaceRequest[], runtimeIfName: string, pod: ObjectRef): Result<string[]> {
  const names = delegates.map((delegate, index) => {
    if (delegate.ifnameRequest !== undefined && delegate.ifnameRequest !== '') return delegate.ifnameRequest;
    return delegate.master ? runtimeIfName : `net${String(index)}`;
  });
  const owners = new Map<string, string>();
  for (const [index, name] of names.entries()) {
    const network = delegates[index]?.name ?? '';
    if (!isInterfaceName(name)) {
      return fail('InvalidInterfaceName', `network ${network} would get interface ${JSON.stringify(name)}`, { object: pod });
    }
    const owner = owners.get(name);
    if (owner !== undefined) {
      return fail('DuplicateInterfaceName', `networks ${owner} and ${network} both resolve to interface ${name}; no delegate was run`, { object: pod });
    }
    owners.set(name, network);
  }
  return ok(names);
}
