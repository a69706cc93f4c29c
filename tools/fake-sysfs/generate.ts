import { ARPHRD, NIC_MODELS, type NicModel, type NicModelName, createsNetdev, createsRdmaDevice, isVfioDriver } from './nic-models.ts';
import { type BindEffects, bindDriver } from './driver-binding.ts';
import { type Bdf, formatBdf, macAddressOf, parsePcieRoot, predictableNetdevName, vfNetdevName } from './pci-address.ts';
import { FakeTree } from './tree.ts';

/**
 * Writes a fake sysfs tree laid out like the kernel's: real device directories under
 * `devices/pci<domain>:<bus>/<root port>/<function>`, and `bus/pci/devices`, `bus/pci/drivers/<driver>`,
 * `class/net`, `class/infiniband` and `kernel/iommu_groups` as relative symlinks into them. Code that reads
 * a real /sys reads this tree unchanged when pointed at its root.
 */

export interface VfSpec {
  /** Bound driver; null leaves the VF unbound. Defaults to the model's VF driver. */
  readonly driver?: string | null;
}

export interface PfSpec {
  readonly model: NicModelName | NicModel;
  /** PCIe root complex the PF sits below, e.g. `pci0000:3a`. */
  readonly pcieRoot: string;
  /** Bus of the PF below its root port; the PF is function 0 of device 0 there. Must be unique per tree. */
  readonly bus: number;
  /** NUMA node; -1 is what the kernel reports without NUMA affinity. */
  readonly numaNode: number;
  /** PF netdev name; null for a PF without netdev. Defaults to the predictable name (`enp59s0f0`). */
  readonly netdev?: string | null;
  readonly linkType?: 'ethernet' | 'infiniband';
  readonly operstate?: 'up' | 'down';
  readonly eswitchMode?: 'legacy' | 'switchdev';
  /** Defaults to the number of VFs, but never less than 8 (real PFs support more VFs than are enabled). */
  readonly totalVfs?: number;
  readonly vfs: readonly VfSpec[];
  /** Whether bound mlx5 functions get an RDMA device; defaults to the model's capability. */
  readonly rdma?: boolean;
}

export interface FakeSysfsSpec {
  readonly pfs: readonly PfSpec[];
  /** Drivers loaded beyond those the functions are bound to, e.g. `uio_pci_generic`: a function can be bound to them later. */
  readonly drivers?: readonly string[];
}

export interface GeneratedFunction {
  readonly pciAddress: string;
  /** Root-relative real directory of the function. */
  readonly devicePath: string;
  readonly driver?: string;
  readonly netdev?: string;
}

export interface GeneratedPf extends GeneratedFunction {
  readonly vfs: readonly GeneratedFunction[];
}

export interface GeneratedSysfs {
  readonly root: string;
  readonly pfs: readonly GeneratedPf[];
}

/** The bus-wide files every tree has, whatever its devices. */
const ALWAYS_PRESENT_DRIVERS = ['vfio-pci', 'pcieport'];
const ROOT_PORT = { vendor: '8086', device: '347a', class: '0x060400' };
/** mlx5 and ice place the first VF two routing IDs after the PF; the fake tree does the same for every model. */
const FIRST_VF_OFFSET = 2;
const MAX_VFS = 254;

function modelOf(spec: PfSpec): NicModel {
  return typeof spec.model === 'string' ? NIC_MODELS[spec.model] : spec.model;
}

function vfBdf(pf: Bdf, index: number): Bdf {
  const routingId = pf.device * 8 + pf.fn + FIRST_VF_OFFSET + index;
  return { domain: pf.domain, bus: pf.bus, device: Math.floor(routingId / 8), fn: routingId % 8 };
}

class Generator {
  private iommuGroup = 0;
  private rdmaIndex = 0;
  private readonly drivers = new Set<string>(ALWAYS_PRESENT_DRIVERS);
  private readonly seen = new Set<string>();

  private readonly tree: FakeTree;

  constructor(tree: FakeTree) {
    this.tree = tree;
  }

  run(spec: FakeSysfsSpec): GeneratedPf[] {
    const pfs = spec.pfs.map((pf, ordinal) => this.physicalFunction(pf, ordinal));
    for (const driver of spec.drivers ?? []) this.drivers.add(driver);
    for (const driver of this.drivers) this.driverDir(driver);
    this.tree.file('bus/pci/drivers_probe', '');
    return pfs;
  }

  private claim(bdf: Bdf): string {
    const address = formatBdf(bdf);
    if (this.seen.has(address)) throw new Error(`fake sysfs: PCI address ${address} is used twice; give every PF its own bus`);
    this.seen.add(address);
    return address;
  }

  private physicalFunction(spec: PfSpec, ordinal: number): GeneratedPf {
    const root = parsePcieRoot(spec.pcieRoot);
    if (root === undefined) throw new Error(`fake sysfs: PCIe root ${spec.pcieRoot} is not of the form pci<domain>:<bus>`);
    if (spec.vfs.length > MAX_VFS) throw new Error(`fake sysfs: at most ${MAX_VFS} VFs fit on one PF bus`);
    const model = modelOf(spec);
    // One root port per PF, on the root bus, numbered by the PF's position so ports under one root differ.
    const port: Bdf = { domain: root.domain, bus: root.bus, device: ordinal % 32, fn: 0 };
    const portAddress = formatBdf(port);
    const portDir = `devices/${spec.pcieRoot}/${portAddress}`;
    if (!this.seen.has(portAddress)) {
      this.seen.add(portAddress);
      this.pciFunction(portDir, portAddress, { ...ROOT_PORT, numaNode: spec.numaNode });
      this.bind(portDir, portAddress, 'pcieport', {});
    }

    const pf: Bdf = { domain: root.domain, bus: spec.bus, device: 0, fn: 0 };
    const pfAddress = this.claim(pf);
    const pfDir = `${portDir}/${pfAddress}`;
    const netdev = spec.netdev === undefined ? predictableNetdevName(pf) : (spec.netdev ?? undefined);
    const type = spec.linkType === 'infiniband' ? ARPHRD.infiniband : ARPHRD.ether;
    const operstate = spec.operstate ?? 'up';
    const rdma = spec.rdma ?? model.rdma;
    this.pciFunction(pfDir, pfAddress, { vendor: model.vendor, device: model.pfDevice, class: '0x020000', numaNode: spec.numaNode });
    this.tree.file(`${pfDir}/sriov_totalvfs`, `${spec.totalVfs ?? Math.max(spec.vfs.length, 8)}\n`);
    this.tree.file(`${pfDir}/sriov_numvfs`, `${spec.vfs.length}\n`);
    this.bind(pfDir, pfAddress, model.pfDriver, {
      ...(netdev === undefined
        ? {}
        : {
            netdev: { name: netdev, type, operstate, address: macAddressOf(pf), ...(spec.eswitchMode === undefined ? {} : { eswitchMode: spec.eswitchMode }) },
          }),
      ...(rdma && createsRdmaDevice(model.pfDriver) ? { rdmaDevice: this.nextRdmaDevice() } : {}),
    });

    const vfs = spec.vfs.map((vf, index) => {
      const bdf = vfBdf(pf, index);
      const address = this.claim(bdf);
      const dir = `${portDir}/${address}`;
      this.pciFunction(dir, address, { vendor: model.vendor, device: model.vfDevice, class: '0x020000', numaNode: spec.numaNode });
      this.tree.link(`${dir}/physfn`, pfDir);
      this.tree.link(`${pfDir}/virtfn${index}`, dir);
      const driver = vf.driver === undefined ? model.vfDriver : (vf.driver ?? undefined);
      const vfNetdev =
        driver !== undefined && createsNetdev(driver) ? (netdev === undefined ? predictableNetdevName(bdf) : vfNetdevName(netdev, index)) : undefined;
      if (driver !== undefined) {
        this.bind(dir, address, driver, {
          ...(vfNetdev === undefined ? {} : { netdev: { name: vfNetdev, type, operstate, address: macAddressOf(bdf) } }),
          ...(rdma && createsRdmaDevice(driver) ? { rdmaDevice: this.nextRdmaDevice() } : {}),
          ...(isVfioDriver(driver) ? { vfio: { group: this.groupOf(dir) } } : {}),
        });
      }
      return { pciAddress: address, devicePath: dir, ...(driver === undefined ? {} : { driver }), ...(vfNetdev === undefined ? {} : { netdev: vfNetdev }) };
    });
    return { pciAddress: pfAddress, devicePath: pfDir, driver: model.pfDriver, ...(netdev === undefined ? {} : { netdev }), vfs };
  }

  private pciFunction(dir: string, address: string, ids: { vendor: string; device: string; class: string; numaNode: number }): void {
    this.tree.file(`${dir}/vendor`, `0x${ids.vendor}\n`);
    this.tree.file(`${dir}/device`, `0x${ids.device}\n`);
    this.tree.file(`${dir}/class`, `${ids.class}\n`);
    this.tree.file(`${dir}/numa_node`, `${ids.numaNode}\n`);
    // The kernel shows an unset override as "(null)".
    this.tree.file(`${dir}/driver_override`, '(null)\n');
    this.tree.link(`bus/pci/devices/${address}`, dir);
    const group = String(this.iommuGroup++);
    this.tree.link(`kernel/iommu_groups/${group}/devices/${address}`, dir);
    this.tree.link(`${dir}/iommu_group`, `kernel/iommu_groups/${group}`);
  }

  private groupOf(dir: string): string {
    return this.tree.resolve(`${dir}/iommu_group`)?.split('/').at(-1) ?? '';
  }

  private bind(dir: string, address: string, driver: string, effects: BindEffects): void {
    this.drivers.add(driver);
    this.driverDir(driver);
    bindDriver(this.tree, dir, address, driver, effects);
  }

  private driverDir(driver: string): void {
    for (const file of ['bind', 'unbind', 'new_id', 'remove_id']) {
      if (!this.tree.exists(`bus/pci/drivers/${driver}/${file}`)) this.tree.file(`bus/pci/drivers/${driver}/${file}`, '');
    }
  }

  private nextRdmaDevice(): string {
    return `mlx5_${this.rdmaIndex++}`;
  }
}

/** Writes the tree under `root` (which should be empty) and describes what it wrote. */
export function generateFakeSysfs(root: string, spec: FakeSysfsSpec): GeneratedSysfs {
  const tree = new FakeTree(root);
  tree.dir('');
  return { root, pfs: new Generator(tree).run(spec) };
}

export interface UniformLayout {
  readonly pfs: number;
  readonly vfsPerPf: number;
  readonly model?: NicModelName;
  /** PFs are spread over these roots round-robin. */
  readonly pcieRoots?: readonly string[];
  /** NUMA node of each root, by position in pcieRoots; -1 for none. */
  readonly numaNodes?: readonly number[];
  readonly vfDriver?: string | null;
  readonly linkType?: 'ethernet' | 'infiniband';
  readonly operstate?: 'up' | 'down';
  readonly eswitchMode?: 'legacy' | 'switchdev';
}

export const DEFAULT_PCIE_ROOTS: readonly string[] = ['pci0000:3a', 'pci0000:86'];

/**
 * N identical PFs with M VFs each. PF i sits below root i mod R, on the bus right after its root's earlier
 * PFs: two roots give PFs at 0000:3b:00.0, 0000:87:00.0, 0000:3c:00.0, …
 */
export function uniformLayout(layout: UniformLayout): FakeSysfsSpec {
  const roots = layout.pcieRoots ?? DEFAULT_PCIE_ROOTS;
  const pfs = Array.from({ length: layout.pfs }, (_, i): PfSpec => {
    const rootIndex = i % roots.length;
    const pcieRoot = roots[rootIndex] ?? '';
    const rootBus = parsePcieRoot(pcieRoot)?.bus ?? 0;
    return {
      model: layout.model ?? 'connectx-6',
      pcieRoot,
      bus: rootBus + 1 + Math.floor(i / roots.length),
      numaNode: layout.numaNodes?.[rootIndex] ?? rootIndex,
      vfs: Array.from({ length: layout.vfsPerPf }, () => (layout.vfDriver === undefined ? {} : { driver: layout.vfDriver })),
      ...(layout.linkType === undefined ? {} : { linkType: layout.linkType }),
      ...(layout.operstate === undefined ? {} : { operstate: layout.operstate }),
      ...(layout.eswitchMode === undefined ? {} : { eswitchMode: layout.eswitchMode }),
    };
  });
  return { pfs };
}
