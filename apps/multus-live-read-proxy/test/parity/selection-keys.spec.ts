// What a network selection hands its delegate, compared call by call with upstream multus-daemon v4.2.3 on the
// same node and the same requests: `interface` (CNI_IFNAME, net<n> when unnamed), `cni-args` (merged into the
// configuration's args.cni), `ips`, `mac`, `infiniband-guid`, `bandwidth`, `portMappings` and `deviceID` (runtimeConfig,
// only for a plugin declaring the capability, as libcni does; IP and MAC also as legacy CNI_ARGS), and the
// runtime's own runtimeConfig from the shim's configuration; keys in another case count as Go decodes them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { annotations } from '@sriov-dra/contract';
import { type KubeClient, resourceTypes } from '@sriov-dra/k8s';
import { createPod } from '../pipeline/node-fixture.ts';
import { type Outcome, type ParityNode, type ParityPod, startParityNode } from './upstream-parity.ts';

const NS = 'parity-keys';
const ALL_CAPABILITIES = { ips: true, mac: true, infinibandGUID: true, bandwidth: true, portMappings: true, deviceID: true };
const REQUESTS = {
  ips: ['192.0.2.20/24'],
  mac: '02:00:00:00:00:01',
  'infiniband-guid': '00:11:22:33:44:55:66:77',
  bandwidth: { ingressRate: 1000, ingressBurst: 100, egressRate: 2000, egressBurst: 200 },
  portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }],
  deviceID: '0000:03:00.7',
};

let parity: ParityNode;
const pods = new Map<string, ParityPod>();

async function nad(admin: KubeClient, name: string, config: Record<string, unknown>): Promise<void> {
  await admin.create(
    resourceTypes.networkAttachmentDefinition,
    {
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: { name, namespace: NS },
      spec: { config: JSON.stringify({ cniVersion: '1.0.0', name, ...config }) },
    },
    { namespace: NS },
  );
}

async function pod(admin: KubeClient, name: string, networks: unknown): Promise<void> {
  const created = await createPod(admin, NS, name);
  await admin.patch(
    resourceTypes.pod,
    { namespace: NS, name },
    { metadata: { annotations: { [annotations.networks]: JSON.stringify(networks) } } },
    'application/merge-patch+json',
  );
  pods.set(name, { namespace: NS, name, uid: created.metadata.uid });
}

function podNamed(name: string): ParityPod {
  const found = pods.get(name);
  if (found === undefined) throw new Error(`no Pod ${name}`);
  return found;
}

/** Both daemons answered alike and their delegates received exactly the same calls. */
function expectSame({ ours, upstream }: { ours: Outcome; upstream: Outcome }): Outcome {
  expect(ours).toEqual(upstream);
  return ours;
}

beforeAll(async () => {
  parity = await startParityNode(NS, async (admin) => {
    await nad(admin, 'rec-all', { type: 'sriov', capabilities: ALL_CAPABILITIES });
    await nad(admin, 'rec-none', { type: 'sriov' });
    await nad(admin, 'rec-list', {
      plugins: [
        { type: 'sriov', capabilities: { ips: true } },
        { type: 'sriov', capabilities: { mac: true, portMappings: true } },
      ],
    });
    await pod(admin, 'declares-all', [{ name: 'rec-all', interface: 'sel0', ...REQUESTS, 'cni-args': { foo: 'bar', count: 3 } }]);
    await pod(admin, 'declares-none', [{ name: 'rec-none', ...REQUESTS }, { name: 'rec-none' }]);
    await pod(admin, 'folded-keys', [
      {
        name: 'rec-all',
        Interface: 'fold0',
        IPS: REQUESTS.ips,
        Mac: REQUESTS.mac,
        PortMappings: REQUESTS.portMappings,
        BANDWIDTH: REQUESTS.bandwidth,
        'CNI-Args': { folded: true },
      },
    ]);
    await pod(admin, 'declares-some', [{ name: 'rec-list', interface: 'sel9', ...REQUESTS, 'cni-args': { foo: 'list' } }]);
  });
}, 180_000);

afterAll(async () => {
  await parity.stop();
}, 60_000);

describe('selection keys, compared with upstream multus-daemon v4.2.3', () => {
  it('a plugin declaring every capability gets each request in runtimeConfig, cni-args in args.cni, its interface name, IP and MAC in CNI_ARGS', async () => {
    const outcome = expectSame(await parity.addThroughBoth(podNamed('declares-all')));
    expect(outcome.code).toBe(0);
    const [call] = outcome.calls;
    const stdin = (call?.stdin ?? {}) as { runtimeConfig?: Record<string, unknown>; args?: { cni?: unknown } };
    expect({ ifName: call?.ifName, runtimeConfig: Object.keys(stdin.runtimeConfig ?? {}).sort(), cniArgs: stdin.args?.cni }).toEqual({
      ifName: 'sel0',
      runtimeConfig: ['bandwidth', 'deviceID', 'infinibandGUID', 'ips', 'mac', 'portMappings'],
      cniArgs: { foo: 'bar', count: 3 },
    });
    expect(call?.args).toContain(';IP=192.0.2.20/24');
    expect(call?.args).toContain(';MAC=02:00:00:00:00:01');
  });

  it('a plugin declaring none gets no runtimeConfig, and unnamed selections are net1, net2', async () => {
    const outcome = expectSame(await parity.addThroughBoth(podNamed('declares-none')));
    expect(outcome.code).toBe(0);
    expect(outcome.calls.map((call) => [call.ifName, 'runtimeConfig' in (call.stdin as object)])).toEqual([
      ['net1', false],
      ['net2', false],
    ]);
  });

  it('each plugin of a list gets only the capabilities it declares', async () => {
    const outcome = expectSame(await parity.addThroughBoth(podNamed('declares-some')));
    expect(outcome.code).toBe(0);
    expect(outcome.calls.map((call) => Object.keys((call.stdin as { runtimeConfig?: object }).runtimeConfig ?? {}).sort())).toEqual([
      ['ips'],
      ['mac', 'portMappings'],
    ]);
  });

  it('keys spelled in another case reach the delegate as Go decodes them, as the keys they fold to', async () => {
    const outcome = expectSame(await parity.addThroughBoth(podNamed('folded-keys')));
    expect(outcome.code).toBe(0);
    const [call] = outcome.calls;
    const stdin = (call?.stdin ?? {}) as { runtimeConfig?: Record<string, unknown>; args?: { cni?: unknown } };
    expect({ ifName: call?.ifName, runtimeConfig: Object.keys(stdin.runtimeConfig ?? {}).sort(), cniArgs: stdin.args?.cni }).toEqual({
      ifName: 'fold0',
      runtimeConfig: ['bandwidth', 'ips', 'mac', 'portMappings'],
      cniArgs: { folded: true },
    });
  });

  it('the runtime’s runtimeConfig from the shim’s configuration reaches the selection under its own requests', async () => {
    const runtimeConfig = {
      portMappings: [{ hostPort: 9090, containerPort: 90, protocol: 'udp' }],
      bandwidth: { ingressRate: 1, ingressBurst: 1, egressRate: 1, egressBurst: 1 },
    };
    const outcome = expectSame(await parity.addThroughBoth(podNamed('declares-all'), { runtimeConfig }));
    expect(outcome.code).toBe(0);
    expect(outcome.calls).toHaveLength(1);
  });
});
