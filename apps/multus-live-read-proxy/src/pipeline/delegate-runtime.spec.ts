import { describe, expect, it } from '@jest/globals';
import { parseNetworkSelections } from '@sriov-dra/cni-render';
import { cachedIfName, capabilityArgs, runtimeCapabilities, selectionRequests } from './delegate-runtime.ts';

function requestsOf(annotation: string): ReturnType<typeof selectionRequests> {
  const parsed = parseNetworkSelections(annotation, 'ns');
  if (!parsed.ok || parsed.value[0] === undefined) throw new Error(`test selection does not parse: ${annotation}`);
  return selectionRequests(parsed.value[0]);
}

describe('delegate runtime data', () => {
  const runtime = runtimeCapabilities(
    Buffer.from('{"cniVersion":"1.0.0","runtimeConfig":{"portMappings":[{"hostPort":80,"containerPort":8080,"protocol":"tcp"}]}}'),
  );

  it('gives the master only the runtime’s capabilities and every other delegate the selection’s requests over them', () => {
    const requests = requestsOf(
      '[{"name":"n","ips":["10.1.0.5/24"],"mac":"02:00:00:00:00:01","infiniband-guid":"00:00:00:00:00:00:00:01","deviceID":"0000:03:00.1","bandwidth":{"ingressRate":1000}}]',
    );
    expect(capabilityArgs(runtime, requests, true)).toEqual({ portMappings: [{ hostPort: 80, containerPort: 8080, protocol: 'tcp' }] });
    expect(capabilityArgs(runtime, requests, false)).toEqual({
      portMappings: [{ hostPort: 80, containerPort: 8080, protocol: 'tcp' }],
      bandwidth: { ingressRate: 1000 },
      ips: ['10.1.0.5/24'],
      mac: '02:00:00:00:00:01',
      infinibandGUID: '00:00:00:00:00:00:00:01',
      deviceID: '0000:03:00.1',
    });
    expect(capabilityArgs(runtime, requestsOf('[{"name":"n","portMappings":[{"hostPort":1,"containerPort":2}]}]'), false)).toEqual({
      portMappings: [{ hostPort: 1, containerPort: 2 }],
    });
  });

  it('reads no runtime capabilities from a configuration without them, or from one that is not JSON', () => {
    expect(runtimeCapabilities(Buffer.from('{"cniVersion":"1.0.0"}'))).toEqual({});
    expect(runtimeCapabilities(Buffer.from('{"runtimeConfig":[1]}'))).toEqual({});
    expect(runtimeCapabilities(Buffer.from('not json'))).toEqual({});
  });

  it('names cached delegates as Multus does: the request, else the runtime’s for the first, else net<index>', () => {
    expect([cachedIfName(undefined, 0, 'eth0'), cachedIfName('', 1, 'eth0'), cachedIfName('dra0', 2, 'eth0'), cachedIfName(undefined, 3, 'eth0')]).toEqual([
      'eth0',
      'net1',
      'dra0',
      'net3',
    ]);
  });
});
