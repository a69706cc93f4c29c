// Where a NAD's configuration comes from and what it is named, compared with upstream multus-daemon v4.2.3 on
// the same node and requests: a NAD without spec.config names a CNI configuration file of confDir by its
// network name, and a configuration without "name" is named after its NAD.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { annotations } from '@sriov-dra/contract';
import { type KubeClient, resourceTypes } from '@sriov-dra/k8s';
import { createPod } from '../pipeline/node-fixture.ts';
import { type ParityNode, type ParityPod, startParityNode } from './upstream-parity.ts';

const NS = 'parity-nad';

let parity: ParityNode;
const pods = new Map<string, ParityPod>();

async function nad(admin: KubeClient, name: string, spec: Record<string, unknown>): Promise<void> {
  await admin.create(
    resourceTypes.networkAttachmentDefinition,
    { apiVersion: 'k8s.cni.cncf.io/v1', kind: 'NetworkAttachmentDefinition', metadata: { name, namespace: NS }, spec },
    { namespace: NS },
  );
}

async function pod(admin: KubeClient, name: string, networks: string): Promise<void> {
  const created = await createPod(admin, NS, name);
  await admin.patch(
    resourceTypes.pod,
    { namespace: NS, name },
    { metadata: { annotations: { [annotations.networks]: networks } } },
    'application/merge-patch+json',
  );
  pods.set(name, { namespace: NS, name, uid: created.metadata.uid });
}

function podNamed(name: string): ParityPod {
  const found = pods.get(name);
  if (found === undefined) throw new Error(`no Pod ${name}`);
  return found;
}

beforeAll(async () => {
  parity = await startParityNode(NS, async (admin, node) => {
    await writeFile(join(node.confDir, '20-file-net.conf'), JSON.stringify({ cniVersion: '1.0.0', name: 'file-net', type: 'sriov', fromFile: true }));
    await nad(admin, 'file-net', {});
    await nad(admin, 'unnamed-net', { config: JSON.stringify({ cniVersion: '1.0.0', type: 'sriov' }) });
    await pod(admin, 'file-user', 'file-net');
    await pod(admin, 'unnamed-user', 'unnamed-net');
  });
}, 180_000);

afterAll(async () => {
  await parity.stop();
}, 60_000);

describe('NAD configuration, compared with upstream multus-daemon v4.2.3', () => {
  it('a NAD with an empty spec runs the confDir file of its name', async () => {
    const { ours, upstream } = await parity.addThroughBoth(podNamed('file-user'));
    expect(ours).toEqual(upstream);
    expect(ours.calls.map((call) => call.stdin)).toEqual([{ cniVersion: '1.0.0', name: 'file-net', type: 'sriov', fromFile: true }]);
  });

  it('a configuration without a name is named after its NAD', async () => {
    const { ours, upstream } = await parity.addThroughBoth(podNamed('unnamed-user'));
    expect(ours).toEqual(upstream);
    expect(ours.calls.map((call) => call.stdin)).toEqual([{ cniVersion: '1.0.0', type: 'sriov', name: 'unnamed-net' }]);
  });
});
