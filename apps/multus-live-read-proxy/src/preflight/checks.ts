import { type ManagedFacts, evaluateManaged } from './managed-checks.ts';
import { VOLATILE_FS_TYPES } from './mountinfo.ts';

/**
 * What preflight decides (§4.3) from what the probes found on the node and in the cluster. Pure: every
 * check is a function of the facts, so each outcome is tested without a node.
 */

export type CheckStatus = 'pass' | 'warn' | 'fail';

export interface PreflightCheck {
  /** Stable identifier: scripts and runbooks match on it. */
  readonly id: string;
  readonly status: CheckStatus;
  /** What was found, and for warn/fail what to do about it. */
  readonly message: string;
}

export type ConfigFacts =
  | { readonly ok: false; readonly path: string; readonly error: string }
  | {
      readonly ok: true;
      readonly path: string;
      /** The daemon-config key itself, when present. */
      readonly daemonLive: boolean | undefined;
      readonly shim:
        | { readonly state: 'missing'; readonly path: string; readonly auto: boolean }
        | { readonly state: 'invalid'; readonly path: string; readonly error: string }
        | { readonly state: 'read'; readonly path: string; readonly effectiveLive: boolean };
    };

export interface BinaryFacts {
  readonly binDir: string;
  /** Where delegates run: each plugin must also be at its binDir path inside it. '' for the daemon's own root. */
  readonly chrootDir: string;
  readonly shimPresent: boolean;
  /** Plugin types the cluster network runs, each with whether binDir has an executable of that name. */
  readonly plugins: readonly { readonly type: string; readonly present: boolean }[];
  /** Why the cluster network's plugins are unknown, when they are. */
  readonly clusterNetworkError?: string;
}

export interface StorageFacts {
  readonly id: 'delegate-cache-storage' | 'result-cache-storage' | 'sriov-state-storage' | 'host-local-state-storage';
  readonly what: string;
  /**
   * Set for state the delegates keep themselves (§11: sriov-cni's saved VF state, host-local's leases):
   * the root they run in, chrootDir or '' for the daemon's own. The path is where the daemon sees it.
   */
  readonly delegateRoot?: string;
  readonly path: string;
  readonly fsType: string | undefined;
  readonly mountPoint: string | undefined;
  readonly writable: boolean;
}

export interface AccessFacts {
  readonly attribute: string;
  readonly allowed: boolean;
}

export interface PreflightFacts {
  readonly config: ConfigFacts;
  /** Absent when the configuration does not parse. */
  readonly binaries?: BinaryFacts;
  readonly storage: readonly StorageFacts[];
  readonly access: { readonly required: readonly AccessFacts[]; readonly unneeded: readonly AccessFacts[] } | { readonly error: string };
  readonly dynamicNetworksControllers: readonly string[] | { readonly error: string };
  readonly build: { readonly version: string; readonly commit: string | undefined };
  readonly managed: ManagedFacts;
}

function configCheck(config: ConfigFacts): PreflightCheck {
  if (!config.ok) return { id: 'daemon-config', status: 'fail', message: config.error };
  const shim = config.shim;
  if (shim.state === 'invalid') return { id: 'daemon-config', status: 'fail', message: `${config.path} over ${shim.path}: ${shim.error}` };
  if (shim.state === 'missing') {
    return shim.auto
      ? {
          id: 'daemon-config',
          status: 'warn',
          message: `${config.path} parses; ${shim.path} is not there yet: the daemon generates it (auto mode) once it runs and finds the primary network`,
        }
      : {
          id: 'daemon-config',
          status: 'fail',
          message: `${config.path} parses but its multusConfigFile ${shim.path} does not exist: put the shim configuration there, or set multusConfigFile to "auto"`,
        };
  }
  return { id: 'daemon-config', status: 'pass', message: `${config.path} parses and overlays ${shim.path} into an effective configuration` };
}

function liveCheck(config: ConfigFacts): PreflightCheck | undefined {
  if (!config.ok || config.shim.state === 'invalid') return undefined;
  const id = 'live-network-config-on-add';
  const effective = config.shim.state === 'read' ? config.shim.effectiveLive : (config.daemonLive ?? false);
  if (!effective) {
    return {
      id,
      status: 'fail',
      message: `ADD reads Pods and NADs from informer caches: set "liveNetworkConfigOnAdd": true in ${config.path} and restart the daemon`,
    };
  }
  if (config.daemonLive === undefined) {
    return {
      id,
      status: 'warn',
      message: `live reads come only from the shim configuration; set "liveNetworkConfigOnAdd": true in ${config.path} itself so the daemon enforces it`,
    };
  }
  return { id, status: 'pass', message: `${config.path} sets liveNetworkConfigOnAdd: ADD reads the Pod and its NADs from the API server` };
}

function binaryChecks(binaries: BinaryFacts | undefined): PreflightCheck[] {
  if (binaries === undefined) return [];
  const { binDir } = binaries;
  const shim: PreflightCheck = binaries.shimPresent
    ? { id: 'shim-binary', status: 'pass', message: `${binDir}/multus-shim is executable` }
    : {
        id: 'shim-binary',
        status: 'fail',
        message: `${binDir}/multus-shim is missing or not executable: install the multus-shim binary the runtime runs for 00-multus.conf`,
      };
  if (binaries.clusterNetworkError !== undefined) {
    return [shim, { id: 'delegate-plugins', status: 'fail', message: `the cluster network cannot be resolved: ${binaries.clusterNetworkError}` }];
  }
  const missing = binaries.plugins.filter((plugin) => !plugin.present).map((plugin) => plugin.type);
  const types = binaries.plugins.map((plugin) => plugin.type).join(', ');
  const plugins: PreflightCheck =
    missing.length === 0
      ? { id: 'delegate-plugins', status: 'pass', message: `the cluster network's plugins are in ${binDir}: ${types}` }
      : {
          id: 'delegate-plugins',
          status: 'fail',
          message: `missing from ${binDir}${binaries.chrootDir === '' ? '' : ` or from that path inside ${binaries.chrootDir}, where delegates run`}: ${missing.join(', ')}; install the CNI plugins the cluster network uses (${types})`,
        };
  return [shim, plugins];
}

function storageCheck(storage: StorageFacts): PreflightCheck {
  const { id, what, path } = storage;
  const where = `${what} ${path} is on ${storage.fsType ?? 'an unknown filesystem'} at ${storage.mountPoint ?? '?'}`;
  if (storage.fsType !== undefined && VOLATILE_FS_TYPES.has(storage.fsType)) {
    return {
      id,
      status: 'fail',
      message: `${where}, which a reboot empties: DEL then has no saved configuration and IP leases leak; mount a host directory on disk there`,
    };
  }
  if (!storage.writable) return { id, status: 'fail', message: `${where} but is not writable: the daemon cannot save what DEL needs; mount it read-write` };
  if (storage.fsType === 'overlay' && storage.delegateRoot !== undefined) {
    const remedy =
      storage.delegateRoot === ''
        ? 'set chrootDir in daemon-config.json to where the host root is mounted (the chart mounts it at /hostroot) so delegates keep their state on the host'
        : `mount the host's root filesystem at ${storage.delegateRoot}`;
    return {
      id,
      status: 'fail',
      message: `${where}, the container's own layer, lost when the daemon's container is replaced: DEL then finds no saved state and VFs or addresses leak; ${remedy}`,
    };
  }
  if (storage.fsType === 'overlay') {
    return {
      id,
      status: 'warn',
      message: `${where}: a container's own layer is lost when the container is replaced; mount a hostPath there unless this is the host's own root`,
    };
  }
  return { id, status: 'pass', message: `${where}, persistent and writable` };
}

function accessCheck(access: PreflightFacts['access']): PreflightCheck {
  const id = 'rbac';
  const note = 'no resourceclaims or resourceslices access is needed: live reads add only Pod and NAD GETs';
  if ('error' in access) return { id, status: 'fail', message: `cannot review this identity's permissions: ${access.error}` };
  const denied = access.required.filter((entry) => !entry.allowed).map((entry) => entry.attribute);
  const extra = access.unneeded.filter((entry) => entry.allowed).map((entry) => entry.attribute);
  const surplus = extra.length === 0 ? '' : ` (granted but unused, may be removed: ${extra.join(', ')})`;
  if (denied.length > 0) {
    return { id, status: 'fail', message: `denied: ${denied.join(', ')}; bind the daemon's ServiceAccount to a ClusterRole granting them. ${note}${surplus}` };
  }
  return { id, status: 'pass', message: `allowed: ${access.required.map((entry) => entry.attribute).join(', ')}; ${note}${surplus}` };
}

function dynamicControllerCheck(found: PreflightFacts['dynamicNetworksControllers']): PreflightCheck {
  const id = 'dynamic-networks-controller';
  if ('error' in found) return { id, status: 'warn', message: `cannot look for multus-dynamic-networks-controller DaemonSets: ${found.error}` };
  if (found.length > 0) {
    return {
      id,
      status: 'warn',
      message: `multus-dynamic-networks-controller runs (${found.join(', ')}): it hot-plugs interfaces when a Pod's networks annotation changes, including the driver's managed selections; remove it from nodes with managed SR-IOV claims`,
    };
  }
  return { id, status: 'pass', message: 'no multus-dynamic-networks-controller DaemonSet' };
}

function buildCheck(build: PreflightFacts['build']): PreflightCheck {
  if (build.commit === undefined) {
    return {
      id: 'build-identity',
      status: 'warn',
      message: `version ${build.version}, commit unknown: build the image with SRIOV_DRA_GIT_COMMIT set so a node's daemon can be traced to its source`,
    };
  }
  return { id: 'build-identity', status: 'pass', message: `version ${build.version}, commit ${build.commit}` };
}

/** Every check, in report order. */
export function evaluatePreflight(facts: PreflightFacts): PreflightCheck[] {
  const live = liveCheck(facts.config);
  return [
    configCheck(facts.config),
    ...(live === undefined ? [] : [live]),
    ...binaryChecks(facts.binaries),
    ...facts.storage.map(storageCheck),
    accessCheck(facts.access),
    dynamicControllerCheck(facts.dynamicNetworksControllers),
    buildCheck(facts.build),
    ...evaluateManaged(facts.managed),
  ];
}

/** 0 when nothing failed (warnings do not fail a node), else 1. */
export function preflightExitCode(checks: readonly PreflightCheck[]): 0 | 1 {
  return checks.some((check) => check.status === 'fail') ? 1 : 0;
}
