// The node the stack runs on, simulated where no hardware exists: a fake sysfs with two ConnectX-6 PFs
// on two PCIe roots (8 VFs each) served by the kernel emulator, each VF's netdev a real dummy link in
// this network namespace, the kubelet's and the CNI runtime's host directories, the real CNI plugins
// (bridge, host-local, Whereabouts) plus the sriov stand-in, and a primary network on a host bridge.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cniPlugins } from '@sriov-dra/k8s/testing';
import { type GeneratedPf, generateFakeSysfs } from '../../../tools/fake-sysfs/generate.ts';
import { type KernelEmulator, startKernelEmulator } from '../../../tools/fake-sysfs/kernel-emulator.ts';
import { installSriovStandIn } from '../node/sriov-cni-install.ts';

/** The two rails of the simulated node: a PF per PCIe root, as §14.2's acceptance fixture has them. */
export const RAIL_PFS = [
  { netdev: 'ens1f0', pcieRoot: 'pci0000:3a', bus: 0x3b },
  { netdev: 'ens2f0', pcieRoot: 'pci0000:86', bus: 0x87 },
] as const;
export const VFS_PER_PF = 8;
/** The primary (cluster) network's subnet; every sandbox gets eth0 there. */
export const PRIMARY_SUBNET = '10.244.7.0/24';

export interface CniHostPaths {
  readonly cniBinDir: string;
  readonly cniConfDir: string;
  readonly cacheDir: string;
  readonly socketDir: string;
  readonly netnsDir: string;
}

export interface SimulatedNode {
  readonly name: string;
  readonly root: string;
  readonly kubeletDir: string;
  readonly pluginsDir: string;
  readonly registrarDir: string;
  readonly cdiRoot: string;
  readonly sysfsRoot: string;
  readonly devRoot: string;
  readonly cni: CniHostPaths;
  /** host-local's lease directory for every network on this node that uses it. */
  readonly hostLocalDir: string;
  /** Whereabouts' flat-file configuration (its kubeconfig); a NAD names it as `configuration_path`. */
  readonly whereaboutsConfig: string;
  readonly pfs: readonly GeneratedPf[];
  /** VF netdevs in this (the host's) network namespace now, i.e. not moved into a sandbox. */
  vfLinksOnHost(): string[];
  /** The kernel driver bound to a function now, read from sysfs. */
  driverOf(pciAddress: string): string | null;
  stop(): Promise<void>;
}

function ip(...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function linkExists(name: string): boolean {
  try {
    ip('link', 'show', 'dev', name);
    return true;
  } catch {
    return false;
  }
}

/**
 * A link that stands alone like a VF's netdev and moves between namespaces: dummy, or ifb where the
 * kernel has no dummy driver (both behave the same here, neither carries traffic).
 */
function addStandaloneLink(name: string): void {
  try {
    ip('link', 'add', name, 'type', 'dummy');
  } catch {
    ip('link', 'add', name, 'type', 'ifb');
  }
}

/**
 * Lays the node out under a new temporary directory. `whereaboutsKubeconfig` is the credential
 * Whereabouts stores its IP pools with; `primaryBridge` names the host bridge of the primary network.
 */
export function startSimulatedNode(options: {
  readonly name: string;
  readonly whereaboutsKubeconfig: string;
  readonly primaryBridge: string;
  /**
   * The rails' PF netdev names, RAIL_PFS' by default. Each VF's netdev is a real link in this network
   * namespace named after its PF's (`<pf>v<index>`), so nodes simulated side by side need PF names of
   * their own; policies then select the PFs by PCI address, which every simulated node shares.
   */
  readonly pfNetdevs?: readonly [string, string];
  /**
   * A real node's runtime: the plugins are copied rather than linked (a containerized Multus daemon finds
   * them in its own view of the directory), Pods get a default route through the bridge (to reach the
   * API server's Service address), and their network namespaces are where containerd mounts them.
   */
  readonly runtime?: { readonly netnsDir: string };
}): SimulatedNode {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sriov-dra-node-'));
  const kubeletDir = path.join(root, 'var/lib/kubelet');
  const cni: CniHostPaths = {
    cniBinDir: path.join(root, 'opt/cni/bin'),
    cniConfDir: path.join(root, 'etc/cni/net.d'),
    cacheDir: path.join(root, 'var/lib/cni/multus'),
    socketDir: path.join(root, 'run/multus'),
    netnsDir: options.runtime?.netnsDir ?? '/var/run/netns',
  };
  const paths = {
    pluginsDir: path.join(kubeletDir, 'plugins'),
    registrarDir: path.join(kubeletDir, 'plugins_registry'),
    cdiRoot: path.join(root, 'var/run/cdi'),
    sysfsRoot: path.join(root, 'sys'),
    devRoot: path.join(root, 'dev'),
    hostLocalDir: path.join(root, 'var/lib/cni/networks'),
  };
  // What the kubelet does for the chart's DirectoryOrCreate host paths.
  for (const dir of [cni.cniBinDir, cni.cniConfDir, cni.cacheDir, cni.socketDir, cni.netnsDir, ...Object.values(paths)]) fs.mkdirSync(dir, { recursive: true });

  const generated = generateFakeSysfs(paths.sysfsRoot, {
    pfs: RAIL_PFS.map((pf, index) => ({
      model: 'connectx-6',
      pcieRoot: pf.pcieRoot,
      bus: pf.bus,
      numaNode: index,
      netdev: options.pfNetdevs?.[index] ?? pf.netdev,
      vfs: Array.from({ length: VFS_PER_PF }, () => ({})),
    })),
  });
  const emulator: KernelEmulator = startKernelEmulator({ root: paths.sysfsRoot, devRoot: paths.devRoot });
  const vfNetdevs = generated.pfs.flatMap((pf) => pf.vfs.flatMap((vf) => (vf.netdev === undefined ? [] : [vf.netdev])));
  for (const netdev of vfNetdevs) {
    // A link of that name left by an earlier run that was killed would make this one's VF ambiguous.
    if (linkExists(netdev)) ip('link', 'del', netdev);
    addStandaloneLink(netdev);
  }

  // The real plugins, and sriov as the stand-in that moves the VF's dummy link like sriov-cni moves a VF.
  const plugins = cniPlugins();
  for (const plugin of ['bridge', 'host-local', 'whereabouts', 'loopback']) {
    if (options.runtime === undefined) fs.symlinkSync(path.join(plugins.binDir, plugin), path.join(cni.cniBinDir, plugin));
    else fs.copyFileSync(path.join(plugins.binDir, plugin), path.join(cni.cniBinDir, plugin));
  }
  installSriovStandIn(cni.cniBinDir, { sysfsRoot: paths.sysfsRoot, stateDir: path.join(root, 'var/lib/cni/sriov') });
  const whereaboutsConfig = path.join(cni.cniConfDir, 'whereabouts.d', 'whereabouts.conf');
  fs.mkdirSync(path.dirname(whereaboutsConfig), { recursive: true });
  fs.writeFileSync(whereaboutsConfig, JSON.stringify({ datastore: 'kubernetes', kubernetes: { kubeconfig: options.whereaboutsKubeconfig } }));
  // The cluster network the node's network plugin leaves in confDir; the Multus daemon's auto mode wraps it.
  fs.writeFileSync(
    path.join(cni.cniConfDir, '10-primary.conflist'),
    JSON.stringify({
      cniVersion: '1.0.0',
      name: 'primary',
      plugins: [
        {
          type: 'bridge',
          bridge: options.primaryBridge,
          ...(options.runtime === undefined ? {} : { isGateway: true, ipMasq: false }),
          ipam: {
            type: 'host-local',
            // On a real node the chart's own Pods (operator, webhook) hold primary leases for as long as the
            // node runs; they are kept apart from the workloads' leases, which must all be released.
            dataDir: options.runtime === undefined ? paths.hostLocalDir : path.join(root, 'var/lib/cni/primary'),
            ranges: [[{ subnet: PRIMARY_SUBNET }]],
            ...(options.runtime === undefined ? {} : { routes: [{ dst: '0.0.0.0/0' }] }),
          },
        },
      ],
    }),
  );

  return {
    name: options.name,
    root,
    kubeletDir,
    ...paths,
    cni,
    whereaboutsConfig,
    pfs: generated.pfs,
    vfLinksOnHost: () => vfNetdevs.filter(linkExists),
    driverOf: (pciAddress) => {
      const link = path.join(paths.sysfsRoot, 'bus/pci/devices', pciAddress, 'driver');
      return fs.existsSync(link) ? path.basename(fs.readlinkSync(link)) : null;
    },
    stop: async () => {
      await emulator.stop();
      for (const netdev of vfNetdevs) if (linkExists(netdev)) ip('link', 'del', netdev);
      if (linkExists(options.primaryBridge)) ip('link', 'del', options.primaryBridge);
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
