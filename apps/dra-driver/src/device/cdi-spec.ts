import { DRIVER_NAME } from '@sriov-dra/contract';
import { VFIO_CONTAINER_DEVICE, type VfioDevice } from './vfio-device.ts';

/**
 * CDI specs for prepared VFs (CDI specification, cncf-tags/container-device-interface). Version 0.5.0 is
 * the lowest that allows what these specs use: device names that start with a digit (claim and Pod UIDs)
 * and device nodes with a hostPath. The lowest sufficient version is what the most runtimes accept.
 */
export const CDI_VERSION = '0.5.0';
export const CDI_CLASS = 'vf';
export const CDI_KIND = `${DRIVER_NAME}/${CDI_CLASS}`;

/** CDI device names: alphanumeric at both ends, "-", "_" and "." between. */
const CDI_DEVICE_NAME = /^[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9])?$/;

export interface CdiDeviceNode {
  readonly path: string;
  readonly hostPath: string;
  readonly type: 'c';
}

export interface CdiDevice {
  readonly name: string;
  readonly containerEdits: { readonly env: readonly string[]; readonly deviceNodes?: readonly CdiDeviceNode[] };
}

export interface CdiSpec {
  readonly cdiVersion: string;
  readonly kind: string;
  readonly devices: readonly CdiDevice[];
}

/** One prepared VF as its container sees it. */
export interface CdiVf {
  /** The DRA device name, e.g. 0000-3b-02-0. */
  readonly device: string;
  readonly pciAddress: string;
  readonly netAttachDefName: string;
  /** Present when the VF is bound to vfio-pci. */
  readonly vfio?: VfioDevice;
  /** VfConfig.addVhostMount: vhost-net and tun for a user-space data plane. */
  readonly vhost: boolean;
}

const CDI_SPEC_FILE_PREFIX = `${DRIVER_NAME}-${CDI_CLASS}_`;

/** The transient spec file of one claim or Pod, named as the CDI cache names transient specs. */
export function cdiSpecFileName(uid: string): string {
  return `${CDI_SPEC_FILE_PREFIX}${uid}.json`;
}

/** Whether a file in the shared CDI directory is one of this driver's specs (other drivers write there too). */
export function isCdiSpecFileName(name: string): boolean {
  return name.startsWith(CDI_SPEC_FILE_PREFIX);
}

export function cdiDeviceID(name: string): string {
  return `${CDI_KIND}=${name}`;
}

export function claimCdiDeviceName(claimUID: string, device: string): string {
  return `${claimUID}-${device}`;
}

/** Environment names embed the device name; "-" is not allowed in a shell variable name. */
function envDeviceName(device: string): string {
  return device.replaceAll('-', '_');
}

function cdiDevice(name: string, env: readonly string[], deviceNodes: readonly CdiDeviceNode[]): CdiDevice {
  if (!CDI_DEVICE_NAME.test(name)) throw new Error(`${JSON.stringify(name)} is not a valid CDI device name`);
  return { name, containerEdits: deviceNodes.length === 0 ? { env } : { env, deviceNodes } };
}

function charDevice(path: string, hostPath = path): CdiDeviceNode {
  return { path, hostPath, type: 'c' };
}

/** One CDI device per VF of a claim, with the environment the workload reads its VFs from. */
export function claimCdiSpec(claimUID: string, vfs: readonly CdiVf[]): CdiSpec {
  const devices = vfs.map((vf) => {
    const env = [`SRIOVNETWORK_VF_DEVICE_${envDeviceName(vf.device)}=${vf.pciAddress}`, `SRIOVNETWORK_NET_ATTACH_DEF_NAME=${vf.netAttachDefName}`];
    const nodes: CdiDeviceNode[] = [];
    if (vf.vfio !== undefined) {
      env.push(`SRIOVNETWORK_${envDeviceName(vf.device)}_VFIO_DEVICE=${vf.vfio.containerPath}`);
      nodes.push(charDevice(vf.vfio.containerPath, vf.vfio.hostPath), charDevice(VFIO_CONTAINER_DEVICE));
    }
    if (vf.vhost) nodes.push(charDevice('/dev/vhost-net'), charDevice('/dev/net/tun'));
    return cdiDevice(claimCdiDeviceName(claimUID, vf.device), env, nodes);
  });
  return { cdiVersion: CDI_VERSION, kind: CDI_KIND, devices };
}

/** The Pod-wide device: every VF PCI address of the Pod's active claims, in one variable. */
export function podCdiSpec(podUID: string, pciAddresses: readonly string[]): CdiSpec {
  return { cdiVersion: CDI_VERSION, kind: CDI_KIND, devices: [cdiDevice(podUID, [`SRIOVNETWORK_PCI_ADDRESSES=${pciAddresses.join(',')}`], [])] };
}
