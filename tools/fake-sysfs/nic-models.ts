/**
 * SR-IOV NIC models the fake tree can imitate. The IDs are the ones the real parts report in sysfs, so
 * filters and attributes written against real hardware match the fake tree unchanged.
 */

export interface NicModel {
  readonly vendor: string;
  readonly pfDevice: string;
  readonly vfDevice: string;
  /** Kernel driver that claims the PF and, by default, the VFs. */
  readonly pfDriver: string;
  readonly vfDriver: string;
  /** Mellanox VFs expose an RDMA device next to their netdev. */
  readonly rdma: boolean;
}

export const NIC_MODELS = {
  'connectx-6': { vendor: '15b3', pfDevice: '101b', vfDevice: '101c', pfDriver: 'mlx5_core', vfDriver: 'mlx5_core', rdma: true },
  'connectx-7': { vendor: '15b3', pfDevice: '1021', vfDevice: '101e', pfDriver: 'mlx5_core', vfDriver: 'mlx5_core', rdma: true },
  e810: { vendor: '8086', pfDevice: '1593', vfDevice: '1889', pfDriver: 'ice', vfDriver: 'iavf', rdma: false },
  x710: { vendor: '8086', pfDevice: '1572', vfDevice: '154c', pfDriver: 'i40e', vfDriver: 'iavf', rdma: false },
} as const satisfies Record<string, NicModel>;

export type NicModelName = keyof typeof NIC_MODELS;

export function isNicModelName(value: string): value is NicModelName {
  return Object.hasOwn(NIC_MODELS, value);
}

/** Drivers that create a kernel netdev when they bind; every other driver (vfio-pci, uio) creates none. */
const NETDEV_DRIVERS: ReadonlySet<string> = new Set(['mlx5_core', 'ice', 'i40e', 'iavf', 'ixgbe', 'ixgbevf', 'igb', 'igbvf', 'bnxt_en']);

export function createsNetdev(driver: string): boolean {
  return NETDEV_DRIVERS.has(driver);
}

/** Drivers that create an RDMA device next to the netdev (when the function supports RDMA). */
export function createsRdmaDevice(driver: string): boolean {
  return driver === 'mlx5_core';
}

/** Drivers that hand the device to user space through VFIO. */
export function isVfioDriver(driver: string): boolean {
  return driver === 'vfio-pci';
}

/** ARPHRD values of `net/<if>/type`. */
export const ARPHRD = { ether: 1, infiniband: 32 } as const;
