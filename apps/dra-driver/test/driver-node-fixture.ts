// The node both whole-driver tests run on: a real control plane with kube-scheduler and
// kube-controller-manager, a fake sysfs of 2 PFs × 4 VFs on two PCIe roots served by the kernel emulator,
// the driver's namespace, a workloads namespace, a Ready Node, and the driver's own credentials
// (driver-identity.ts). What differs between the tests — flags, RBAC templates, steps — stays in them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from '@jest/globals';
import { DRIVER_API_VERSION, DRIVER_NAME } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, isApiError, resourceTypes } from '@sriov-dra/k8s';
import { type ControlPlane, createNamespace, createReadyNode, installCrds, KubeletPeer, startControlPlane } from '@sriov-dra/k8s/testing';
import { generateFakeSysfs, uniformLayout } from '../../../tools/fake-sysfs/generate.ts';
import { type KernelEmulator, startKernelEmulator } from '../../../tools/fake-sysfs/kernel-emulator.ts';
import { driverIdentity } from './driver-identity.ts';

export const NAMESPACE = 'dra-sriov-driver';
export const WORKLOADS = 'workloads';
export const NODE = 'worker-a';

export interface DriverNode {
  readonly dir: string;
  readonly sysfsRoot: string;
  readonly cdiRoot: string;
  readonly pluginsDir: string;
  readonly registrarDir: string;
  readonly emulator: KernelEmulator;
  readonly cp: ControlPlane;
  readonly nodeUID: string;
  /** The driver's credentials: its ServiceAccount's token, bound to a driver Pod on the node. */
  readonly kubeconfig: string;
  /** The flags every test passes: node, credentials, paths, health on an ephemeral port, a high API rate. */
  readonly baseArgv: readonly string[];
  /** The kernel driver bound to a VF now, read from sysfs. */
  driverOf(pci: string): string | null;
  /** The driver's checkpoint records by claim UID, read from disk. */
  checkpointClaims<T>(): Record<string, T>;
  /** Registers the driver with the kubelet's own plugin watcher code; the peer is the test's to close. */
  register(): Promise<KubeletPeer>;
  readonly registrationSocket: string;
  /** Stops the emulator and control plane; the directory goes unless `keep` (a failed test's logs). */
  stop(keep: boolean): Promise<void>;
}

export async function startDriverNode(prefix: string, rbacTemplates: readonly string[]): Promise<DriverNode> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  const sysfsRoot = path.join(dir, 'sys');
  const cdiRoot = path.join(dir, 'cdi');
  const pluginsDir = path.join(dir, 'plugins');
  const registrarDir = path.join(dir, 'plugins_registry');
  generateFakeSysfs(sysfsRoot, uniformLayout({ pfs: 2, vfsPerPf: 4 }));
  const emulator = startKernelEmulator({ root: sysfsRoot, devRoot: path.join(dir, 'dev') });

  const cp = await startControlPlane({ controllerManager: true, scheduler: true });
  await installCrds(cp.adminClient);
  await createNamespace(cp.adminClient, NAMESPACE);
  await createNamespace(cp.adminClient, WORKLOADS);
  const nodeUID = (await createReadyNode(cp.adminClient, NODE)).metadata.uid;
  const kubeconfig = await driverIdentity(cp, path.join(dir, 'driver.kubeconfig'), { namespace: NAMESPACE, node: NODE }, rbacTemplates);
  const registrationSocket = path.join(registrarDir, `${DRIVER_NAME}-reg.sock`);
  return {
    dir,
    sysfsRoot,
    cdiRoot,
    pluginsDir,
    registrarDir,
    emulator,
    cp,
    nodeUID,
    kubeconfig,
    baseArgv: [
      ...['--node-name', NODE, '--kubeconfig', kubeconfig, '--namespace', NAMESPACE, '--sysfs-root', sysfsRoot, '--cdi-root', cdiRoot],
      ...['--kubelet-plugins-directory-path', pluginsDir, '--kubelet-registrar-directory-path', registrarDir, '--healthcheck-port', '0'],
      ...['--kube-api-qps', '100', '--kube-api-burst', '200'],
    ],
    driverOf: (pci) => {
      const link = path.join(sysfsRoot, 'bus/pci/devices', pci, 'driver');
      return fs.existsSync(link) ? path.basename(fs.readlinkSync(link)) : null;
    },
    checkpointClaims: <T>() => {
      const file = path.join(pluginsDir, DRIVER_NAME, 'checkpoint.json');
      // As the driver reads it: no file yet is an empty checkpoint.
      return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { claims: Record<string, T> }).claims : {};
    },
    registrationSocket,
    register: async () => {
      const peer = await KubeletPeer.start();
      const answer = await peer.send({ op: 'register', socket: registrationSocket });
      expect({ ok: answer.ok, error: answer.error, kubelet: answer.ok ? '' : peer.log }).toEqual({ ok: true, error: undefined, kubelet: '' });
      return peer;
    },
    stop: async (keep) => {
      await emulator.stop();
      await cp.stop();
      if (keep) process.stderr.write(`${prefix}: kept ${dir} (driver.log) after a failed step\n`);
      else fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The driver's health endpoint: status and body of one GET. */
export async function httpGet(port: number | undefined, route: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`http://127.0.0.1:${String(port)}${route}`);
  return { status: response.status, body: await response.text() };
}

/** One sample of a Prometheus text exposition, by its full name with labels; undefined when absent. */
export function metricValue(exposition: string, name: string): number | undefined {
  const line = exposition.split('\n').find((text) => text.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

/**
 * The driver's DeviceClass and a claim in the workloads namespace for two VFs on one PCIe root, with
 * `config` as its opaque device configuration; kube-scheduler allocates it once a Pod uses it.
 */
export async function createPairClaim(client: KubeClient, name: string, config: readonly Record<string, unknown>[] = []): Promise<KubeObject> {
  try {
    await client.create(resourceTypes.deviceClass, {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceClass',
      metadata: { name: DRIVER_NAME },
      spec: { selectors: [{ cel: { expression: `device.driver == "${DRIVER_NAME}"` } }] },
    });
  } catch (error) {
    // One class serves every claim of the test.
    if (!isApiError(error, 'AlreadyExists')) throw error;
  }
  return client.create(
    resourceTypes.resourceClaim,
    {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: { name },
      spec: {
        devices: {
          requests: [{ name: 'vfs', exactly: { deviceClassName: DRIVER_NAME, count: 2 } }],
          constraints: [{ requests: ['vfs'], matchAttribute: 'resource.kubernetes.io/pcieRoot' }],
          ...(config.length === 0 ? {} : { config }),
        },
      },
    },
    { namespace: WORKLOADS },
  );
}

/** The attribute a published device names its source template by (§5.2). */
export const NAD_NAME_ATTRIBUTE = 'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName';

/**
 * Source template `name` in the workloads namespace with `config`, and the policy that publishes every VF
 * with a reference to it (no namespace: the consuming Pod's is meant). Returns the source as created.
 */
export async function publishTemplate(client: KubeClient, name: string, config: string): Promise<KubeObject> {
  const source = await client.create(
    resourceTypes.networkAttachmentDefinition,
    { apiVersion: 'k8s.cni.cncf.io/v1', kind: 'NetworkAttachmentDefinition', metadata: { name }, spec: { config } },
    { namespace: WORKLOADS },
  );
  await publishEveryVf(client, NAMESPACE, name);
  return source;
}

/** The policy in the driver's `namespace` that publishes every VF with a reference to source template `template`. */
export async function publishEveryVf(client: KubeClient, namespace: string, template: string): Promise<void> {
  const attributes = { [NAD_NAME_ATTRIBUTE]: { string: template } };
  await client.create(
    resourceTypes.deviceAttributes,
    { apiVersion: DRIVER_API_VERSION, kind: 'DeviceAttributes', metadata: { name: template, labels: { template } }, spec: { attributes } },
    { namespace },
  );
  // One config without filters selects every VF and gives each the attributes of the objects it selects.
  const spec = { configs: [{ deviceAttributesSelector: { matchLabels: { template } } }] };
  await client.create(
    resourceTypes.sriovResourcePolicy,
    { apiVersion: DRIVER_API_VERSION, kind: 'SriovResourcePolicy', metadata: { name: 'all-vfs' }, spec },
    { namespace },
  );
}
