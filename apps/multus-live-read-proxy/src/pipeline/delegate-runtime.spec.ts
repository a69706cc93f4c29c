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

  // Exactly these members: an own member left undefined would still be written into the delegate cache's
  // capabilityArgs and is not JSON data to hand a plugin.
  it('asks nothing of a delegate whose selection requests nothing, or only empty values', () => {
    expect(requestsOf('[{"name":"n"}]')).toStrictEqual({});
    expect(requestsOf('[{"name":"n","ips":[],"mac":"","infiniband-guid":"","deviceID":"","portMappings":null,"bandwidth":null}]')).toStrictEqual({});
    expect(capabilityArgs(runtime, {}, false)).toStrictEqual(runtime);
    expect(capabilityArgs({}, { ips: [], mac: '', infinibandGUID: '', deviceID: '' }, false)).toStrictEqual({});
  });

  it('takes each request on its own, under any spelling Go folds to its field', () => {
    expect(requestsOf('[{"name":"n","ips":["10.1.0.5/24"]}]')).toStrictEqual({ ips: ['10.1.0.5/24'] });
    expect(requestsOf('[{"name":"n","mac":"02:00:00:00:00:01"}]')).toStrictEqual({ mac: '02:00:00:00:00:01' });
    expect(requestsOf('[{"name":"n","infiniband-guid":"00:00:00:00:00:00:00:01"}]')).toStrictEqual({ infinibandGUID: '00:00:00:00:00:00:00:01' });
    expect(requestsOf('[{"name":"n","deviceID":"0000:03:00.1"}]')).toStrictEqual({ deviceID: '0000:03:00.1' });
    expect(requestsOf('[{"name":"n","Bandwidth":{"egressRate":5}}]')).toStrictEqual({ bandwidth: { egressRate: 5 } });
    expect(capabilityArgs({}, { bandwidth: { egressRate: 5 } }, false)).toStrictEqual({ bandwidth: { egressRate: 5 } });
    expect(capabilityArgs({}, { mac: '02:00:00:00:00:01' }, false)).toStrictEqual({ mac: '02:00:00:00:00:01' });
    expect(capabilityArgs({}, { infinibandGUID: 'g' }, false)).toStrictEqual({ infinibandGUID: 'g' });
    expect(capabilityArgs({}, { deviceID: '0000:03:00.1' }, false)).toStrictEqual({ deviceID: '0000:03:00.1' });
    expect(capabilityArgs({}, { ips: ['10.1.0.5/24'] }, false)).toStrictEqual({ ips: ['10.1.0.5/24'] });
  });

  it('reads runtimeConfig only when it is an object', () => {
    expect(runtimeCapabilities(Buffer.from('{"runtimeConfig":"ab"}'))).toStrictEqual({});
    expect(runtimeCapabilities(Buffer.from('{"runtimeConfig":null}'))).toStrictEqual({});
    expect(runtimeCapabilities(Buffer.from('{"runtimeConfig":{"mac":"02:00:00:00:00:02"}}'))).toStrictEqual({ mac: '02:00:00:00:00:02' });
    expect(runtimeCapabilities(Buffer.from('"runtimeConfig"'))).toStrictEqual({});
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
