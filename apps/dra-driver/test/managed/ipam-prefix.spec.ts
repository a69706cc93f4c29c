// The prefix the claim's networkData gives an address is the one the IPAM plugin itself answered with:
// the real host-local, static and Whereabouts plugins (Whereabouts against a real API server) run ADD on
// a configuration, and the prefix read back from that configuration for the bare address Multus would
// report must be the prefix of their CNI result.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ControlPlane, cniPlugins, installCrdObjects, readCrds, startControlPlane } from '@sriov-dra/k8s/testing';
import { addressWithPrefix } from '../../src/managed/ipam-prefix.ts';

let cp: ControlPlane;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ipam-prefix-'));
  cp = await startControlPlane();
  await installCrdObjects(cp.adminClient, readCrds(cniPlugins().whereaboutsCrdsDir));
}, 120_000);

afterAll(async () => {
  await cp.stop();
  rmSync(dir, { recursive: true, force: true });
});

let container = 0;

/** Runs the IPAM plugin named by the configuration's ipam.type as the sriov plugin would: ADD, and the result's addresses. */
function ipamAdd(config: Record<string, unknown>): Promise<string[]> {
  const type = (config['ipam'] as { type: string }).type;
  container += 1;
  const env = {
    PATH: process.env['PATH'] ?? '',
    CNI_COMMAND: 'ADD',
    CNI_CONTAINERID: `ipam-prefix-${container}`,
    CNI_NETNS: '/var/run/netns/ipam-prefix',
    CNI_IFNAME: 'net1',
    CNI_PATH: cniPlugins().binDir,
    CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=ai-workloads;K8S_POD_NAME=trainer-${container}`,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(join(cniPlugins().binDir, type), [], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${type} ADD exited ${String(code)}: ${stdout}${stderr}`));
      else resolve((JSON.parse(stdout) as { ips: { address: string }[] }).ips.map((ip) => ip.address));
    });
    child.stdin.end(JSON.stringify(config));
  });
}

const conf = (ipam: Record<string, unknown>) => ({ cniVersion: '1.0.0', name: 'rail-a', type: 'sriov', ipam });

/** The bare address Multus's network-status reports, and the prefix read back from the configuration. */
function readBack(results: readonly string[], config: Record<string, unknown>): (string | undefined)[] {
  return results.map((cidr) => addressWithPrefix(cidr.split('/')[0] ?? '', JSON.stringify(config)));
}

describe('address prefixes from the IPAM that handed the address out', () => {
  it('host-local: the prefix of the range the address came from, IPv4 and IPv6', async () => {
    const config = conf({
      type: 'host-local',
      dataDir: join(dir, 'host-local'),
      ranges: [[{ subnet: '192.0.2.0/24' }], [{ subnet: '2001:db8:0:7::/64' }]],
    });
    const results = await ipamAdd(config);
    expect(results.map((cidr) => cidr.split('/')[1])).toEqual(['24', '64']);
    expect(readBack(results, config)).toEqual(results);
  }, 30_000);

  it('static: the prefix the configured address carries', async () => {
    const config = conf({ type: 'static', addresses: [{ address: '10.0.0.5/16' }, { address: '2001:db8::5/48' }] });
    const results = await ipamAdd(config);
    expect(results).toEqual(['10.0.0.5/16', '2001:db8::5/48']);
    expect(readBack(results, config)).toEqual(results);
  }, 30_000);

  it('whereabouts: the prefix of its range, in the CIDR and in the first-last/prefix form', async () => {
    // Whereabouts reads its datastore from a flat file as on a node (whereabouts.d/whereabouts.conf).
    const flatFile = join(dir, 'whereabouts.conf');
    writeFileSync(
      flatFile,
      JSON.stringify({ datastore: 'kubernetes', kubernetes: { kubeconfig: cp.kubeconfigFor('whereabouts', { groups: ['system:masters'] }) } }),
    );
    const cidrRange = conf({ type: 'whereabouts', range: '198.51.100.0/24', configuration_path: flatFile });
    const dashed = conf({ type: 'whereabouts', range: '203.0.113.20-203.0.113.30/27', configuration_path: flatFile });
    const results = [...(await ipamAdd(cidrRange)), ...(await ipamAdd(dashed))];
    expect(results.map((cidr) => cidr.split('/')[1])).toEqual(['24', '27']);
    expect([...readBack(results.slice(0, 1), cidrRange), ...readBack(results.slice(1), dashed)]).toEqual(results);
  }, 60_000);
});
