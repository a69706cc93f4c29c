/**
 * What hardware discovery knows about one SR-IOV virtual function and its physical function (§4.2). This is
 * the hand-off between discovery (sysfs → these records) and policy (records → published devices): policy
 * filters match these fields, and the discovered (reserved) attributes are derived from them.
 *
 * Optional fields are absent when sysfs does not say; they are never filled with placeholders such as ""
 * or -1, because a published placeholder would match selectors it should not.
 */

export type LinkType = 'ethernet' | 'infiniband' | 'unknown';

export type EswitchMode = 'legacy' | 'switchdev';

export interface PhysicalFunction {
  /** Full PCI address (domain:bus:device.function), lowercase, e.g. `0000:3b:00.0`. */
  readonly pciAddress: string;
  /** Kernel netdev name, when the PF has one. */
  readonly netdev?: string;
  /** PCI vendor ID as four lowercase hex digits without `0x`, e.g. `15b3`. */
  readonly vendor: string;
  /** PCI device ID as four lowercase hex digits without `0x`. */
  readonly deviceID: string;
  readonly totalVfs: number;
  readonly numVfs: number;
  readonly linkType: LinkType;
  readonly eswitchMode?: EswitchMode;
  /** True when the PF's link is up (operstate); a PF whose link goes down makes its VFs unhealthy. */
  readonly linkUp: boolean;
  /** PCIe root complex as the Kubernetes standard attribute names it, e.g. `pci0000:3a`. */
  readonly pcieRoot?: string;
  readonly numaNode?: number;
}

export interface VirtualFunction {
  readonly pciAddress: string;
  /** Index of the VF under its PF (the N of the PF's `virtfnN` link). */
  readonly vfIndex: number;
  readonly pf: PhysicalFunction;
  readonly vendor: string;
  readonly deviceID: string;
  /** Kernel driver currently bound, absent when unbound. */
  readonly driver?: string;
  /** Kernel netdev name, absent when the VF has none (unbound, or bound to vfio-pci). */
  readonly netdev?: string;
  readonly pcieRoot?: string;
  readonly numaNode?: number;
  /** True when an RDMA device exists for the VF. */
  readonly rdmaCapable: boolean;
}
