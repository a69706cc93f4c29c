// The webhook as the chart deploys it, called by a real API server the way a cluster calls it: through
// the Service the ValidatingWebhookConfiguration names, verified against the caBundle the webhook's init
// container applied, with the Service's DNS name as the TLS server name. No cluster network exists here,
// so the API server routes Services to their endpoints (--enable-aggregator-routing) and the endpoint is an
// address of a link this test adds (the API server refuses loopback endpoints). The init container runs as
// `node-policy-operator webhook-certificates` and the server as `node-policy-operator webhook`, each with
// exactly the rendered container's arguments and environment, the init container with a token of the
// chart's webhook ServiceAccount (so the chart's RBAC is what authorizes it), each Pod's emptyDir a
// directory of its own.
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type KubeObject, type ResourceType, resourceTypes } from '@sriov-dra/k8s';
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
  serviceAccountKubeconfig,
  startControlPlane,
  terminateChild,
  waitFor,
} from '@sriov-dra/k8s/testing';
import { CA_BUNDLE_FIELD_MANAGER } from '../../src/webhook-certificates/ca-bundle.ts';
import { issueWebhookCertificates } from '../../src/webhook-certificates/issue-certificates.ts';
import { serviceDnsNames } from '../../src/webhook-certificates/webhook-certificates-command.ts';
import { ADMISSION_CASES, TENANT_NAMESPACE } from '../admission/admission-cases.ts';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const RELEASE_NS = 'sriov-dra';
const OPERATOR_NS = 'sriov-network-operator';
/** TEST-NET-2, on a bridge of this test's own (an address on a bridge without ports is still local). */
const ENDPOINT_IP = '198.51.100.71';
const LINK = 'sdra-webhook0';
const ENDPOINT_SLICES: ResourceType = { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', kind: 'EndpointSlice', namespaced: true };
const SECRETS: ResourceType = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };
const SECRET_NAME = 'node-policy-operator-webhook-tls';

interface Secret extends KubeObject {
  readonly data: Record<string, string>;
}
interface WebhookConfiguration extends KubeObject {
  readonly metadata: KubeObject['metadata'] & {
    readonly managedFields?: readonly { readonly manager: string; readonly operation: string; readonly fieldsV1?: unknown }[];
  };
  readonly webhooks: readonly { readonly name: string; readonly clientConfig: { readonly caBundle?: string } }[];
}

describe('the webhook as the chart deploys it', () => {
  let cp: ControlPlane;
  let dir: string;
  let port: number;
  let objects: Record<string, unknown>[];
  let kubeconfig: string;
  let webhook: ChildProcess | undefined;

  const deployment = (): Record<string, unknown> | undefined => objects.find((object) => object['kind'] === 'Deployment');
  const configurationName = (): string => {
    const configuration = objects.find((object) => object['kind'] === 'ValidatingWebhookConfiguration');
    return (configuration?.['metadata'] as { name: string }).name;
  };
  const readSecret = (): Promise<Secret> => cp.adminClient.get<Secret>(SECRETS, { namespace: RELEASE_NS, name: SECRET_NAME });

  /** One Pod's init container, its emptyDir at `podDir`: resolves to its exit status and log. */
  const certificateStep = (podDir: string): Promise<{ status: number | null; log: string }> => {
    const pod = podSpecOf(deployment());
    const [init] = pod.initContainers ?? [];
    if (init === undefined) throw new Error('the webhook Deployment has no init container');
    fs.mkdirSync(podDir, { recursive: true });
    const env = containerEnvironment(pod, init, {}, (volume) => (volume.name === 'certs' ? podDir : undefined));
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['--conditions=@sriov-dra/source', MAIN, ...(init.args ?? [])], { env: { ...env, KUBECONFIG: kubeconfig } });
      let log = '';
      child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
      child.on('exit', (status) => {
        resolve({ status, log });
      });
    });
  };
  const outcomeOf = (log: string): unknown =>
    (JSON.parse(log.split('\n').find((line) => line.includes('serving certificate is set up')) ?? '{}') as { outcome?: string }).outcome;

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
    const release = { namespace: RELEASE_NS, values: { global: { operatorNamespace: OPERATOR_NS }, webhook: { port } } };
    objects = [
      ...renderChartTemplate(OPERATOR_CHART_DIR, 'webhook-certificates-rbac.yaml', release),
      ...renderChartTemplate(OPERATOR_CHART_DIR, 'webhook.yaml', release),
    ];
  }, 120_000);

  afterAll(async () => {
    if (webhook !== undefined) await terminateChild(webhook);
    await cp.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    execFileSync('ip', ['link', 'del', LINK]);
  }, 60_000);

  it('renders no certificate material, and every object is accepted by the API server as Helm sends it', async () => {
    expect(objects.map((object) => object['kind'])).toEqual([
      'ServiceAccount',
      'ClusterRole',
      'ClusterRoleBinding',
      'Role',
      'RoleBinding',
      'Service',
      'Deployment',
      'ValidatingWebhookConfiguration',
    ]);
    const configuration = objects.at(-1) as unknown as WebhookConfiguration;
    expect(configuration.webhooks.map((entry) => entry.clientConfig.caBundle)).toEqual([undefined, undefined]);
    await createRendered(cp.adminClient, objects, RELEASE_NS);
    kubeconfig = await serviceAccountKubeconfig(
      cp,
      { namespace: RELEASE_NS, name: podSpecOf(deployment()).serviceAccountName },
      path.join(dir, 'webhook.kubeconfig'),
    );
  });

  it('two Pods starting together converge on one Secret, which both serve', async () => {
    const [first, second] = await Promise.all([certificateStep(path.join(dir, 'pod-1')), certificateStep(path.join(dir, 'pod-2'))]);
    expect({ status: [first.status, second.status], logs: [first.log, second.log] }).toMatchObject({ status: [0, 0] });
    expect([outcomeOf(first.log), outcomeOf(second.log)].sort()).toEqual(['created', 'kept']);
    const secret = await readSecret();
    for (const pod of ['pod-1', 'pod-2']) {
      expect(fs.readFileSync(path.join(dir, pod, 'tls.crt'), 'utf8')).toBe(Buffer.from(secret.data['tls.crt'] ?? '', 'base64').toString('utf8'));
      expect(fs.readFileSync(path.join(dir, pod, 'tls.key'), 'utf8')).toBe(Buffer.from(secret.data['tls.key'] ?? '', 'base64').toString('utf8'));
    }
  }, 60_000);

  it('a restarted Pod keeps the Secret byte for byte', async () => {
    const before = await readSecret();
    const again = await certificateStep(path.join(dir, 'pod-3'));
    expect({ status: again.status, outcome: outcomeOf(again.log) }).toEqual({ status: 0, outcome: 'kept' });
    const after = await readSecret();
    expect({ resourceVersion: after.metadata.resourceVersion, data: after.data }).toEqual({
      resourceVersion: before.metadata.resourceVersion,
      data: before.data,
    });
  }, 60_000);

  it('applies the Secret’s CA as every webhook’s caBundle, owned by its own field manager', async () => {
    const secret = await readSecret();
    const configuration = await cp.adminClient.get<WebhookConfiguration>(resourceTypes.validatingWebhookConfiguration, { name: configurationName() });
    expect(configuration.webhooks.map((entry) => entry.clientConfig.caBundle)).toEqual([secret.data['ca.crt'], secret.data['ca.crt']]);
    const managers = (configuration.metadata.managedFields ?? []).filter((entry) => JSON.stringify(entry.fieldsV1 ?? {}).includes('f:caBundle'));
    expect(managers.map((entry) => ({ manager: entry.manager, operation: entry.operation }))).toEqual([
      { manager: CA_BUNDLE_FIELD_MANAGER, operation: 'Apply' },
    ]);
  });

  it('is called by the API server through its Service, trusted by that caBundle, and refuses what it must', async () => {
    const pod = podSpecOf(deployment());
    const [container] = pod.containers;
    if (container === undefined) throw new Error('the Deployment has no container');
    // The first Pod's emptyDir, which its init container filled.
    const certs = path.join(dir, 'pod-1');
    const env = containerEnvironment(pod, container, {}, (volume) => (volume.name === 'certs' ? certs : undefined));
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

    const refused = ADMISSION_CASES.find((entry) => entry.title === 'the default policy with spec.dra attributes')?.object;
    const allowed = ADMISSION_CASES.find((entry) => entry.title === 'an empty spec.dra')?.object;
    if (refused === undefined || allowed === undefined) throw new Error('admission cases missing');
    let message = '';
    // The API server picks the endpoints up asynchronously.
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

  it('renews, with the Pod’s own grants, a Secret whose certificate names another Service', async () => {
    const planted = issueWebhookCertificates({ dnsNames: serviceDnsNames('another-webhook', RELEASE_NS), validityDays: 30, now: new Date() });
    const current = await readSecret();
    const base64 = (text: string): string => Buffer.from(text).toString('base64');
    await cp.adminClient.request({
      method: 'PUT',
      path: `/api/v1/namespaces/${RELEASE_NS}/secrets/${SECRET_NAME}`,
      body: { ...current, data: { 'ca.crt': base64(planted.caPem), 'tls.crt': base64(planted.certPem), 'tls.key': base64(planted.keyPem) } },
    });
    const renewal = await certificateStep(path.join(dir, 'pod-4'));
    expect({ status: renewal.status, outcome: outcomeOf(renewal.log) }).toEqual({ status: 0, outcome: 'renewed' });
    const renewed = await readSecret();
    expect(new X509Certificate(Buffer.from(renewed.data['tls.crt'] ?? '', 'base64')).subjectAltName).toBe(
      `DNS:node-policy-operator-webhook, DNS:node-policy-operator-webhook.${RELEASE_NS}, DNS:node-policy-operator-webhook.${RELEASE_NS}.svc`,
    );
    const configuration = await cp.adminClient.get<WebhookConfiguration>(resourceTypes.validatingWebhookConfiguration, { name: configurationName() });
    expect(configuration.webhooks.map((entry) => entry.clientConfig.caBundle)).toEqual([renewed.data['ca.crt'], renewed.data['ca.crt']]);
  }, 60_000);
});
