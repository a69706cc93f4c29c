import { join } from 'node:path';
import type { DaemonAbout } from '../server/daemon-about.ts';
import type { BuildIdentity } from './build-identity.ts';
import type { PreflightCheck } from './checks.ts';
import type { NodeMigrationFacts } from './node-migration.ts';

/**
 * What managed shadows need on a node beyond a working Multus (§4.3, §11), decided from gathered facts:
 * the plugins the shadow renderer allows and the IPAM plugins the node's source templates name, where the
 * delegates really run; the host files Whereabouts needs there; no second Multus fighting over the entry
 * configuration; and the running daemon's own account of its build and settings. Pure.
 */

export interface SourceTemplate {
  /** namespace/name of the NAD. */
  readonly nad: string;
  readonly referencedBy: string;
  readonly ipamTypes: readonly string[];
  /** host-local dataDir values other than its default. */
  readonly hostLocalDataDirs: readonly string[];
  /** Each whereabouts IPAM's kubernetes.kubeconfig and configuration_path ('' when not set). */
  readonly whereaboutsConfigs: readonly { readonly kubeconfig: string; readonly configurationPath: string }[];
}

export interface SourceTemplateFacts {
  /** Where the references were looked for. */
  readonly scope: string;
  readonly templates: readonly SourceTemplate[];
  readonly unresolved: readonly { readonly reference: string; readonly referencedBy: string; readonly reason: string }[];
  /** Reads the API server refused to preflight's identity. */
  readonly forbidden: readonly string[];
  readonly errors: readonly string[];
}

export interface ManagedPluginFacts {
  readonly binDir: string;
  /** '' when delegates run in the daemon's own root. */
  readonly chrootDir: string;
  readonly plugins: readonly {
    readonly type: string;
    readonly neededBy: string;
    /** An executable in binDir as the daemon sees it: the daemon finds the plugin there. */
    readonly found: boolean;
    /** An executable at that path inside chrootDir, where it is run; equal to found without chrootDir. */
    readonly runnable: boolean;
  }[];
}

/** nsenter and ip, which a selection's default-route change runs in the root delegates run in. */
export interface RouteToolFacts {
  readonly root: string;
  readonly searched: readonly string[];
  readonly tools: readonly { readonly name: string; readonly path: string | undefined }[];
}

export interface WhereaboutsFacts {
  /** The root delegates run in: chrootDir, or '/' . */
  readonly root: string;
  readonly kubeconfigs: readonly { readonly path: string; readonly from: string; readonly readable: boolean }[];
  /** Templates whose whereabouts names no kubeconfig while no flat file in the root names one either. */
  readonly unnamed: readonly string[];
}

export type EntryConfigFacts =
  { readonly path: string; readonly state: 'absent' | 'ours' } | { readonly path: string; readonly state: 'foreign' | 'unknown'; readonly detail: string };

export interface ExistingMultusFacts {
  /** namespace/name of each upstream Multus DaemonSet. */
  readonly daemonSets: readonly string[] | { readonly error: string };
  /** Absent when daemon-config.json does not parse: where the file is is then unknown. */
  readonly entryConfig?: EntryConfigFacts;
  /** This node's Multus Pods and drain state; absent without --node-name or when the DaemonSets could not be listed. */
  readonly node?: NodeMigrationFacts | { readonly error: string };
}

export type RunningDaemonFacts =
  | { readonly socketPath: string; readonly reachable: false; readonly error: string }
  | {
      readonly socketPath: string;
      readonly reachable: true;
      readonly about: DaemonAbout;
      /** This preflight's own build. */
      readonly preflight: BuildIdentity;
      /** What daemon-config.json says now, when it parses. */
      readonly file: DaemonAbout['config'] | undefined;
    };

export interface ManagedFacts {
  readonly templates: SourceTemplateFacts;
  /** Absent when the configuration does not parse. */
  readonly plugins?: ManagedPluginFacts;
  readonly whereabouts?: WhereaboutsFacts;
  readonly routeTools: RouteToolFacts;
  readonly existingMultus: ExistingMultusFacts;
  readonly runningDaemon: RunningDaemonFacts;
}

function templatesCheck(facts: SourceTemplateFacts): PreflightCheck {
  const id = 'source-templates';
  const found = facts.templates.map((template) => `${template.nad} (IPAM ${template.ipamTypes.join(', ') || 'none'})`).join(', ');
  if (facts.forbidden.length > 0) {
    return {
      id,
      status: 'fail',
      message: `forbidden to preflight's identity: ${facts.forbidden.join(', ')}; the IPAM plugins this node's source templates need cannot be known. Grant that identity get and list on them (the daemon's ClusterRole), or run preflight with --kubeconfig of an identity that has them`,
    };
  }
  if (facts.errors.length > 0)
    return {
      id,
      status: 'fail',
      message: `cannot read this node's source templates: ${facts.errors.join('; ')}`,
    };
  if (facts.unresolved.length > 0) {
    const list = facts.unresolved.map((entry) => `${entry.reference} (${entry.reason}; referenced by ${entry.referencedBy})`).join(', ');
    return {
      id,
      status: 'warn',
      message: `unresolved: ${list}; a managed claim using it fails MissingNetworkTemplate before any hardware change: create the NAD with an inline sriov spec.config, or fix the reference${found === '' ? '' : `. Resolved: ${found}`}`,
    };
  }
  if (facts.templates.length === 0) {
    return { id, status: 'pass', message: `no source template is referenced by ${facts.scope}; only sriov and the allowed metaplugins are required` };
  }
  return { id, status: 'pass', message: `${found}, referenced by ${facts.scope}` };
}

function pluginsCheck(facts: ManagedPluginFacts): PreflightCheck {
  const id = 'managed-plugins';
  const inRoot = (type: string): string => join(facts.chrootDir, facts.binDir, type);
  const absent = facts.plugins.filter((plugin) => !plugin.found);
  const notRunnable = facts.plugins.filter((plugin) => plugin.found && !plugin.runnable);
  const problems = [
    ...absent.map((plugin) => `${facts.binDir}/${plugin.type} (${plugin.neededBy})`),
    ...notRunnable.map((plugin) => `${inRoot(plugin.type)}, where the daemon runs it chrooted into ${facts.chrootDir} (${plugin.neededBy})`),
  ];
  if (problems.length > 0) {
    return {
      id,
      status: 'fail',
      message: `missing or not executable: ${problems.join(', ')}; a managed ADD would fail with PluginNotFound or ChrootLaunchFailed after the VF was prepared. Install these CNI plugins into the host's ${facts.binDir}${facts.chrootDir === '' ? '' : ` (the daemon sees the host's root at ${facts.chrootDir})`}`,
    };
  }
  const where = facts.chrootDir === '' ? facts.binDir : `${facts.binDir}, run chrooted into ${facts.chrootDir}`;
  return { id, status: 'pass', message: `managed shadows' plugins are in ${where}: ${facts.plugins.map((plugin) => plugin.type).join(', ')}` };
}

function whereaboutsCheck(facts: WhereaboutsFacts): PreflightCheck {
  const id = 'whereabouts-kubeconfig';
  const unreadable = facts.kubeconfigs.filter((entry) => !entry.readable);
  const problems = [
    ...facts.unnamed.map((nad) => `${nad} names no kubeconfig and no whereabouts.conf in ${facts.root} does`),
    ...unreadable.map((entry) => `${entry.path} (${entry.from}) cannot be read by delegates running in ${facts.root}`),
  ];
  if (problems.length > 0) {
    return {
      id,
      status: 'fail',
      message: `whereabouts keeps its allocations in the API (IPPools) and reaches it through a kubeconfig: ${problems.join('; ')}. Install Whereabouts on the node (its DaemonSet writes both files)${facts.root === '/' ? ', or set chrootDir to where the host root is mounted' : ''}`,
    };
  }
  return {
    id,
    status: 'pass',
    message: `whereabouts' kubeconfig is readable where delegates run (${facts.root}): ${facts.kubeconfigs.map((entry) => entry.path).join(', ')}`,
  };
}

function routeToolsCheck(facts: RouteToolFacts): PreflightCheck {
  const id = 'default-route-tools';
  const missing = facts.tools.filter((tool) => tool.path === undefined).map((tool) => tool.name);
  if (missing.length > 0) {
    return {
      id,
      status: 'warn',
      message: `${missing.join(' and ')} not found in ${facts.searched.join(':')} inside ${facts.root}: an ADD whose network selection sets default-route fails there (managed selections never set it). Install util-linux's nsenter and iproute2's ip on the host`,
    };
  }
  return { id, status: 'pass', message: `a default-route change runs ${facts.tools.map((tool) => tool.path ?? '').join(' and ')} inside ${facts.root}` };
}

/** What an administrator does to move a node from another Multus to this daemon. */
const MIGRATION =
  'migrate one node at a time: cordon and drain it; keep the other Multus off it (delete its DaemonSet, or exclude the node by its nodeSelector or node affinity) and delete the 00-multus.conf it wrote; let this daemon start there and write its own; run preflight again; only then enable multusAutoAttach and uncordon the node (docs/coexistence.md)';

const FIGHT =
  'two daemons would fight over 00-multus.conf: each rewrites it from its own configuration and removes it when it stops, so which daemon an ADD reaches (with live reads and the managed-shadow guard, or without) changes under running Pods, and a DEL can reach the daemon that holds no delegate cache for it';

function daemonSetCheck({ daemonSets: found, node }: ExistingMultusFacts): PreflightCheck {
  const id = 'existing-multus-daemonset';
  if ('error' in found) return { id, status: 'warn', message: `cannot look for an upstream Multus DaemonSet: ${found.error}` };
  if (found.length === 0) return { id, status: 'pass', message: 'no upstream Multus DaemonSet (kube-multus-ds, or labelled app=multus or name=multus)' };
  // With the node known, a DaemonSet that keeps off it is the per-node migration's intermediate state.
  if (node !== undefined && !('error' in node)) {
    if (node.upstreamPods.length > 0) {
      return {
        id,
        status: 'fail',
        message: `a Pod of an upstream Multus DaemonSet (${found.join(', ')}) is on node ${node.node} (${node.upstreamPods.join(', ')}): ${FIGHT}. ${MIGRATION}`,
      };
    }
    if (node.admittedBy.length > 0) {
      return {
        id,
        status: 'fail',
        message: `an upstream Multus DaemonSet runs (${found.join(', ')}): ${FIGHT}. ${node.admittedBy.join(', ')} selects node ${node.node} (its nodeSelector and node affinity), so a Pod of it runs here again however often one is deleted. ${MIGRATION}`,
      };
    }
    return {
      id,
      status: 'pass',
      message: `the upstream Multus DaemonSet ${found.join(', ')} has no Pod on node ${node.node} and does not select it (nodeSelector, node affinity)`,
    };
  }
  return { id, status: 'fail', message: `an upstream Multus DaemonSet runs (${found.join(', ')}): ${FIGHT}. ${MIGRATION}` };
}

/**
 * Whether the node is ready for the move between Multus daemons: while one stops and the other starts,
 * the shim reaches no daemon, so every sandbox created or torn down on the node meanwhile fails and is
 * retried; and a Pod the other Multus attached is torn down by this daemon from its delegate cache alone,
 * found only where both keep it (one cniDir). Cordoned and drained, no Pod meets either.
 */
function drainedCheck(node: NodeMigrationFacts | { readonly error: string }, entry: EntryConfigFacts | undefined): PreflightCheck {
  const id = 'migration-drained';
  if ('error' in node) return { id, status: 'warn', message: `cannot read this node's Pods to judge a Multus migration: ${node.error}` };
  const other = [
    ...(node.upstreamPods.length > 0 ? [`upstream Multus Pods ${node.upstreamPods.join(', ')}`] : []),
    ...(node.upstreamPods.length === 0 && node.admittedBy.length > 0 ? [`the upstream Multus DaemonSet ${node.admittedBy.join(', ')}, which selects it`] : []),
    ...(entry?.state === 'foreign' ? [`a ${entry.path} another Multus wrote`] : []),
  ];
  if (other.length === 0) return { id, status: 'pass', message: `no other Multus on node ${node.node}: nothing to migrate` };
  const undone = [
    ...(node.cordoned ? [] : [`it is not cordoned (kubectl cordon ${node.node})`]),
    ...(node.workloads.length > 0
      ? [`Pods a drain evicts are still on it (${node.workloads.join(', ')}; kubectl drain ${node.node} --ignore-daemonsets)`]
      : []),
  ];
  if (undone.length > 0) {
    return {
      id,
      status: 'fail',
      message: `node ${node.node} still runs another Multus (${other.join('; ')}) and ${undone.join(', and ')}: between one daemon's stop and the other's start the shim reaches no daemon, so sandboxes created or torn down then fail, and a Pod attached by the other Multus is torn down here only from a delegate cache in this daemon's cniDir. ${MIGRATION}`,
    };
  }
  return { id, status: 'pass', message: `node ${node.node} is cordoned and drained: the other Multus (${other.join('; ')}) can be removed from it` };
}

function entryConfigCheck(entry: EntryConfigFacts): PreflightCheck {
  const id = 'entry-config-owner';
  switch (entry.state) {
    case 'absent':
      return { id, status: 'pass', message: `no ${entry.path} yet: this daemon writes it when it starts` };
    case 'ours':
      return { id, status: 'pass', message: `${entry.path} is the file this daemon writes for its configuration` };
    case 'foreign':
      return { id, status: 'fail', message: `${entry.path} was not written by this daemon (${entry.detail}): ${FIGHT}. ${MIGRATION}` };
    case 'unknown':
      return {
        id,
        status: 'warn',
        message: `${entry.path} exists but whether this daemon wrote it cannot be told (${entry.detail}); if another Multus wrote it, ${MIGRATION}`,
      };
  }
}

const describeBuild = (build: { version: string; commit: string | null | undefined }): string =>
  `version ${build.version}, commit ${build.commit ?? 'unknown'}`;

function runningDaemonCheck(facts: RunningDaemonFacts): PreflightCheck {
  const id = 'running-daemon';
  if (!facts.reachable) {
    return {
      id,
      status: 'fail',
      message: `no daemon answers on ${facts.socketPath} (${facts.error}): what it runs and with which settings cannot be verified. Start the daemon on this node (its DaemonSet Pod) and run preflight in that Pod, where the socket directory is mounted`,
    };
  }
  const { about, preflight, file } = facts;
  const running = `the daemon on ${facts.socketPath} runs ${describeBuild(about.build)} with ${about.config.path}`;
  if (about.build.version !== preflight.version || about.build.commit !== (preflight.commit ?? null)) {
    return {
      id,
      status: 'fail',
      message: `${running}, but this preflight is ${describeBuild(preflight)}: its checks are not the ones the running build needs. Run preflight from the daemon's own image (kubectl exec into its Pod on this node), or roll the DaemonSet out to this build`,
    };
  }
  const settings = (['liveNetworkConfigOnAdd', 'chrootDir', 'cniDir'] as const).filter(
    (key) => file !== undefined && file.path === about.config.path && file[key] !== about.config[key],
  );
  if (file !== undefined && settings.length > 0) {
    const differences = settings.map((key) => `${key} ${JSON.stringify(about.config[key])} (the file now says ${JSON.stringify(file[key])})`).join(', ');
    return {
      id,
      status: 'fail',
      message: `${running}, started with ${differences}: restart the daemon (delete its Pod on this node) so it runs with the file`,
    };
  }
  if (!about.config.liveNetworkConfigOnAdd) {
    return {
      id,
      status: 'fail',
      message: `${running} and reads Pods and NADs from informer caches on ADD: set "liveNetworkConfigOnAdd": true in ${about.config.path} and restart it`,
    };
  }
  const chroot = about.config.chrootDir === '' ? 'no chrootDir' : `chrootDir ${about.config.chrootDir}`;
  if (about.build.commit === null) {
    return {
      id,
      status: 'warn',
      message: `${running}: liveNetworkConfigOnAdd true, ${chroot}; its commit is unknown, so the node's daemon cannot be traced to its source: build the image with SRIOV_DRA_GIT_COMMIT set`,
    };
  }
  return {
    id,
    status: 'pass',
    message: `${running}: liveNetworkConfigOnAdd true, ${chroot}, cniDir ${about.config.cniDir === '' ? '(default)' : about.config.cniDir}; the same build as this preflight`,
  };
}

/** The managed-shadow checks, in report order. */
export function evaluateManaged(facts: ManagedFacts): PreflightCheck[] {
  return [
    templatesCheck(facts.templates),
    ...(facts.plugins === undefined ? [] : [pluginsCheck(facts.plugins)]),
    ...(facts.whereabouts === undefined ? [] : [whereaboutsCheck(facts.whereabouts)]),
    routeToolsCheck(facts.routeTools),
    daemonSetCheck(facts.existingMultus),
    ...(facts.existingMultus.entryConfig === undefined ? [] : [entryConfigCheck(facts.existingMultus.entryConfig)]),
    ...(facts.existingMultus.node === undefined ? [] : [drainedCheck(facts.existingMultus.node, facts.existingMultus.entryConfig)]),
    runningDaemonCheck(facts.runningDaemon),
  ];
}
