import { describe, expect, it } from '@jest/globals';
import type { podResourcesV1 } from '@sriov-dra/kubelet-api';
import { buildResourceMap, takeDeviceID } from './resource-map.ts';

function container(devices: [string, string[]][], claims: [string, string[]][] = []): podResourcesV1.ContainerResources {
  return {
    name: 'c',
    devices: devices.map(([resourceName, deviceIds]) => ({ resourceName, deviceIds })),
    cpuIds: [],
    memory: [],
    dynamicResources: claims.map(([claimName, names]) => ({
      claimName,
      claimNamespace: 'ns',
      claimResources: [{ cdiDevices: names.map((name) => ({ name })), driverName: 'd', poolName: 'p', deviceName: 'x' }],
    })),
  };
}

const pods: podResourcesV1.PodResources[] = [
  { name: 'other', namespace: 'ns', containers: [container([['intel.com/sriov', ['0000:99:00.1']]])] },
  {
    name: 'trainer',
    namespace: 'ns',
    containers: [
      container([['intel.com/sriov', ['0000:3b:00.2']]], [['nic', ['k8s.example.com/vf=0000:87:00.2', 'bad-name', 'a=b=c']]]),
      container([['intel.com/sriov', ['0000:3b:00.3']]]),
    ],
  },
  { name: 'trainer', namespace: 'elsewhere', containers: [container([['intel.com/sriov', ['0000:aa:00.1']]])] },
];

describe('buildResourceMap', () => {
  it('collects the named Pod’s device-plugin devices by resource across containers, in the kubelet’s order', () => {
    const { map } = buildResourceMap(pods, { name: 'trainer', namespace: 'ns' });
    expect(map.get('intel.com/sriov')?.deviceIDs).toEqual(['0000:3b:00.2', '0000:3b:00.3']);
  });

  it('keys DRA claims by claim name with the device part of each vendor/class=device CDI name, skipping others', () => {
    const { map, skippedCdiNames } = buildResourceMap(pods, { name: 'trainer', namespace: 'ns' });
    expect(map.get('nic')?.deviceIDs).toEqual(['0000:87:00.2']);
    expect(skippedCdiNames).toEqual(['bad-name', 'a=b=c']);
  });

  it('is empty for a Pod the kubelet does not list', () => {
    expect(buildResourceMap(pods, { name: 'absent', namespace: 'ns' }).map.size).toBe(0);
  });
});

describe('takeDeviceID', () => {
  it('hands out one device per call and then none; an unknown resource has none', () => {
    const { map } = buildResourceMap(pods, { name: 'trainer', namespace: 'ns' });
    expect([1, 2, 3].map(() => takeDeviceID(map, 'intel.com/sriov'))).toEqual(['0000:3b:00.2', '0000:3b:00.3', '']);
    expect(takeDeviceID(map, 'unknown')).toBe('');
  });
});
