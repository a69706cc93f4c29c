// What the teardown tests share: our daemon started on its own directory with a fast retry schedule and
// a log the test reads, plugins that fail on purpose (wrapping the real bridge), the host-local leases
// and teardown state a container holds, and one counter of the daemon's metrics.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { annotations } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, resourceTypes } from '@sriov-dra/k8s';
import { cacheRoot } from '@sriov-dra/k8s/testing';
import { type Daemon, startDaemon } from '../../src/daemon.ts';
import type { RetrySchedule } from '../../src/teardown/retry-schedule.ts';
import { attachmentRecordPath, teardownRecordPath } from '../../src/teardown/teardown-store.ts';
import { writeFixtureDaemonConfig } from '../daemon/daemon-fixture.ts';
import { NODE, type NodeFixture, PRIMARY_BRIDGE, createPod } from '../pipeline/node-fixture.ts';

const IPV4 = /^\d+\.\d+\.\d+\.\d+$/;

export interface TeardownDaemon {
  readonly daemon: Daemon;
  readonly socketDir: string;
  readonly cniDir: string;
  /** Every log line so far, parsed. */
  readonly logs: Record<string, unknown>[];
}

/** Our daemon on `dir` (its own socket and cniDir), retrying teardowns on `schedule`. */
export async function startTeardownDaemon(node: NodeFixture, kubeconfig: string, dir: string, schedule: RetrySchedule): Promise<TeardownDaemon> {
  const { config, socketDir } = await writeFixtureDaemonConfig(node, { dir });
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const daemon = await startDaemon(
    { config, nodeName: NODE, kubeconfig, metricsPort: -1, kubeApiQps: 100, kubeApiBurst: 200 },
    { logger: pino({ level: 'info' }, sink), teardownRetry: schedule },
  );
  return { daemon, socketDir, cniDir: join(dir, 'multus-cache'), logs };
}

/** The value of one sample of the daemon's metrics (0 when absent). */
export async function metricValue(daemon: Daemon, name: string, labels: Readonly<Record<string, string>> = {}): Promise<number> {
  const metric = await daemon.metrics.registry.getSingleMetric(name)?.get();
  const sample = metric?.values.find((value) => Object.entries(labels).every(([key, expected]) => String(value.labels[key]) === expected));
  return sample?.value ?? 0;
}

/**
 * A plugin `type` that fails DEL for a container as many times as <bin>/fail-dels-<containerID> says (and ADD
 * always when <bin>/fail-adds-<containerID> exists), logging each DEL with whether the delegate cache was
 * there; otherwise it becomes the real bridge plugin (exec, same stdin and environment).
 */
export async function writeFaultyBridge(
  node: NodeFixture,
  type: string,
  cniDir: string,
): Promise<{ dels(containerID: string): { n: number; cache: boolean }[] }> {
  const bin = node.binDirs[1] ?? '';
  const script = `#!/bin/sh
bin=$(dirname "$0")
if [ "$CNI_COMMAND" = ADD ] && [ -e "$bin/fail-adds-$CNI_CONTAINERID" ]; then
  echo '{"cniVersion":"1.0.0","code":11,"msg":"injected ADD failure"}'
  exit 1
fi
if [ "$CNI_COMMAND" = DEL ]; then
  counter="$bin/${type}-del-count-$CNI_CONTAINERID"
  n=$(( $(cat "$counter" 2>/dev/null || echo 0) + 1 ))
  echo $n > "$counter"
  if [ -e "${cniDir}/$CNI_CONTAINERID" ]; then cache=true; else cache=false; fi
  echo "{\\"n\\":$n,\\"cache\\":$cache}" >> "$bin/${type}-dels-$CNI_CONTAINERID.log"
  if [ $n -le $(cat "$bin/fail-dels-$CNI_CONTAINERID" 2>/dev/null || echo 0) ]; then
    echo "{\\"cniVersion\\":\\"1.0.0\\",\\"code\\":11,\\"msg\\":\\"injected DEL failure $n\\"}"
    exit 1
  fi
fi
exec ${join(cacheRoot(), 'cni', 'bin', 'bridge')}
`;
  await writeFile(join(bin, type), script);
  await chmod(join(bin, type), 0o755);
  return {
    dels: (containerID) => {
      const log = join(bin, `${type}-dels-${containerID}.log`);
      if (!existsSync(log)) return [];
      return readFileSync(log, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as { n: number; cache: boolean });
    },
  };
}

/** Makes the faulty plugin fail the next `times` DELs of a container (counting from its first DEL). */
export async function failDels(node: NodeFixture, containerID: string, times: number): Promise<void> {
  await writeFile(join(node.binDirs[1] ?? '', `fail-dels-${containerID}`), String(times));
}

export async function failAdds(node: NodeFixture, containerID: string): Promise<void> {
  await writeFile(join(node.binDirs[1] ?? '', `fail-adds-${containerID}`), '');
}

/** A NAD of the faulty plugin on the primary bridge with its own host-local subnet. */
export async function createFaultyNad(client: KubeClient, node: NodeFixture, namespace: string, name: string, type: string, subnet: string): Promise<void> {
  await client.create(
    resourceTypes.networkAttachmentDefinition,
    {
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: { name, namespace },
      spec: {
        config: JSON.stringify({
          cniVersion: '1.0.0',
          name,
          type,
          bridge: PRIMARY_BRIDGE,
          ipam: { type: 'host-local', dataDir: node.hostLocalDir, ranges: [[{ subnet }]] },
        }),
      },
    },
    { namespace },
  );
}

/** A Pod selecting `nad` as net1. */
export async function createSelectingPod(client: KubeClient, namespace: string, name: string, nad: string): Promise<KubeObject> {
  const pod = await createPod(client, namespace, name);
  await client.patch(
    resourceTypes.pod,
    { namespace, name },
    { metadata: { annotations: { [annotations.networks]: JSON.stringify([{ name: nad, interface: 'net1' }]) } } },
    'application/merge-patch+json',
  );
  return pod;
}

/** host-local's leases a container holds on `network`, as "<address> <interface>". */
export function leases(node: NodeFixture, network: string, containerID: string): string[] {
  const dir = join(node.hostLocalDir, network);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => IPV4.test(name))
    .map((name) => [name, ...readFileSync(join(dir, name), 'utf8').split(/\r?\n/)])
    .filter(([, owner]) => owner === containerID)
    .map(([address, , ifName]) => `${address ?? ''} ${ifName ?? ''}`)
    .sort();
}

/** Which of a container's files exist: its delegate cache, its attachment record, its pending teardown. */
export function stateFiles(cniDir: string, containerID: string): { cache: boolean; attachment: boolean; teardown: boolean } {
  return {
    cache: existsSync(join(cniDir, containerID)),
    attachment: existsSync(attachmentRecordPath(cniDir, containerID)),
    teardown: existsSync(teardownRecordPath(cniDir, containerID)),
  };
}
