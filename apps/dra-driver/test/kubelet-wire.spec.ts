// The kubelet plugin runtime against the kubelet's own Go code (k8s.io/kubernetes v1.36.3): the
// kubelet's registration operation and DRA plugin manager register the plugin, call prepare and
// unprepare through the DRAPlugin wrapper the kubelet uses, and read the health stream the plugin
// manager opens. Needs the peer binary: tools/control-plane/build-binaries.sh kubelet-peer.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { type KubeletPlugin, startKubeletPlugin } from '../src/kubelet/kubelet-plugin.ts';
import type { RegistrationState } from '../src/kubelet/registration-server.ts';
import { FakeHealthSource, FakePreparer } from './fake-plugin-work.ts';
import { KubeletPeer } from '@sriov-dra/k8s/testing';

const logger = pino({ level: 'silent' });

let dir: string;
let plugin: KubeletPlugin;
let peer: KubeletPeer;
let preparer: FakePreparer;
let health: FakeHealthSource;
let statuses: RegistrationState[];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kwire-'));
  preparer = new FakePreparer();
  health = new FakeHealthSource([
    { poolName: 'node-a', deviceName: '0000-3b-02-0', status: 'Healthy', lastUpdatedTime: 1_700_000_000, healthCheckTimeoutSeconds: 30 },
  ]);
  statuses = [];
  plugin = await startKubeletPlugin({
    driverName: 'sriovnetwork.k8snetworkplumbingwg.io',
    registrarDir: join(dir, 'plugins_registry'),
    pluginsDir: join(dir, 'plugins'),
    preparer,
    health,
    logger,
    onRegistrationStatus: (state) => statuses.push(state),
  });
  peer = await KubeletPeer.start();
});

afterEach(async () => {
  await peer.close();
  await plugin.stop();
  rmSync(dir, { recursive: true, force: true });
});

const registrationSocket = (): string => join(dir, 'plugins_registry', 'sriovnetwork.k8snetworkplumbingwg.io-reg.sock');
const good = { namespace: 'ai', uid: '6f1c1e55-0000-4000-8000-000000000001', name: 'gpu-net' };
const bad = { namespace: 'ai', uid: '6f1c1e55-0000-4000-8000-000000000002', name: 'no-template' };

describe.each([
  { version: 'v1', services: undefined, chosen: ['v1.DRAPlugin', 'v1beta1.DRAPlugin'], shareID: { shareID: 'share-1' } },
  { version: 'v1beta1', services: ['v1beta1.DRAPlugin'], chosen: ['v1beta1.DRAPlugin'], shareID: {} },
])('the kubelet talking DRA $version', ({ services, chosen, shareID }) => {
  it('registers, prepares two claims of which one fails, unprepares, and reads health updates', async () => {
    const info = await peer.send({ op: 'info', socket: registrationSocket() });
    expect(info).toMatchObject({
      ok: true,
      result: {
        type: 'DRAPlugin',
        name: 'sriovnetwork.k8snetworkplumbingwg.io',
        endpoint: join(dir, 'plugins', 'sriovnetwork.k8snetworkplumbingwg.io', 'dra.sock'),
        supportedVersions: ['v1.DRAPlugin', 'v1beta1.DRAPlugin'],
      },
    });

    const registered = await peer.send({ op: 'register', socket: registrationSocket(), ...(services === undefined ? {} : { services }) });
    expect({ answer: registered, kubelet: registered.ok ? '' : peer.log }).toMatchObject({
      answer: {
        ok: true,
        result: {
          driverName: 'sriovnetwork.k8snetworkplumbingwg.io',
          endpoint: join(dir, 'plugins', 'sriovnetwork.k8snetworkplumbingwg.io', 'dra.sock'),
          services: chosen,
        },
      },
    });
    expect(statuses).toEqual([{ state: 'registered' }]);

    const prepared = await peer.send({ op: 'prepare', claims: [good, bad] });
    expect(prepared.ok).toBe(true);
    expect(prepared.result).toEqual({
      '6f1c1e55-0000-4000-8000-000000000001': {
        devices: [
          {
            requestNames: ['nic'],
            poolName: 'node-a',
            deviceName: '0000-3b-02-0',
            cdiDeviceIDs: ['sriovnetwork.k8snetworkplumbingwg.io/vf=6f1c1e55-0000-4000-8000-000000000001-0000-3b-02-0'],
            ...shareID,
          },
        ],
        error: '',
      },
      '6f1c1e55-0000-4000-8000-000000000002': {
        error: expect.stringMatching(/^MissingNetworkTemplate: ResourceClaim ai\/no-template: no NAD template for VF 0000:3b:02.1 — /) as unknown,
      },
    });

    const unprepared = await peer.send({ op: 'unprepare', claims: [good, bad] });
    expect(unprepared).toMatchObject({
      ok: true,
      result: { '6f1c1e55-0000-4000-8000-000000000001': { error: '' }, '6f1c1e55-0000-4000-8000-000000000002': { error: '' } },
    });
    expect(preparer.calls.map((call) => `${call.verb} ${call.claim.namespace}/${call.claim.name} ${call.claim.uid}`)).toEqual([
      'prepare ai/gpu-net 6f1c1e55-0000-4000-8000-000000000001',
      'prepare ai/no-template 6f1c1e55-0000-4000-8000-000000000002',
      'unprepare ai/gpu-net 6f1c1e55-0000-4000-8000-000000000001',
      'unprepare ai/no-template 6f1c1e55-0000-4000-8000-000000000002',
    ]);

    // The plugin manager opened the stream on registration; its first message is the current list.
    expect(await peer.send({ op: 'health', timeoutMs: 10_000 })).toEqual({
      id: 6,
      ok: true,
      result: [
        { poolName: 'node-a', deviceName: '0000-3b-02-0', health: 'HEALTHY', lastUpdatedTime: 1_700_000_000, healthCheckTimeoutSeconds: 30, message: '' },
      ],
    });
    health.emit([{ poolName: 'node-a', deviceName: '0000-3b-02-0', status: 'Unhealthy', lastUpdatedTime: 1_700_000_060, message: 'link down' }]);
    expect(await peer.send({ op: 'health', timeoutMs: 10_000 })).toEqual({
      id: 7,
      ok: true,
      result: [
        {
          poolName: 'node-a',
          deviceName: '0000-3b-02-0',
          health: 'UNHEALTHY',
          lastUpdatedTime: 1_700_000_060,
          healthCheckTimeoutSeconds: 0,
          message: 'link down',
        },
      ],
    });
  }, 30_000);
});

it('surfaces a registration the kubelet rejects', async () => {
  const answer = await peer.send({ op: 'register', socket: registrationSocket(), withoutHandler: true });
  expect(answer).toMatchObject({ ok: false, error: expect.stringContaining('no handler registered for plugin type: DRAPlugin') as unknown });
  expect(plugin.registration.state).toBe('rejected');
  expect(statuses).toHaveLength(1);
  const rejected = statuses[0] as Extract<RegistrationState, { state: 'rejected' }>;
  expect(rejected.error.code).toBe('RegistrationRejected');
  expect(rejected.error.message).toContain(
    'the kubelet refused the plugin: RegisterPlugin error -- no handler registered for plugin type: DRAPlugin at socket',
  );
}, 30_000);

it('leaves no socket behind after stop, so the kubelet deregisters the plugin', async () => {
  await plugin.stop();
  expect(existsSync(registrationSocket())).toBe(false);
  expect(existsSync(join(dir, 'plugins', 'sriovnetwork.k8snetworkplumbingwg.io', 'dra.sock'))).toBe(false);
  expect(await peer.send({ op: 'info', socket: registrationSocket() })).toMatchObject({ ok: false, code: 'Unavailable' });
}, 30_000);
