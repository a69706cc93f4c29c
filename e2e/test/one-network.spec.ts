// Scenario (a), §14.1: one NAD for a whole DeviceClass. The class carries the VfConfig naming the
// template, the policy only advertises one PF's VFs, and a Pod asking for one VF of the class comes up
// with it on dra0 and a host-local address of the template's subnet; deleting it returns the lease.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { ONE_NETWORK, createOneNetwork, oneNetworkPod } from '../src/scenarios/one-network.ts';
import { RAIL_PFS } from '../src/stack/simulated-node.ts';
import { OPERATOR_NAMESPACE, type Stack, WORKLOADS, startStack } from '../src/stack/stack.ts';
import { deletePod, expectNothingLeft, runPod } from './pod-lifecycle.ts';

describe('one network for a DeviceClass (§14.1)', () => {
  let stack: Stack;
  let passed = true;

  beforeAll(async () => {
    stack = await startStack();
    await createOneNetwork(stack.admin, {
      workloads: WORKLOADS,
      policyNamespace: OPERATOR_NAMESPACE,
      pf: RAIL_PFS[0].netdev,
      hostLocalDir: stack.node.hostLocalDir,
    });
  }, 240_000);

  afterAll(async () => {
    await stack.stop(!passed);
  }, 120_000);

  it('attaches the allocated VF of the advertised PF through the class’s template, with host-local on its subnet', async () => {
    passed = false;
    const { rows } = await runPod(stack, oneNetworkPod('one-vf'));
    const [row] = rows;
    if (row === undefined) throw new Error('the Pod got no SR-IOV device');
    const advertised = stack.node.pfs[0]?.vfs.map((vf) => vf.pciAddress) ?? [];
    expect({ rows: rows.length, request: row.request, rail: row.rail, interface: row.interface, advertisedPf: advertised.includes(row.vfPci) }).toEqual({
      rows: 1,
      request: 'vf',
      rail: `${WORKLOADS}/${ONE_NETWORK.template}`,
      interface: 'dra0',
      advertisedPf: true,
    });
    expect(row.ip).toMatch(/^192\.0\.2\.\d+$/);
    expect(row.sandboxIps).toEqual([row.ip]);
    const shadow = await stack.admin.get<KubeObject & { spec: { config: string } }>(resourceTypes.networkAttachmentDefinition, {
      namespace: WORKLOADS,
      name: row.shadow,
    });
    const config = JSON.parse(shadow.spec.config) as { deviceID?: string; name?: string; ipam?: { type?: string; dataDir?: string } };
    // The template's network name and IPAM preserved, the allocated VF's PCI address injected.
    expect({ deviceID: config.deviceID, name: config.name, ipam: config.ipam?.type, dataDir: config.ipam?.dataDir }).toEqual({
      deviceID: row.vfPci,
      name: ONE_NETWORK.network,
      ipam: 'host-local',
      dataDir: stack.node.hostLocalDir,
    });
    passed = true;
  }, 120_000);

  it('releases everything when the Pod goes, the host-local lease included', async () => {
    passed = false;
    await deletePod(stack, 'one-vf');
    await expectNothingLeft(stack);
    passed = true;
  }, 120_000);
});
