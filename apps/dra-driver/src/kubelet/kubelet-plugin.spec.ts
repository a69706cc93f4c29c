import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { type ServiceError, credentials } from '@grpc/grpc-js';
import { draHealthV1alpha1, draV1, draV1beta1, registrationV1 } from '@sriov-dra/kubelet-api';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { FakeHealthSource, FakePreparer } from '../../test/fake-plugin-work.ts';
import { leaveStaleSocket } from '@sriov-dra/k8s/testing';
import { isKubeletPluginError } from './kubelet-plugin-error.ts';
import { type KubeletPlugin, type KubeletPluginOptions, startKubeletPlugin } from './kubelet-plugin.ts';
import type { RegistrationState } from './registration-server.ts';

const DRIVER = 'sriovnetwork.k8snetworkplumbingwg.io';
const logger = pino({ level: 'silent' });

let dir: string;
let plugin: KubeletPlugin | undefined;
let preparer: FakePreparer;
const clients: { close(): void }[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kplug-'));
  preparer = new FakePreparer();
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await plugin?.stop();
  plugin = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function start(overrides: Partial<KubeletPluginOptions> = {}): Promise<KubeletPlugin> {
  plugin = await startKubeletPlugin({
    driverName: DRIVER,
    registrarDir: join(dir, 'registry'),
    pluginsDir: join(dir, 'plugins'),
    preparer,
    logger,
    ...overrides,
  });
  return plugin;
}

const regSocket = (): string => join(dir, 'registry', `${DRIVER}-reg.sock`);
const draSocket = (): string => join(dir, 'plugins', DRIVER, 'dra.sock');

function client<C extends { close(): void }>(make: new (address: string, creds: ReturnType<typeof credentials.createInsecure>) => C, path: string): C {
  const made = new make(`unix:${path}`, credentials.createInsecure());
  clients.push(made);
  return made;
}

function unary<Req, Res>(call: (request: Req, callback: (error: ServiceError | null, response: Res) => void) => unknown, request: Req): Promise<Res> {
  return new Promise((resolve, reject) => {
    call(request, (error, response) => {
      if (error === null) resolve(response);
      else reject(error);
    });
  });
}

const prepareV1 = (claims: draV1.Claim[]): Promise<draV1.NodePrepareResourcesResponse> => {
  const dra = client(draV1.DRAPluginClient, draSocket());
  return unary(dra.nodePrepareResources.bind(dra), { claims });
};

const claim = (uid: string, name = `claim-${uid}`): draV1.Claim => ({ namespace: 'ai', uid, name });

describe('kubelet plugin runtime', () => {
  it('removes stale sockets of an earlier run and serves on both paths', async () => {
    mkdirSync(join(dir, 'registry'), { recursive: true });
    mkdirSync(join(dir, 'plugins', DRIVER), { recursive: true });
    await leaveStaleSocket(regSocket());
    await leaveStaleSocket(draSocket());
    await start();
    const registration = client(registrationV1.RegistrationClient, regSocket());
    await expect(unary(registration.getInfo.bind(registration), {})).resolves.toEqual({
      type: 'DRAPlugin',
      name: 'sriovnetwork.k8snetworkplumbingwg.io',
      endpoint: join(dir, 'plugins', 'sriovnetwork.k8snetworkplumbingwg.io', 'dra.sock'),
      supportedVersions: ['v1.DRAPlugin', 'v1beta1.DRAPlugin'],
    });
    await expect(prepareV1([claim('u1')])).resolves.toMatchObject({ claims: { u1: { error: '' } } });
  });

  it('refuses to start when a non-socket occupies the DRA socket path, leaving it in place', async () => {
    mkdirSync(join(dir, 'plugins', DRIVER), { recursive: true });
    writeFileSync(draSocket(), 'precious');
    // A start that wrongly succeeds is stopped by afterEach through `plugin`.
    const error: unknown = await start().catch((caught: unknown) => caught);
    expect(isKubeletPluginError(error, 'SocketPathOccupied')).toBe(true);
    expect(existsSync(draSocket())).toBe(true);
  });

  it('records the kubelet’s registration status and surfaces a rejection', async () => {
    const seen: RegistrationState[] = [];
    const running = await start({ onRegistrationStatus: (state) => seen.push(state) });
    expect(running.registration).toEqual({ state: 'pending' });
    const registration = client(registrationV1.RegistrationClient, regSocket());
    const notify = registration.notifyRegistrationStatus.bind(registration);
    await unary(notify, { pluginRegistered: false, error: 'no handler registered for plugin type: DRAPlugin' });
    expect(running.registration.state).toBe('rejected');
    const rejected = running.registration as Extract<RegistrationState, { state: 'rejected' }>;
    expect(rejected.error.code).toBe('RegistrationRejected');
    expect(rejected.error.message).toContain('the kubelet refused the plugin: no handler registered for plugin type: DRAPlugin');
    await unary(notify, { pluginRegistered: true, error: '' });
    expect(running.registration).toEqual({ state: 'registered' });
    expect(seen.map((state) => state.state)).toEqual(['rejected', 'registered']);
  });

  it('answers v1 with share IDs and v1beta1 without', async () => {
    await start();
    const v1 = await prepareV1([claim('u1')]);
    expect(v1.claims['u1']?.devices).toEqual([
      {
        requestNames: ['nic'],
        poolName: 'node-a',
        deviceName: '0000-3b-02-0',
        cdiDeviceIds: ['sriovnetwork.k8snetworkplumbingwg.io/vf=u1-0000-3b-02-0'],
        shareId: 'share-1',
      },
    ]);
    const beta = client(draV1beta1.DRAPluginClient, draSocket());
    const v1beta1 = await unary<draV1beta1.NodePrepareResourcesRequest, draV1beta1.NodePrepareResourcesResponse>(beta.nodePrepareResources.bind(beta), {
      claims: [claim('u2')],
    });
    expect(v1beta1.claims['u2']?.devices).toEqual([
      { requestNames: ['nic'], poolName: 'node-a', deviceName: '0000-3b-02-0', cdiDeviceIds: ['sriovnetwork.k8snetworkplumbingwg.io/vf=u2-0000-3b-02-0'] },
    ]);
  });

  it('never overlaps two calls for the same claim, but overlaps different claims', async () => {
    await start();
    preparer.delays.set('same', 150);
    preparer.delays.set('other', 150);
    await Promise.all([prepareV1([claim('same')]), prepareV1([claim('same')])]);
    expect(preparer.maxActiveByClaim.get('same')).toBe(1);
    expect(preparer.maxActive).toBe(1);
    await Promise.all([prepareV1([claim('same')]), prepareV1([claim('other')])]);
    expect(preparer.maxActive).toBe(2);
  });

  it('answers a claim that outruns the call deadline with a per-claim error, and the rest normally', async () => {
    await start({ callDeadlineMs: 100 });
    preparer.delays.set('slow', 400);
    const response = await prepareV1([claim('slow', 'gpu-net'), claim('fast')]);
    expect(response.claims['fast']?.error).toBe('');
    expect(response.claims['slow']).toEqual({
      devices: [],
      error: expect.stringMatching(/^ClaimCallDeadlineExceeded: ResourceClaim ai\/gpu-net \(uid slow\): prepare did not finish within 100 ms — /) as unknown,
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
  });

  it('finishes calls in flight when stopped, then removes both sockets and refuses new calls', async () => {
    const running = await start();
    preparer.delays.set('inflight', 300);
    const inFlight = prepareV1([claim('inflight')]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const stopped = running.stop();
    await expect(inFlight).resolves.toMatchObject({ claims: { inflight: { error: '' } } });
    await stopped;
    expect(existsSync(regSocket())).toBe(false);
    expect(existsSync(draSocket())).toBe(false);
    await expect(prepareV1([claim('late')])).rejects.toMatchObject({ code: 14 });
  });

  it('streams device health: the current list at once, the complete list after each change, and ends on stop', async () => {
    const health = new FakeHealthSource([
      { poolName: 'node-a', deviceName: '0000-3b-02-0', status: 'Healthy', lastUpdatedTime: 1_700_000_000, healthCheckTimeoutSeconds: 30 },
    ]);
    const running = await start({ health });
    const watcher = client(draHealthV1alpha1.DRAResourceHealthClient, draSocket());
    const stream = watcher.nodeWatchResources({});
    const messages: draHealthV1alpha1.NodeWatchResourcesResponse[] = [];
    const ended = new Promise<void>((resolve) => stream.on('end', resolve));
    const received = (count: number): Promise<void> =>
      new Promise((resolve) => {
        const check = (): void => {
          if (messages.length >= count) resolve();
          else setTimeout(check, 5);
        };
        check();
      });
    stream.on('data', (message: draHealthV1alpha1.NodeWatchResourcesResponse) => messages.push(message));
    await received(1);
    health.emit([{ poolName: 'node-a', deviceName: '0000-3b-02-0', status: 'Unhealthy', lastUpdatedTime: 1_700_000_060, message: 'link down' }]);
    await received(2);
    expect(messages).toEqual([
      {
        devices: [
          { device: { poolName: 'node-a', deviceName: '0000-3b-02-0' }, health: 1, lastUpdatedTime: 1_700_000_000, healthCheckTimeoutSeconds: 30, message: '' },
        ],
      },
      {
        devices: [
          {
            device: { poolName: 'node-a', deviceName: '0000-3b-02-0' },
            health: 2,
            lastUpdatedTime: 1_700_000_060,
            healthCheckTimeoutSeconds: 0,
            message: 'link down',
          },
        ],
      },
    ]);
    await running.stop();
    await ended;
    expect(health.subscribers).toBe(0);
  });

  it('answers health UNIMPLEMENTED without a health source', async () => {
    await start();
    const watcher = client(draHealthV1alpha1.DRAResourceHealthClient, draSocket());
    const stream = watcher.nodeWatchResources({});
    await expect(new Promise((_resolve, reject) => stream.on('error', reject))).rejects.toMatchObject({ code: 12 });
  });
});
