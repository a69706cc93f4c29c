import { DISCOVERY_RESERVED_ATTRIBUTES, deviceAttributeValueSchema } from '@sriov-dra/contract';
import { describe, expect, it } from '@jest/globals';
import { discoveredAttributes } from './discovered-attributes.ts';
import type { PhysicalFunction, VirtualFunction } from './virtual-function.ts';

/** A PF and a VF whose topology sysfs does not report. */
const barePf: PhysicalFunction = { pciAddress: '0000:3b:00.0', vendor: '15b3', deviceID: '101b', totalVfs: 8, numVfs: 4, linkType: 'ethernet', linkUp: true };
const pf: PhysicalFunction = { ...barePf, netdev: 'ens1f0', pcieRoot: 'pci0000:3a', numaNode: 1 };
const bareVf: VirtualFunction = {
  pciAddress: '0000:3b:00.4',
  vfIndex: 2,
  pf,
  vendor: '15b3',
  deviceID: '101c',
  driver: 'mlx5_core',
  netdev: 'ens1f0v2',
  rdmaCapable: true,
};
const vf: VirtualFunction = { ...bareVf, pcieRoot: 'pci0000:3a', numaNode: 1 };

describe('discoveredAttributes', () => {
  it('publishes the upstream attribute set with typed values', () => {
    expect(discoveredAttributes(vf)).toEqual({
      'sriovnetwork.k8snetworkplumbingwg.io/vendor': { string: '15b3' },
      'sriovnetwork.k8snetworkplumbingwg.io/deviceID': { string: '101c' },
      'sriovnetwork.k8snetworkplumbingwg.io/pfDeviceID': { string: '101b' },
      'sriovnetwork.k8snetworkplumbingwg.io/pciAddress': { string: '0000:3b:00.4' },
      'sriovnetwork.k8snetworkplumbingwg.io/PFName': { string: 'ens1f0' },
      'sriovnetwork.k8snetworkplumbingwg.io/EswitchMode': { string: 'legacy' },
      'sriovnetwork.k8snetworkplumbingwg.io/vfID': { int: 2 },
      'sriovnetwork.k8snetworkplumbingwg.io/pfPciAddress': { string: '0000:3b:00.0' },
      'sriovnetwork.k8snetworkplumbingwg.io/linkType': { string: 'ethernet' },
      'sriovnetwork.k8snetworkplumbingwg.io/rdmaCapable': { bool: true },
      'k8s.cni.cncf.io/deviceID': { string: '0000:3b:00.4' },
      'resource.kubernetes.io/pcieRoot': { string: 'pci0000:3a' },
      'resource.kubernetes.io/pciBusID': { string: '0000:3b:00.4' },
      'resource.kubernetes.io/numaNode': { int: 1 },
      'dra.net/numaNode': { int: 1 },
    });
  });

  it('publishes only reserved keys, each a valid DRA attribute value', () => {
    const attributes = discoveredAttributes(vf);
    for (const [key, value] of Object.entries(attributes)) {
      expect(DISCOVERY_RESERVED_ATTRIBUTES).toContain(key);
      expect(deviceAttributeValueSchema.safeParse(value).success).toBe(true);
    }
  });

  it('leaves out a PCIe root and NUMA node neither the VF nor its PF knows, and a missing PF name', () => {
    const attributes = discoveredAttributes({ ...bareVf, pf: barePf });
    expect(Object.keys(attributes)).not.toContain('resource.kubernetes.io/pcieRoot');
    expect(Object.keys(attributes)).not.toContain('resource.kubernetes.io/numaNode');
    expect(Object.keys(attributes)).not.toContain('dra.net/numaNode');
    expect(Object.keys(attributes)).not.toContain('sriovnetwork.k8snetworkplumbingwg.io/PFName');
    expect(Object.values(attributes)).not.toContainEqual({ string: '' });
  });

  it("takes the PF's topology when the VF's own entries do not say, and the PF's eswitch mode", () => {
    const attributes = discoveredAttributes({ ...bareVf, pf: { ...pf, eswitchMode: 'switchdev', pcieRoot: 'pci0000:86', numaNode: 0 } });
    expect(attributes['resource.kubernetes.io/pcieRoot']).toEqual({ string: 'pci0000:86' });
    expect(attributes['resource.kubernetes.io/numaNode']).toEqual({ int: 0 });
    expect(attributes['dra.net/numaNode']).toEqual({ int: 0 });
    expect(attributes['sriovnetwork.k8snetworkplumbingwg.io/EswitchMode']).toEqual({ string: 'switchdev' });
  });
});
