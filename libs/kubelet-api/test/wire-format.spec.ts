// Wire facts of the kubelet APIs, written out by hand from the field numbers and service names of
// k8s.io/kubelet v0.36.3: a renumbered field or a renamed package fails here before it fails a kubelet.
import { describe, expect, it } from '@jest/globals';
import { draHealthV1alpha1, draV1, draV1beta1, registrationV1 } from '../src/index.ts';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

describe('gRPC method paths', () => {
  it.each([
    [draV1.DRAPluginService.nodePrepareResources.path, '/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodePrepareResources'],
    [draV1.DRAPluginService.nodeUnprepareResources.path, '/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodeUnprepareResources'],
    [draV1beta1.DRAPluginService.nodePrepareResources.path, '/k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/NodePrepareResources'],
    [draV1beta1.DRAPluginService.nodeUnprepareResources.path, '/k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/NodeUnprepareResources'],
    [registrationV1.RegistrationService.getInfo.path, '/pluginregistration.Registration/GetInfo'],
    [registrationV1.RegistrationService.notifyRegistrationStatus.path, '/pluginregistration.Registration/NotifyRegistrationStatus'],
    [draHealthV1alpha1.DRAResourceHealthService.nodeWatchResources.path, '/v1alpha1.DRAResourceHealth/NodeWatchResources'],
  ])('%s', (actual, expected) => {
    expect(actual).toBe(expected);
  });

  it('streams health from the server only', () => {
    expect(draHealthV1alpha1.DRAResourceHealthService.nodeWatchResources.requestStream).toBe(false);
    expect(draHealthV1alpha1.DRAResourceHealthService.nodeWatchResources.responseStream).toBe(true);
  });
});

describe('field numbers', () => {
  it('Device v1 (share_id = 5)', () => {
    const device = { requestNames: ['r'], poolName: 'p', deviceName: 'd', cdiDeviceIds: ['c'], shareId: 's' };
    expect(hex(draV1.Device.encode(device).finish())).toBe('0a01721201701a01642201632a0173');
  });

  it('Device v1beta1 (no share_id)', () => {
    const device = { requestNames: ['r'], poolName: 'p', deviceName: 'd', cdiDeviceIds: ['c'] };
    expect(hex(draV1beta1.Device.encode(device).finish())).toBe('0a01721201701a0164220163');
    // A v1 share_id reaching a v1beta1 decoder is an unknown field and is dropped.
    expect(draV1beta1.Device.decode(Buffer.from('0a01722a0173', 'hex'))).toEqual({ requestNames: ['r'], poolName: '', deviceName: '', cdiDeviceIds: [] });
  });

  it('Claim', () => {
    expect(hex(draV1.Claim.encode({ namespace: 'n', uid: 'u', name: 'c' }).finish())).toBe('0a016e1201751a0163');
  });

  it('prepare response map entry keyed by claim UID', () => {
    const response = { claims: { u: { devices: [], error: 'e' } } };
    // claims(1) { key(1)="u", value(2) { error(2)="e" } }
    expect(hex(draV1.NodePrepareResourcesResponse.encode(response).finish())).toBe('0a080a01751203120165');
  });

  it('PluginInfo and RegistrationStatus', () => {
    const info = { type: 'T', name: 'N', endpoint: 'E', supportedVersions: ['V'] };
    expect(hex(registrationV1.PluginInfo.encode(info).finish())).toBe('0a015412014e1a0145220156');
    expect(hex(registrationV1.RegistrationStatus.encode({ pluginRegistered: true, error: 'e' }).finish())).toBe('0801120165');
  });

  it('DeviceHealth', () => {
    const health = {
      device: { poolName: 'p', deviceName: 'd' },
      health: draHealthV1alpha1.HealthStatus.UNHEALTHY,
      lastUpdatedTime: 1,
      healthCheckTimeoutSeconds: 2,
      message: 'm',
    };
    expect(hex(draHealthV1alpha1.DeviceHealth.encode(health).finish())).toBe('0a060a01701201641002180120022a016d');
  });

  it('HealthStatus numbers', () => {
    expect(draHealthV1alpha1.HealthStatus).toMatchObject({ UNKNOWN: 0, HEALTHY: 1, UNHEALTHY: 2 });
  });
});
