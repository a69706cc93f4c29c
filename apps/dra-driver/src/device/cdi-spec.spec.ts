import { describe, expect, it } from '@jest/globals';
import { cdiDeviceID, cdiSpecFileName, claimCdiSpec, podCdiSpec } from './cdi-spec.ts';

const CLAIM = '0b1c2d3e-1111-4222-8333-444455556666';
const POD = '11111111-2222-3333-4444-555555555555';

describe('claimCdiSpec', () => {
  it('describes a kernel-netdevice VF with its environment only', () => {
    expect(claimCdiSpec(CLAIM, [{ device: '0000-3b-02-0', pciAddress: '0000:3b:02.0', netAttachDefName: 'rail-a', vhost: false }])).toEqual({
      cdiVersion: '0.5.0',
      kind: 'sriovnetwork.k8snetworkplumbingwg.io/vf',
      devices: [
        {
          name: '0b1c2d3e-1111-4222-8333-444455556666-0000-3b-02-0',
          containerEdits: { env: ['SRIOVNETWORK_VF_DEVICE_0000_3b_02_0=0000:3b:02.0', 'SRIOVNETWORK_NET_ATTACH_DEF_NAME=rail-a'] },
        },
      ],
    });
  });

  it('adds the VFIO group and container devices for vfio-pci, and vhost-net and tun on request', () => {
    const spec = claimCdiSpec(CLAIM, [
      {
        device: '0000-3b-02-1',
        pciAddress: '0000:3b:02.1',
        netAttachDefName: '',
        vfio: { containerPath: '/dev/vfio/42', hostPath: '/dev/vfio/noiommu-42' },
        vhost: true,
      },
    ]);
    expect(spec.devices).toEqual([
      {
        name: '0b1c2d3e-1111-4222-8333-444455556666-0000-3b-02-1',
        containerEdits: {
          env: ['SRIOVNETWORK_VF_DEVICE_0000_3b_02_1=0000:3b:02.1', 'SRIOVNETWORK_NET_ATTACH_DEF_NAME=', 'SRIOVNETWORK_0000_3b_02_1_VFIO_DEVICE=/dev/vfio/42'],
          deviceNodes: [
            { path: '/dev/vfio/42', hostPath: '/dev/vfio/noiommu-42', type: 'c' },
            { path: '/dev/vfio/vfio', hostPath: '/dev/vfio/vfio', type: 'c' },
            { path: '/dev/vhost-net', hostPath: '/dev/vhost-net', type: 'c' },
            { path: '/dev/net/tun', hostPath: '/dev/net/tun', type: 'c' },
          ],
        },
      },
    ]);
  });

  it('keeps one device per VF in allocation order', () => {
    const spec = claimCdiSpec(CLAIM, [
      { device: 'b', pciAddress: '0000:3b:02.1', netAttachDefName: 'n', vhost: false },
      { device: 'a', pciAddress: '0000:3b:02.0', netAttachDefName: 'n', vhost: false },
    ]);
    expect(spec.devices.map((device) => device.name)).toEqual([`${CLAIM}-b`, `${CLAIM}-a`]);
  });

  it('refuses a device name CDI would reject', () => {
    expect(() => claimCdiSpec(CLAIM, [{ device: 'bad name-', pciAddress: '0000:3b:02.0', netAttachDefName: '', vhost: false }])).toThrow(
      /is not a valid CDI device name/,
    );
  });
});

describe('podCdiSpec', () => {
  it('lists every address in one variable on a device named after the Pod', () => {
    expect(podCdiSpec(POD, ['0000:3b:02.0', '0000:86:02.3'])).toEqual({
      cdiVersion: '0.5.0',
      kind: 'sriovnetwork.k8snetworkplumbingwg.io/vf',
      devices: [{ name: POD, containerEdits: { env: ['SRIOVNETWORK_PCI_ADDRESSES=0000:3b:02.0,0000:86:02.3'] } }],
    });
  });
});

describe('names', () => {
  it('names spec files and device IDs as the CDI cache and the kubelet expect', () => {
    expect(cdiSpecFileName(CLAIM)).toBe('sriovnetwork.k8snetworkplumbingwg.io-vf_0b1c2d3e-1111-4222-8333-444455556666.json');
    expect(cdiDeviceID(`${CLAIM}-0000-3b-02-0`)).toBe('sriovnetwork.k8snetworkplumbingwg.io/vf=0b1c2d3e-1111-4222-8333-444455556666-0000-3b-02-0');
  });
});
