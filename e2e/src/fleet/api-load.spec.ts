import { describe, expect, it } from '@jest/globals';
import { type FleetAuditEvent, type Identities, apiLoad, listScope, requesterOf, requestsOf } from './api-load.ts';

const identities: Identities = {
  releaseNamespace: 'sriov-dra',
  kubeletPrefix: 'system:serviceaccount:agents:kubelet-',
  nodeUids: new Map([['node-a', '6f1c0000-0000-4000-8000-00000000000a']]),
};

function event(overrides: Partial<FleetAuditEvent> & Pick<FleetAuditEvent, 'auditID' | 'verb'>): FleetAuditEvent {
  return {
    stage: 'ResponseComplete',
    requestReceivedTimestamp: '2026-01-01T00:00:10.000000Z',
    requestURI: '/api/v1/pods',
    user: { username: 'system:serviceaccount:sriov-dra:dra-driver-sriov', extra: { 'authentication.kubernetes.io/node-name': ['node-a'] } },
    objectRef: { resource: 'pods' },
    ...overrides,
  };
}

const window = { from: new Date('2026-01-01T00:00:00Z'), to: new Date('2026-01-01T00:00:20Z') };

describe('the fleet’s API load from the audit log', () => {
  it('names the component by its API user and a node agent’s node by its Pod-bound token or its own account', () => {
    expect(requesterOf(event({ auditID: '1', verb: 'get' }), identities)).toEqual({ component: 'driver', node: 'node-a' });
    expect(requesterOf(event({ auditID: '2', verb: 'get', user: { username: 'system:serviceaccount:agents:kubelet-node-b' } }), identities)).toEqual({
      component: 'kubelet',
      node: 'node-b',
    });
    expect(requesterOf(event({ auditID: '3', verb: 'get', user: { username: 'system:serviceaccount:sriov-dra:node-policy-operator' } }), identities)).toEqual({
      component: 'operator',
      node: undefined,
    });
  });

  it('tells a LIST of the agent’s own node, by name or UID, from one across the fleet', () => {
    expect(listScope('/apis/resource.k8s.io/v1/resourceslices?fieldSelector=spec.nodeName%3Dnode-a', 'node-a', identities)).toBe('node');
    expect(listScope('/apis/x/v1/things?labelSelector=example.com%2Fnode-uid%3D6f1c0000-0000-4000-8000-00000000000a', 'node-a', identities)).toBe('node');
    expect(listScope('/apis/resource.k8s.io/v1/resourceslices?fieldSelector=spec.nodeName%3Dnode-ab', 'node-a', identities)).toBe('fleet');
    expect(listScope('/apis/k8s.cni.cncf.io/v1/namespaces/w/network-attachment-definitions', 'node-a', identities)).toBe('fleet');
    expect(listScope('/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a', undefined, identities)).toBe('fleet');
  });

  it('counts each request once, inside the window only, per second by component, verb and node', () => {
    const events = [
      event({ auditID: '1', verb: 'get', stage: 'RequestReceived' }),
      event({ auditID: '1', verb: 'get' }),
      event({ auditID: '2', verb: 'list', requestURI: '/api/v1/namespaces/w/pods' }),
      event({ auditID: '3', verb: 'get', requestReceivedTimestamp: '2026-01-01T00:00:20.000000Z' }),
    ];
    const load = apiLoad(requestsOf(events), window, identities, ['node-a', 'node-b']);
    expect(load.total).toBe(2 / 20);
    expect(load.byComponent).toEqual({ driver: { get: 1 / 20, list: 1 / 20 } });
    expect(load.byNode['node-b']).toEqual({ driver: 0, multusDaemon: 0, kubelet: 0 });
    expect(load.nodeRequests['node-a']).toEqual({ 'driver get pods': 1, 'driver list pods': 1 });
    expect(load.lists).toEqual([
      { component: 'driver', node: 'node-a', resource: 'pods', namespace: undefined, scope: 'fleet', requestURI: '/api/v1/namespaces/w/pods', count: 1 },
    ]);
  });
});
