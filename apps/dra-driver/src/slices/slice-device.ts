import type { DeviceAttributeValue } from '@sriov-dra/contract';

/** A capacity as resource.k8s.io/v1 publishes it: a quantity, in the API server's canonical spelling. */
export interface DeviceCapacity {
  readonly value: string;
}

/** One device as it appears in a ResourceSlice: attribute and capacity names are fully qualified. */
export interface SliceDevice {
  readonly name: string;
  readonly attributes: Readonly<Record<string, DeviceAttributeValue>>;
  readonly capacity: Readonly<Record<string, DeviceCapacity>>;
}
