import { FakeTree } from './tree.ts';

/**
 * What binding a driver to a PCI function does to sysfs, shared by the generator (the state a host boots
 * into) and the kernel emulator (the state after a bind or unbind write).
 */

export interface NetdevSpec {
  readonly name: string;
  /** ARPHRD type: 1 Ethernet, 32 InfiniBand. */
  readonly type: number;
  readonly operstate: string;
  readonly address: string;
  /** devlink eswitch mode as mlx5 exposes it under `compat/devlink/mode`; PFs only. */
  readonly eswitchMode?: string;
}

export interface BindEffects {
  readonly netdev?: NetdevSpec;
  /** Name of the RDMA device to create (`mlx5_3`). */
  readonly rdmaDevice?: string;
  /** IOMMU group number, for a VFIO driver: the group's character device appears under `devRoot`. */
  readonly vfio?: { readonly group: string; readonly devRoot?: string };
}

export function deviceDir(tree: FakeTree, bdf: string): string | undefined {
  return tree.resolve(`bus/pci/devices/${bdf}`);
}

export function boundDriver(tree: FakeTree, bdf: string): string | undefined {
  const target = tree.resolve(`bus/pci/devices/${bdf}/driver`);
  return target?.split('/').at(-1);
}

export function bindDriver(tree: FakeTree, device: string, bdf: string, driver: string, effects: BindEffects): void {
  tree.link(`${device}/driver`, `bus/pci/drivers/${driver}`);
  tree.link(`bus/pci/drivers/${driver}/${bdf}`, device);
  if (effects.netdev !== undefined) {
    const { name, type, operstate, address, eswitchMode } = effects.netdev;
    const dir = `${device}/net/${name}`;
    tree.file(`${dir}/type`, `${type}\n`);
    tree.file(`${dir}/operstate`, `${operstate}\n`);
    tree.file(`${dir}/address`, `${address}\n`);
    if (eswitchMode !== undefined) tree.file(`${dir}/compat/devlink/mode`, `${eswitchMode}\n`);
    tree.link(`class/net/${name}`, dir);
  }
  if (effects.rdmaDevice !== undefined) {
    tree.dir(`${device}/infiniband/${effects.rdmaDevice}`);
    tree.link(`class/infiniband/${effects.rdmaDevice}`, `${device}/infiniband/${effects.rdmaDevice}`);
  }
  if (effects.vfio !== undefined) {
    tree.dir(`${device}/vfio-dev/vfio${effects.vfio.group}`);
    if (effects.vfio.devRoot !== undefined) new FakeTree(effects.vfio.devRoot).file(`vfio/${effects.vfio.group}`, '');
  }
}

/** Undoes bindDriver: the driver link and every device the driver created. Returns the driver unbound. */
export function unbindDriver(tree: FakeTree, device: string, bdf: string, devRoot?: string): string | undefined {
  const driver = boundDriver(tree, bdf);
  if (driver === undefined) return undefined;
  for (const name of tree.list(`${device}/net`)) tree.remove(`class/net/${name}`);
  for (const name of tree.list(`${device}/infiniband`)) tree.remove(`class/infiniband/${name}`);
  for (const entry of tree.list(`${device}/vfio-dev`)) {
    if (devRoot !== undefined) new FakeTree(devRoot).remove(`vfio/${entry.replace(/^vfio/, '')}`);
  }
  tree.remove(`${device}/net`);
  tree.remove(`${device}/infiniband`);
  tree.remove(`${device}/vfio-dev`);
  tree.remove(`${device}/driver`);
  tree.remove(`bus/pci/drivers/${driver}/${bdf}`);
  return driver;
}
