// A selection's `default-route` through the unchanged upstream multus-shim (v4.2.3) and this daemon, with the
// real bridge and host-local plugins in a real network namespace: the cluster network installs its own default
// route (isDefaultGateway), the selection asks for another, and the sandbox, the libcni cache entries, the
// delegate cache and network-status are compared with what Multus's CmdAdd leaves.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { annotations } from '@sriov-dra/contract';
import { resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import type { Daemon } from '../../src/daemon.ts';
import { shimConfig, shimEnv, startFixtureDaemon } from '../daemon/daemon-fixture.ts';
import { NODE, type NodeFixture, PRIMARY_BRIDGE, createNodeFixture, createPod, createSandbox, removeNodeFixture } from '../pipeline/node-fixture.ts';
import { runShim } from '../server/multus-shim.ts';
import { type UpstreamDaemon, grantUpstreamMultus, startUpstreamDaemon, upstreamNetnsPath } from '../upstream/upstream-daemon.ts';

const NS = 'parity-gateway';
/** The selections' host bridge, one per test process. */
const SIDE_BRIDGE = `mlgw${String(process.pid % 1_000_000)}`;

let cp: ControlPlane;
let node: NodeFixture;
let daemon: Daemon;
let socketDir: string;
let token: string;
let upstreamPod: { name: string; uid: string };
let chrootedPod: { name: string; uid: string };

async function createNad(name: string, subnet: string): Promise<void> {
  const config = {
    cniVersion: '1.0.0',
    name,
    type: 'bridge',
    bridge: SIDE_BRIDGE,
    ipam: { type: 'host-local', dataDir: node.hostLocalDir, ranges: [[{ subnet }]] },
  };
  await cp.adminClient.create(
    resourceTypes.networkAttachmentDefinition,
    { apiVersion: 'k8s.cni.cncf.io/v1', kind: 'NetworkAttachmentDefinition', metadata: { name, namespace: NS }, spec: { config: JSON.stringify(config) } },
    { namespace: NS },
  );
}

async function podWithNetworks(name: string, networks: string): Promise<{ name: string; uid: string }> {
  const pod = await createPod(cp.adminClient, NS, name);
  await cp.adminClient.patch(
    resourceTypes.pod,
    { namespace: NS, name },
    { metadata: { annotations: { [annotations.networks]: networks } } },
    'application/merge-patch+json',
  );
  return { name, uid: pod.metadata.uid };
}

/** The sandbox's main-table default routes, as `<family> <gateway> <dev>`. */
function defaultRoutes(sandbox: string): string[] {
  return ['-4', '-6'].flatMap((family) =>
    (JSON.parse(execFileSync('ip', ['-n', sandbox, '-j', family, 'route', 'show', 'default'], { encoding: 'utf8' })) as { gateway: string; dev: string }[]).map(
      (route) => `${family} ${route.gateway} ${route.dev}`,
    ),
  );
}

async function cachedRoutes(network: string, containerID: string, ifName: string, cniDir = node.cniDir): Promise<unknown> {
  const entry = JSON.parse(await readFile(join(cniDir, 'results', `${network}-${containerID}-${ifName}`), 'utf8')) as { result: { routes?: unknown } };
  return entry.result.routes;
}

function leases(network: string): string[] {
  const dir = join(node.hostLocalDir, network);
  return existsSync(dir) ? readdirSync(dir).filter((entry) => /^\d+\.\d+\.\d+\.\d+$/.test(entry)) : [];
}

beforeAll(async () => {
  cp = await startControlPlane();
  await installCrds(cp.adminClient);
  await createNamespace(cp.adminClient, NS);
  node = await createNodeFixture();
  // The cluster network installs a default route through eth0, as a real primary CNI does.
  await writeFile(
    join(node.confDir, '10-primary.conflist'),
    JSON.stringify({
      cniVersion: '1.0.0',
      name: 'primary',
      plugins: [
        {
          type: 'bridge',
          bridge: PRIMARY_BRIDGE,
          isDefaultGateway: true,
          ipam: { type: 'host-local', dataDir: node.hostLocalDir, ranges: [[{ subnet: '10.244.7.0/24' }]] },
        },
      ],
    }),
  );
  await createNad('side', '10.245.9.0/24');
  await createNad('other', '10.245.10.0/24');
  token = await grantUpstreamMultus(cp.adminClient);
  // Before upstream's informers first list Pods, so its Pod cache is never stale.
  upstreamPod = await podWithNetworks('gw-upstream', '[{"name":"side","default-route":["10.245.9.1"]}]');
  chrootedPod = await podWithNetworks('gw-chrooted', '[{"name":"side","default-route":["10.245.9.1"]}]');
  ({ daemon, socketDir } = await startFixtureDaemon(node, { kubeconfig: cp.kubeconfig }));
}, 120_000);

afterAll(async () => {
  await daemon.stop();
  await cp.stop();
  try {
    execFileSync('ip', ['link', 'del', SIDE_BRIDGE], { stdio: 'ignore' });
  } catch {
    // No selection's ADD created it.
  }
  await removeNodeFixture(node);
});

describe('default-route through the upstream shim', () => {
  it('moves the Pod’s default route to the selected interface: the cluster network’s is gone, the caches say so, network-status stays the plugins’', async () => {
    const who = await podWithNetworks('gw-moved', '[{"name":"side","default-route":["10.245.9.1"]}]');
    const sandbox = createSandbox();
    try {
      const add = await runShim(shimEnv(node, 'ADD', 'c-gw-moved', sandbox.path, { namespace: NS, ...who }), shimConfig(socketDir));
      expect({ code: add.code, stderr: add.stderr }).toEqual({ code: 0, stderr: '' });
      expect(defaultRoutes(sandbox.name)).toEqual(['-4 10.245.9.1 net1']);

      // libcni's entries as upstream's DeleteDefaultGWCache/AddDefaultGWCache leave them.
      expect(await cachedRoutes('primary', 'c-gw-moved', 'eth0')).toBeUndefined();
      expect(await cachedRoutes('side', 'c-gw-moved', 'net1')).toEqual([{ dst: '0.0.0.0/0', gw: '10.245.9.1' }]);
      // Multus's delegate cache: the request and the filter marks CheckGatewayConfig made.
      const delegates = JSON.parse(await readFile(join(node.cniDir, 'c-gw-moved'), 'utf8')) as Record<string, unknown>[];
      expect(delegates.map((delegate) => [delegate['Name'], delegate['default-route'], delegate['IsFilterV4Gateway'], delegate['IsFilterV6Gateway']])).toEqual([
        ['primary', undefined, true, true],
        [`${NS}/side`, ['10.245.9.1'], false, true],
      ]);
      // network-status reports each plugin's own result, as upstream's CreateNetworkStatuses does.
      const pod = await cp.adminClient.get(resourceTypes.pod, { namespace: NS, name: who.name });
      const statuses = JSON.parse(pod.metadata.annotations?.[annotations.networkStatus] ?? '[]') as {
        interface: string;
        default?: boolean;
        gateway?: string[];
      }[];
      expect(statuses.map((status) => [status.interface, status.default ?? false, status.gateway])).toEqual([
        ['eth0', true, ['10.244.7.1']],
        ['net1', false, undefined],
      ]);

      const del = await runShim(shimEnv(node, 'DEL', 'c-gw-moved', sandbox.path, { namespace: NS, ...who }), shimConfig(socketDir));
      expect({ code: del.code, stderr: del.stderr }).toEqual({ code: 0, stderr: '' });
    } finally {
      sandbox.remove();
    }
  });

  it('an empty default-route keeps no default route on any network (every delegate is filtered)', async () => {
    const who = await podWithNetworks('gw-none', '[{"name":"side","default-route":[]}]');
    const sandbox = createSandbox();
    try {
      const add = await runShim(shimEnv(node, 'ADD', 'c-gw-none', sandbox.path, { namespace: NS, ...who }), shimConfig(socketDir));
      expect({ code: add.code, stderr: add.stderr }).toEqual({ code: 0, stderr: '' });
      expect(sandbox.links().map((link) => link.split(' ')[0])).toEqual(['eth0', 'net1']);
      expect(defaultRoutes(sandbox.name)).toEqual([]);
      expect(await cachedRoutes('primary', 'c-gw-none', 'eth0')).toBeUndefined();
      await runShim(shimEnv(node, 'DEL', 'c-gw-none', sandbox.path, { namespace: NS, ...who }), shimConfig(socketDir));
    } finally {
      sandbox.remove();
    }
  });

  it('refuses two IPv4 gateways before anything runs (Multus does not support ECMP for default-route)', async () => {
    const who = await podWithNetworks('gw-ecmp', '[{"name":"side","default-route":["10.245.9.1"]},{"name":"other","default-route":["10.245.10.1"]}]');
    const sandbox = createSandbox();
    try {
      const add = await runShim(shimEnv(node, 'ADD', 'c-gw-ecmp', sandbox.path, { namespace: NS, ...who }), shimConfig(socketDir));
      expect(add.code).not.toBe(0);
      const error = JSON.parse(add.stdout) as { msg: string; details?: string };
      expect(`${error.msg} ${error.details ?? ''}`).toContain(
        `DefaultRouteEcmpUnsupported: Pod ${NS}/gw-ecmp: the Pod's networks ask for 2 IPv4 and 0 IPv6 default gateways (10.245.9.1, 10.245.10.1)`,
      );
      expect(sandbox.links()).toEqual([]);
    } finally {
      sandbox.remove();
    }
  });

  it('fails the ADD with a typed error when the gateway cannot be routed, and undoes every delegate that ran', async () => {
    const who = await podWithNetworks('gw-off-link', '[{"name":"side","default-route":["203.0.113.1"]}]');
    const sandbox = createSandbox();
    const before = { primary: leases('primary'), side: leases('side') };
    try {
      const add = await runShim(shimEnv(node, 'ADD', 'c-gw-off-link', sandbox.path, { namespace: NS, ...who }), shimConfig(socketDir));
      expect(add.code).not.toBe(0);
      const error = JSON.parse(add.stdout) as { msg: string; details?: string };
      expect(`${error.msg} ${error.details ?? ''}`).toContain(
        `DefaultRouteChangeFailed: network ${NS}/side interface net1 in ${sandbox.path}: could not set its default route via 203.0.113.1`,
      );
      expect(sandbox.links()).toEqual([]);
      expect({ primary: leases('primary'), side: leases('side') }).toEqual(before);
    } finally {
      sandbox.remove();
    }
  });

  it('with chrootDir (the chart’s host root; here this machine’s /) runs nsenter and ip from that root', async () => {
    const chrooted = await startFixtureDaemon(node, {
      kubeconfig: cp.kubeconfig,
      dir: join(node.root, 'chrooted'),
      metricsPort: -1,
      config: { chrootDir: '/' },
    });
    const sandbox = createSandbox();
    const env = (command: string): Record<string, string> => shimEnv(node, command, 'c-gw-chrooted', sandbox.path, { namespace: NS, ...chrootedPod });
    try {
      const add = await runShim(env('ADD'), shimConfig(chrooted.socketDir));
      expect({ code: add.code, stderr: add.stderr }).toEqual({ code: 0, stderr: '' });
      expect(defaultRoutes(sandbox.name)).toEqual(['-4 10.245.9.1 net1']);
      await runShim(env('DEL'), shimConfig(chrooted.socketDir));
    } finally {
      sandbox.remove();
      await chrooted.daemon.stop();
    }
  });

  describe('upstream multus-daemon v4.2.3 on the same request', () => {
    let upstream: UpstreamDaemon;

    beforeAll(async () => {
      upstream = await startUpstreamDaemon({ dir: join(node.root, 'upstream'), node, nodeName: NODE, apiServer: cp.server, caCert: cp.caCert, token });
    }, 120_000);

    afterAll(async () => {
      await upstream.stop();
    });

    it('rewrites its caches alike but leaves the sandbox’s routes as the plugins made them: its netlink reports a default route’s destination as 0.0.0.0/0, so DeleteDefaultGW removes nothing and the new route meets EEXIST, which it ignores', async () => {
      const sandbox = createSandbox();
      const env = (command: string): Record<string, string> =>
        shimEnv(node, command, 'c-gw-upstream', upstreamNetnsPath(sandbox.name), { namespace: NS, ...upstreamPod });
      try {
        const add = await runShim(env('ADD'), shimConfig(upstream.socketDir));
        expect({ code: add.code, stderr: add.stderr }).toEqual({ code: 0, stderr: '' });
        expect(defaultRoutes(sandbox.name)).toEqual(['-4 10.244.7.1 eth0']);
        expect(await cachedRoutes('primary', 'c-gw-upstream', 'eth0', upstream.cniDir)).toBeUndefined();
        expect(await cachedRoutes('side', 'c-gw-upstream', 'net1', upstream.cniDir)).toEqual([{ dst: '0.0.0.0/0', gw: '10.245.9.1' }]);
        const delegates = JSON.parse(await readFile(join(upstream.cniDir, 'c-gw-upstream'), 'utf8')) as Record<string, unknown>[];
        expect(
          delegates.map((delegate) => [delegate['Name'], delegate['default-route'], delegate['IsFilterV4Gateway'], delegate['IsFilterV6Gateway']]),
        ).toEqual([
          ['primary', undefined, true, true],
          [`${NS}/side`, ['10.245.9.1'], false, true],
        ]);
        // Its network-status reports the plugins' own results, as this daemon's does.
        const pod = await cp.adminClient.get(resourceTypes.pod, { namespace: NS, name: upstreamPod.name });
        const statuses = JSON.parse(pod.metadata.annotations?.[annotations.networkStatus] ?? '[]') as {
          interface: string;
          default?: boolean;
          gateway?: string[];
        }[];
        expect(statuses.map((status) => [status.interface, status.default ?? false, status.gateway])).toEqual([
          ['eth0', true, ['10.244.7.1']],
          ['net1', false, undefined],
        ]);
        await runShim(env('DEL'), shimConfig(upstream.socketDir));
      } finally {
        sandbox.remove();
      }
    });

    it('refuses two IPv4 gateways before anything runs, as this daemon does', async () => {
      const pod = await cp.adminClient.get(resourceTypes.pod, { namespace: NS, name: 'gw-ecmp' });
      const sandbox = createSandbox();
      try {
        const env = shimEnv(node, 'ADD', 'c-gw-ecmp-upstream', upstreamNetnsPath(sandbox.name), { namespace: NS, name: 'gw-ecmp', uid: pod.metadata.uid });
        const add = await runShim(env, shimConfig(upstream.socketDir));
        expect(add.code).not.toBe(0);
        expect(add.stdout).toContain('multus does not support ECMP for default-route');
        expect(sandbox.links()).toEqual([]);
      } finally {
        sandbox.remove();
      }
    });
  });
});
