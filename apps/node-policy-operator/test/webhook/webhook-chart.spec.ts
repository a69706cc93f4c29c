// The webhook as the chart deploys it, called by a real API server the way a cluster calls it: through
// the Service the ValidatingWebhookConfiguration names, verified against the caBundle the chart generated,
// with the Service's DNS name as the TLS server name. No cluster network exists here, so the API server
// routes Services to their endpoints (--enable-aggregator-routing) and the endpoint is an address of a
// link this test adds (the API server refuses loopback endpoints). The webhook runs as
// `node-policy-operator webhook` with exactly the rendered container's arguments and environment, its
// certificate files written from the rendered Secret where the container mounts it.
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ResourceType, resourceTypes } from '@sriov-dra/k8s';
import {
  type ControlPlane,
  OPERATOR_CHART_DIR,
  containerEnvironment,
  createNamespace,
  createRendered,
  freePort,
  installCrds,
  podSpecOf,
  renderChartTemplate,
  startControlPlane,
  terminateChild,
  waitFor,
} from '@sriov-dra/k8s/testing';
import { ADMISSION_CASES, TENANT_NAMESPACE } from '../admission/admission-cases.ts';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const RELEASE_NS = 'sriov-dra';
const OPERATOR_NS = 'sriov-network-operator';
/** TEST-NET-2, on a bridge of this test's own (an address on a bridge without ports is still local). */
const ENDPOINT_IP = '198.51.100.71';
const LINK = 'sdra-webhook0';
const ENDPOINT_SLICES: ResourceType = { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', kind: 'EndpointSlice', namespaced: true };

describe('the webhook as the chart deploys it', () => {
  let cp: ControlPlane;
  let dir: string;
  let port: number;
  let objects: Record<string, unknown>[];
  let webhook: ChildProcess | undefined;

  beforeAll(async () => {
    // A run killed before its cleanup leaves the link behind.
    spawnSync('ip', ['link', 'del', LINK]);
    execFileSync('ip', ['link', 'add', LINK, 'type', 'bridge']);
    execFileSync('ip', ['addr', 'add', `${ENDPOINT_IP}/32`, 'dev', LINK]);
    execFileSync('ip', ['link', 'set', LINK, 'up']);
    cp = await startControlPlane({ endpointRouting: true });
    await installCrds(cp.adminClient);
    for (const namespace of [RELEASE_NS, OPERATOR_NS, TENANT_NAMESPACE]) await createNamespace(cp.adminClient, namespace);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhook-chart-'));
    port = await freePort();
    objects = renderChartTemplate(OPERATOR_CHART_DIR, 'webhook.yaml', { namespace: RELEASE_NS, values: { global: { operatorNamespace: OPERATOR_NS }, webhook: { port } } });
  }, 120_000);

  afterAll(async () => {
    if (webhook !== undefined) await terminateChild(webhook);
    await cp.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    execFileSync('ip', ['link', 'del', LINK]);
  }, 60_000);

  it('renders a Secret, Service, Deployment and ValidatingWebhookConfiguration the API server accepts', async () => {
    expect(objects.map((object) => object['kind'])).toEqual(['Secret', 'Service', 'Deployment', 'ValidatingWebhookConfiguration']);
    // The configuration last: the API server calls the webhook as soon as it is registered.
    await createRendered(
      cp.adminClient,
      objects.filter((object) => object['kind'] !== 'ValidatingWebhookConfiguration'),
      RELEASE_NS,
    );
  });

  it('is called by the API server through its Service, trusted by the generated caBundle, and refuses what it must', async () => {
    const pod = podSpecOf(objects.find((object) => object['kind'] === 'Deployment'));
    const secret = objects.find((object) => object['kind'] === 'Secret') as { data: Record<string, string> };
    const [container] = pod.containers;
    if (container === undefined) throw new Error('the Deployment has no container');
    // The Secret's files, where its volume's content is on this machine.
    const certs = path.join(dir, 'certs');
    fs.mkdirSync(certs);
    for (const [name, value] of Object.entries(secret.data)) fs.writeFileSync(path.join(certs, name), Buffer.from(value, 'base64'));
    const env = containerEnvironment(pod, container, {}, (volume) => (volume.secret === undefined ? undefined : certs));
    expect(env['TLS_CERT_FILE']).toBe(path.join(certs, 'tls.crt'));

    const logFile = path.join(dir, 'webhook.log');
    const log = fs.openSync(logFile, 'w');
    const child = spawn(process.execPath, ['--conditions=@sriov-dra/source', MAIN, ...(container.args ?? [])], { env, stdio: ['ignore', log, log] });
    fs.closeSync(log);
    webhook = child;
    await waitFor('the webhook serving', () => Promise.resolve(fs.readFileSync(logFile, 'utf8').includes(String(port))), {
      timeoutMs: 30_000,
      alive: () => child.exitCode === null,
      describe: () => fs.readFileSync(logFile, 'utf8'),
    });

    // What the EndpointSlice controller would write for the Service's one ready Pod.
    await cp.adminClient.create(
      ENDPOINT_SLICES,
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: 'node-policy-operator-webhook-1', labels: { 'kubernetes.io/service-name': 'node-policy-operator-webhook' } },
        addressType: 'IPv4',
        endpoints: [{ addresses: [ENDPOINT_IP], conditions: { ready: true } }],
        ports: [{ name: 'https', port, protocol: 'TCP' }],
      },
      { namespace: RELEASE_NS },
    );
    const configuration = objects.find((object) => object['kind'] === 'ValidatingWebhookConfiguration') ?? {};
    await cp.adminClient.create(resourceTypes.validatingWebhookConfiguration, configuration);

    const refused = ADMISSION_CASES.find((entry) => entry.title === 'the default policy with spec.dra attributes')?.object;
    const allowed = ADMISSION_CASES.find((entry) => entry.title === 'an empty spec.dra')?.object;
    if (refused === undefined || allowed === undefined) throw new Error('admission cases missing');
    let message = '';
    // The API server picks a new configuration up asynchronously.
    await waitFor(
      'the webhook refusing the default policy with spec.dra',
      async () => {
        try {
          await cp.adminClient.create(resourceTypes.sriovNetworkNodePolicy, refused, { namespace: refused.metadata.namespace });
          await cp.adminClient.delete(resourceTypes.sriovNetworkNodePolicy, refused.metadata);
          return false;
        } catch (error) {
          message = error instanceof Error ? error.message : String(error);
          return message.includes('admission webhook "validate-sriovnetworknodepolicy.sriovnetwork.openshift.io" denied the request');
        }
      },
      { timeoutMs: 30_000, describe: () => `${message}\n${fs.readFileSync(logFile, 'utf8')}` },
    );
    expect(message).toContain('DRABlockOnDefaultPolicy');
    const stored = await cp.adminClient.create(resourceTypes.sriovNetworkNodePolicy, allowed, { namespace: allowed.metadata.namespace });
    expect(stored.metadata.name).toBe(allowed.metadata.name);
  }, 120_000);
});
