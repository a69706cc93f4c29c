/**
 * The per-invocation data of one delegate call (libcni's RuntimeConf): everything a plugin learns from its
 * environment plus the capability arguments libcni injects into `runtimeConfig`.
 */
export interface RuntimeConf {
  readonly containerID: string;
  /** Path of the network namespace (CNI_NETNS). */
  readonly netns: string;
  readonly ifName: string;
  /** CNI_ARGS as ordered pairs; joined as `K=V;K=V`. */
  readonly args: readonly (readonly [string, string])[];
  /** Capability data (ips, mac, portMappings, …), passed only to plugins declaring the capability. */
  readonly capabilityArgs: Readonly<Record<string, unknown>>;
  /** The libcni cache directory; results live under `<cacheDir>/results/`. */
  readonly cacheDir: string;
}

/** CNI_ARGS exactly as libcni builds it: each pair joined by '=', pairs joined by ';'. */
export function cniArgsString(args: RuntimeConf['args']): string {
  return args.map(([key, value]) => `${key}=${value}`).join(';');
}

// libcni's name rule for container IDs and network names.
const CNI_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;
const MAX_INTERFACE_NAME_BYTES = 15;
// Go's unicode.IsSpace: the Latin-1 spaces plus every Unicode White_Space code point.
const GO_SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u;

/** The libcni checks made before an ADD (utils.ValidateContainerID/ValidateInterfaceName), as messages. */
export function runtimeConfProblem(rt: RuntimeConf): string | undefined {
  if (rt.containerID === '') return 'missing containerID';
  if (!CNI_NAME.test(rt.containerID)) return `invalid characters in containerID: ${JSON.stringify(rt.containerID)}`;
  if (rt.ifName === '') return 'interface name is empty';
  if (Buffer.byteLength(rt.ifName, 'utf8') > MAX_INTERFACE_NAME_BYTES)
    return `interface name is too long: ${JSON.stringify(rt.ifName)} (at most ${MAX_INTERFACE_NAME_BYTES} bytes)`;
  if (rt.ifName === '.' || rt.ifName === '..') return 'interface name is . or ..';
  if (/[/:]/u.test(rt.ifName) || GO_SPACE.test(rt.ifName)) return `interface name contains / or : or whitespace characters: ${JSON.stringify(rt.ifName)}`;
  return undefined;
}

/** libcni's network-name rule (utils.ValidateNetworkName). */
export function isValidNetworkName(name: string): boolean {
  return CNI_NAME.test(name);
}
