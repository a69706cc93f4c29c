import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The Kubernetes version every test runs against unless K8S_VERSION says otherwise. */
export const DEFAULT_K8S_VERSION = 'v1.36.3';

export function cacheRoot(): string {
  return process.env['SRIOV_DRA_CACHE'] ?? join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'sriov-dra');
}

export interface ControlPlaneBinaries {
  readonly etcd: string;
  readonly kubeApiserver: string;
  readonly kubeControllerManager: string;
  readonly kubeScheduler: string;
  readonly kubectl: string;
}

/**
 * Locates the binaries tools/control-plane/build-binaries.sh built. Missing binaries are a setup
 * problem with one fix, so the error says exactly which command to run.
 */
export function controlPlaneBinaries(version = process.env['K8S_VERSION'] ?? DEFAULT_K8S_VERSION): ControlPlaneBinaries {
  const dir = join(cacheRoot(), 'k8s', version, 'bin');
  const binaries = {
    etcd: join(dir, 'etcd'),
    kubeApiserver: join(dir, 'kube-apiserver'),
    kubeControllerManager: join(dir, 'kube-controller-manager'),
    kubeScheduler: join(dir, 'kube-scheduler'),
    kubectl: join(dir, 'kubectl'),
  };
  const missing = Object.values(binaries).filter((path) => !existsSync(path));
  if (missing.length > 0 || !existsSync(join(cacheRoot(), 'k8s', version, 'stamp'))) {
    throw new Error(
      `Kubernetes ${version} binaries are missing (${missing.join(', ') || 'stamp'}); build them with: K8S_VERSION=${version} tools/control-plane/build-binaries.sh k8s`,
    );
  }
  return binaries;
}

export interface MultusBinaries {
  /** The upstream thick-mode CNI binary the runtime executes; it forwards each call to the daemon socket. */
  readonly multusShim: string;
  /** The upstream thick-mode daemon. */
  readonly multusDaemon: string;
  /** Runs delegates through libcni as upstream's daemon does, timed (tools/multus-peer/delegate-runner). */
  readonly delegateRunner: string;
}

/**
 * Locates the upstream Multus binaries tools/control-plane/build-binaries.sh built from the version
 * tools/multus-peer pins, and the delegate runner built beside them; the error names the command that builds them.
 */
export function multusBinaries(): MultusBinaries {
  const dir = join(cacheRoot(), 'multus', 'bin');
  const binaries = { multusShim: join(dir, 'multus-shim'), multusDaemon: join(dir, 'multus-daemon'), delegateRunner: join(dir, 'delegate-runner') };
  const missing = Object.values(binaries).filter((path) => !existsSync(path));
  if (missing.length > 0 || !existsSync(join(cacheRoot(), 'multus', 'stamp'))) {
    throw new Error(`Multus binaries are missing (${missing.join(', ') || 'stamp'}); build them with: tools/control-plane/build-binaries.sh multus`);
  }
  return binaries;
}

/** Helm v4 as tools/control-plane/build-binaries.sh built it; the error names the command that builds it. */
export function helmBinary(): string {
  const binary = join(cacheRoot(), 'helm', 'bin', 'helm');
  if (!existsSync(binary) || !existsSync(join(cacheRoot(), 'helm', 'stamp'))) {
    throw new Error(`Helm is missing (${binary}); build it with: tools/control-plane/build-binaries.sh helm`);
  }
  return binary;
}

export interface CniPlugins {
  /** The containernetworking plugins and Whereabouts, as a CNI_PATH entry. */
  readonly binDir: string;
  /** Whereabouts' CRDs (IPPools, OverlappingRangeIPReservations) from the module it was built from. */
  readonly whereaboutsCrdsDir: string;
}

/** The CNI plugins tools/control-plane/build-binaries.sh built; the error names the command that builds them. */
export function cniPlugins(): CniPlugins {
  const dir = join(cacheRoot(), 'cni');
  const plugins = { binDir: join(dir, 'bin'), whereaboutsCrdsDir: join(dir, 'whereabouts-crds') };
  if (!existsSync(join(plugins.binDir, 'whereabouts')) || !existsSync(plugins.whereaboutsCrdsDir)) {
    throw new Error(`CNI plugins are missing or predate the Whereabouts CRDs (${dir}); build them with: tools/control-plane/build-binaries.sh cni`);
  }
  return plugins;
}

export interface NodeBinaries {
  readonly kubelet: string;
  readonly containerd: string;
  readonly ctr: string;
  /** The directory of containerd-shim-runc-v2, which containerd finds on its PATH. */
  readonly binDir: string;
}

/** The kubelet and containerd tools/control-plane/build-binaries.sh built; the error names the command that builds them. */
export function nodeBinaries(): NodeBinaries {
  const binDir = join(cacheRoot(), 'node', 'bin');
  const binaries = { kubelet: join(binDir, 'kubelet'), containerd: join(binDir, 'containerd'), ctr: join(binDir, 'ctr'), binDir };
  const missing = [binaries.kubelet, binaries.containerd, binaries.ctr, join(binDir, 'containerd-shim-runc-v2')].filter((file) => !existsSync(file));
  if (missing.length > 0 || !existsSync(join(cacheRoot(), 'node', 'stamp'))) {
    throw new Error(`the kubelet and containerd are missing (${missing.join(', ') || 'stamp'}); build them with: tools/control-plane/build-binaries.sh node`);
  }
  return binaries;
}
