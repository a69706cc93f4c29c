// Where the webhook's serving certificate comes from, as `helm template` of the umbrella chart renders it:
// by default the webhook's init container makes it at runtime (no certificate material rendered, the
// rights it needs rendered beside it); with webhook.certificates.source cert-manager, a Certificate for the
// Service's names whose Secret the Deployment mounts, and cert-manager's CA injection on the configuration.
import { describe, expect, it } from '@jest/globals';
import { UMBRELLA_CHART_DIR, renderChart } from '@sriov-dra/k8s/testing';

const NAMESPACE = 'infra';

interface Rendered {
  readonly kind: string;
  readonly apiVersion: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly annotations?: Record<string, string> };
  readonly spec?: Record<string, unknown>;
  readonly rules?: readonly { readonly resources: readonly string[]; readonly resourceNames?: readonly string[]; readonly verbs: readonly string[] }[];
  readonly webhooks?: readonly { readonly clientConfig: { readonly caBundle?: string; readonly service: { readonly name: string } } }[];
}
interface PodSpec {
  readonly serviceAccountName: string;
  readonly initContainers?: readonly { readonly name: string; readonly args: readonly string[]; readonly env: readonly { name: string; value: string }[] }[];
  readonly volumes: readonly { readonly name: string; readonly secret?: { readonly secretName: string }; readonly emptyDir?: unknown }[];
}

function webhookObjects(webhook: Record<string, unknown>): Rendered[] {
  const objects = renderChart(UMBRELLA_CHART_DIR, { namespace: NAMESPACE, values: { 'node-policy-operator': { webhook } } }) as unknown as Rendered[];
  return objects.filter((object) => object.metadata.name.includes('webhook') || object.kind === 'ValidatingWebhookConfiguration');
}
const find = (objects: readonly Rendered[], kind: string): Rendered => {
  const found = objects.find((object) => object.kind === kind);
  if (found === undefined) throw new Error(`no ${kind} rendered`);
  return found;
};
const podSpec = (objects: readonly Rendered[]): PodSpec => (find(objects, 'Deployment').spec as { template: { spec: PodSpec } }).template.spec;

describe('the webhook certificate from cert-manager', () => {
  const objects = webhookObjects({ certificates: { source: 'cert-manager', issuerRef: {} } });

  it('renders a self-signed Issuer and a Certificate for the Service’s DNS names, into the Secret the Deployment mounts', () => {
    const service = find(objects, 'Service').metadata.name;
    expect(service).toBe('node-policy-operator-webhook');
    expect(find(objects, 'Issuer')).toMatchObject({
      apiVersion: 'cert-manager.io/v1',
      metadata: { name: 'node-policy-operator-webhook-selfsigned', namespace: NAMESPACE },
      spec: { selfSigned: {} },
    });
    const certificate = find(objects, 'Certificate');
    expect(certificate).toMatchObject({
      apiVersion: 'cert-manager.io/v1',
      metadata: { name: service, namespace: NAMESPACE },
      spec: {
        dnsNames: [service, `${service}.${NAMESPACE}`, `${service}.${NAMESPACE}.svc`],
        issuerRef: { name: 'node-policy-operator-webhook-selfsigned', kind: 'Issuer', group: 'cert-manager.io' },
        duration: '87600h',
      },
    });
    const secretName = (certificate.spec as { secretName: string }).secretName;
    expect(podSpec(objects).volumes.find((volume) => volume.name === 'certs')).toEqual({ name: 'certs', secret: { secretName } });
  });

  it('asks cert-manager to inject the CA into the configuration, which renders no caBundle', () => {
    const configuration = find(objects, 'ValidatingWebhookConfiguration');
    expect(configuration.metadata.name).toBe('release-node-policy-operator');
    expect(configuration.metadata.annotations).toEqual({ 'cert-manager.io/inject-ca-from': `${NAMESPACE}/node-policy-operator-webhook` });
    expect(configuration.webhooks?.map((webhook) => webhook.clientConfig.caBundle)).toEqual([undefined, undefined]);
  });

  it('runs no init container and grants the webhook’s ServiceAccount nothing', () => {
    expect(podSpec(objects).initContainers).toBeUndefined();
    expect(podSpec(objects).volumes.map((volume) => volume.name)).toEqual(['certs']);
    expect(objects.filter((object) => ['Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'].includes(object.kind))).toEqual([]);
    expect(find(objects, 'ServiceAccount').metadata.name).toBe(podSpec(objects).serviceAccountName);
  });

  it('signs with the issuer named instead, rendering no Issuer of its own', () => {
    const named = webhookObjects({
      certificates: { source: 'cert-manager', issuerRef: { name: 'corporate-ca', kind: 'ClusterIssuer', group: 'cert-manager.io' } },
    });
    expect(named.filter((object) => object.kind === 'Issuer')).toEqual([]);
    expect(find(named, 'Certificate').spec?.['issuerRef']).toEqual({ name: 'corporate-ca', kind: 'ClusterIssuer', group: 'cert-manager.io' });
  });
});

describe('the webhook certificate made at runtime (the default)', () => {
  const objects = webhookObjects({});

  it('renders no Secret, Certificate or caBundle, and an init container with the names it works on', () => {
    expect(objects.filter((object) => ['Secret', 'Certificate', 'Issuer'].includes(object.kind))).toEqual([]);
    expect(find(objects, 'ValidatingWebhookConfiguration').metadata.annotations).toBeUndefined();
    const [init] = podSpec(objects).initContainers ?? [];
    expect(init?.args).toEqual(['webhook-certificates']);
    expect(Object.fromEntries((init?.env ?? []).map((variable) => [variable.name, variable.value]))).toEqual({
      WEBHOOK_NAMESPACE: NAMESPACE,
      WEBHOOK_SERVICE_NAME: find(objects, 'Service').metadata.name,
      TLS_SECRET_NAME: 'node-policy-operator-webhook-tls',
      WEBHOOK_CONFIGURATION_NAME: find(objects, 'ValidatingWebhookConfiguration').metadata.name,
      CERTIFICATE_VALIDITY_DAYS: '3650',
      CERTIFICATE_DIR: '/etc/webhook/certs',
      LOG_LEVEL: 'info',
    });
  });

  it('grants the webhook’s ServiceAccount the one Secret by name (create only by namespace) and the one configuration', () => {
    const role = find(objects, 'Role');
    expect(role.metadata.namespace).toBe(NAMESPACE);
    expect(role.rules).toEqual([
      { apiGroups: [''], resources: ['secrets'], resourceNames: ['node-policy-operator-webhook-tls'], verbs: ['get', 'update'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
    ]);
    expect(find(objects, 'ClusterRole').rules).toEqual([
      {
        apiGroups: ['admissionregistration.k8s.io'],
        resources: ['validatingwebhookconfigurations'],
        resourceNames: ['release-node-policy-operator'],
        verbs: ['get', 'patch'],
      },
    ]);
  });
});
