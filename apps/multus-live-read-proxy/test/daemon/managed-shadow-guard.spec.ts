// The managed-shadow guard as a node meets it: the unchanged upstream multus-shim (v4.2.3) drives this
// daemon, which reads the Pod and its shadows live from a real API server. A shadow whose bytes another
// release wrote (Go's escapes and indentation) runs because its hash and meaning hold; a shadow with a
// foreign Pod owner, and a shadow named as the Pod's default network, are refused before any delegate
// runs: no interface, no address lease, no sriov call, no delegate cache.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type BindingAnnotationV1, annotations, serializeRegistry, shadowNameFor } from '@sriov-dra/contract';
import { buildShadowNad } from '@sriov-dra/cni-render';
import { type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, installCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import type { Daemon } from '../../src/daemon.ts';
import { NODE, NODE_UID, type NodeFixture, bindShadow, createNodeFixture, createPod, createSandbox, removeNodeFixture } from '../pipeline/node-fixture.ts';
import { runShim } from '../server/multus-shim.ts';
import { shimConfig, shimEnv, startFixtureDaemon } from './daemon-fixture.ts';

const NS = 'ai-workloads';
const PCI = '0000:03:00.1';

let cp: ControlPlane;
let node: NodeFixture;
let daemon: Daemon;
let socketDir: string;

/** Addresses host-local leased on the primary network. */
function primaryLeases(): string[] {
  const dir = join(node.hostLocalDir, 'primary');
  return existsSync(dir) ? readdirSync(dir).filter((entry) => /^\d+\.\d+\.\d+\.\d+$/.test(entry)) : [];
}

/**
 * A shadow as a driver of another release writes it: `config` is its exact spec.config, hashed into the
 * binding; the metadata is the driver's (owner, finalizer, labels), then the Pod's selection and registry.
 */
async function bindWrittenShadow(pod: KubeObject, config: string): Promise<string> {
  const attachmentID = createHash('sha256').update(`${pod.metadata.uid}/${PCI}/written`).digest('hex');
  const sha256 = createHash('sha256').update(config, 'utf8').digest('hex');
  const binding: BindingAnnotationV1 = {
    version: 1,
    attachmentID,
    podUID: pod.metadata.uid,
    claimUID: 'a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607',
    nodeName: NODE,
    nodeUID: NODE_UID,
    source: { namespace: NS, name: 'rail-a-net', uid: '9e8d7c6b-5a49-4382-a716-0f1e2d3c4b5a', resourceVersion: '1' },
    pciAddress: PCI,
    interface: 'dra0',
    configSHA256: sha256,
  };
  const nad = buildShadowNad(
    binding,
    { name: pod.metadata.name, namespace: NS, uid: pod.metadata.uid },
    { bytes: config, sha256, effectiveName: 'rail-a', pluginIndex: null, pluginType: 'sriov' },
  );
  if (!nad.ok) throw nad.error;
  const created = await cp.adminClient.create(resourceTypes.networkAttachmentDefinition, nad.value, { namespace: NS });
  const name = shadowNameFor(attachmentID);
  const entry = { attachmentID, claimUID: binding.claimUID, namespace: NS, name, uid: created.metadata.uid, interface: 'dra0', configSHA256: sha256 };
  await cp.adminClient.patch(
    resourceTypes.pod,
    { namespace: NS, name: pod.metadata.name },
    {
      metadata: {
        annotations: {
          [annotations.networks]: JSON.stringify([{ name, namespace: NS, interface: 'dra0' }]),
          [annotations.managedNetworks]: serializeRegistry({ version: 1, podUID: pod.metadata.uid, entries: [entry] }),
        },
      },
    },
    'application/merge-patch+json',
  );
  return name;
}

beforeAll(async () => {
  cp = await startControlPlane();
  await installCrds(cp.adminClient);
  await createNamespace(cp.adminClient, NS);
  node = await createNodeFixture();
  ({ daemon, socketDir } = await startFixtureDaemon(node, { kubeconfig: cp.kubeconfig, metricsPort: -1 }));
}, 120_000);

afterAll(async () => {
  await daemon.stop();
  await cp.stop();
  await removeNodeFixture(node);
});

describe('the managed-shadow guard behind the upstream multus-shim', () => {
  it('runs a shadow whose exact bytes another release wrote (Go escapes, indentation), because their hash and meaning hold', async () => {
    const pod = await createPod(cp.adminClient, NS, 'written');
    // As Go's json.MarshalIndent writes a map: keys sorted, & < > escaped; the PCI address's first digit escaped too.
    const config = [
      '{',
      '    "cniVersion": "1.0.0",',
      '    "deviceID": "\\u0030000:03:00.1",',
      `    "ipam": {"dataDir": "${node.hostLocalDir}", "ranges": [[{"subnet": "192.0.2.0/24"}]], "type": "host-local"},`,
      '    "name": "rail-a",',
      '    "note": "rail \\u003ca\\u003e \\u0026 b",',
      '    "type": "sriov"',
      '}',
    ].join('\n');
    expect(config).toContain('"deviceID": "\\u0030000:03:00.1"');
    const shadow = await bindWrittenShadow(pod, config);
    const sandbox = createSandbox();
    const who = { namespace: NS, name: 'written', uid: pod.metadata.uid };
    try {
      const add = await runShim(shimEnv(node, 'ADD', 'c-written', sandbox.path, who), shimConfig(socketDir));
      expect({ code: add.code, error: add.code === 0 ? '' : add.stdout }).toEqual({ code: 0, error: '' });
      const calls = (await node.sriovCalls()).filter((call) => call.args.split(';').includes('K8S_POD_NAME=written'));
      // The stand-in decodes its stdin as every plugin does: the escaped digit is the bound VF.
      expect(calls.map(({ command, ifName, stdin }) => `${command} ${ifName} ${String(stdin['deviceID'])}`)).toEqual([`ADD dra0 ${PCI}`]);
      const live = await cp.adminClient.get(resourceTypes.pod, { namespace: NS, name: 'written' });
      expect((JSON.parse(live.metadata.annotations?.[annotations.networkStatus] ?? '[]') as { name: string }[]).map((status) => status.name)).toEqual([
        'primary',
        `${NS}/${shadow}`,
      ]);
      const del = await runShim(shimEnv(node, 'DEL', 'c-written', sandbox.path, who), shimConfig(socketDir));
      expect(del.code).toBe(0);
      expect(sandbox.links()).toEqual([]);
    } finally {
      sandbox.remove();
    }
  });

  it.each([
    [
      'a foreign Pod among the shadow’s owners',
      async (pod: KubeObject, shadow: string): Promise<void> => {
        const intruder = await createPod(cp.adminClient, NS, 'intruder');
        const nad = await cp.adminClient.get(resourceTypes.networkAttachmentDefinition, { namespace: NS, name: shadow });
        const owners = [...(nad.metadata.ownerReferences ?? []), { apiVersion: 'v1', kind: 'Pod', name: 'intruder', uid: intruder.metadata.uid }];
        await cp.adminClient.patch(
          resourceTypes.networkAttachmentDefinition,
          { namespace: NS, name: shadow },
          { metadata: { ownerReferences: owners } },
          'application/merge-patch+json',
        );
        expect(pod.metadata.uid).not.toBe(intruder.metadata.uid);
      },
      'ManagedShadowMismatch',
      'ownerReferences[1] names foreign Pod intruder',
    ],
    [
      'the shadow named as the Pod’s default network',
      async (pod: KubeObject, shadow: string): Promise<void> => {
        await cp.adminClient.patch(
          resourceTypes.pod,
          { namespace: NS, name: pod.metadata.name },
          { metadata: { annotations: { 'v1.multus-cni.io/default-network': `${NS}/${shadow}` } } },
          'application/merge-patch+json',
        );
      },
      'ManagedShadowAsDefaultNetwork',
      'is named by the Pod\u2019s v1.multus-cni.io/default-network annotation',
    ],
  ])('refuses the ADD with %s before any delegate runs', async (_case, tamper, code, detail) => {
    const name = code === 'ManagedShadowMismatch' ? 'owned-twice' : 'default-shadow';
    const pod = await createPod(cp.adminClient, NS, name);
    const shadow = await bindShadow(cp.adminClient, pod, node.hostLocalDir, PCI);
    await tamper(pod, shadow);
    const sandbox = createSandbox();
    const leasesBefore = primaryLeases();
    try {
      const add = await runShim(shimEnv(node, 'ADD', `c-${name}`, sandbox.path, { namespace: NS, name, uid: pod.metadata.uid }), shimConfig(socketDir));
      expect(add.code).not.toBe(0);
      const error = JSON.parse(add.stdout) as { msg: string; details?: string };
      expect(`${error.msg} ${error.details ?? ''}`).toContain(`${code}: NetworkAttachmentDefinition ${NS}/${shadow}`);
      expect(`${error.msg} ${error.details ?? ''}`).toContain(detail);
      // Nothing ran: not the primary network, not the sriov plugin; nothing was cached for DEL.
      expect(sandbox.links()).toEqual([]);
      expect(primaryLeases()).toEqual(leasesBefore);
      expect((await node.sriovCalls()).filter((call) => call.args.split(';').includes(`K8S_POD_NAME=${name}`))).toEqual([]);
      expect(existsSync(join(node.cniDir, `c-${name}`))).toBe(false);
    } finally {
      sandbox.remove();
    }
  });
});
