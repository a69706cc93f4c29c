// The objects both the webhook test (through a real API server) and the validate command test (as
// manifest files) judge, each with one expected verdict: the admission core's finding, and the layer of
// the API server that refuses it with the chart's CRDs installed. Sharing the list is what shows that the
// offline command and the API server agree.

export const OPERATOR_NAMESPACE = 'sriov-network-operator';
export const TENANT_NAMESPACE = 'team-a';
export const API_VERSION = 'sriovnetwork.openshift.io/v1';

const NAME_KEY = 'sriovnetwork.openshift.io/sriovNetworkName';
const NAMESPACE_KEY = 'sriovnetwork.openshift.io/sriovNetworkNamespace';

/**
 * Which part of the API server refuses an object: strict field validation while decoding (unknown fields,
 * 400), the CRD's OpenAPI schema and CEL rules (422), or the webhook (422). The webhook is called only
 * for objects the first two admit.
 */
export type Layer = 'field-validation' | 'schema' | 'webhook';

export interface ApiServerRefusal {
  readonly layer: Layer;
  readonly status: 400 | 422;
  /** The field as the API server's message spells it. */
  readonly field: string;
}

export interface Finding {
  readonly code: string;
  readonly field: string;
}

export type Verdict =
  | { readonly allowed: true }
  | {
      readonly allowed: false;
      /** The admission core's first finding: what the webhook and the validate command report. */
      readonly code: string;
      readonly field: string;
      /** Its further findings, in the order they are reported. */
      readonly more: readonly Finding[];
      /** How the API server with the chart's CRDs refuses it. */
      readonly apiServer: ApiServerRefusal;
    };

export interface AdmissionCase {
  readonly title: string;
  readonly object: {
    readonly apiVersion: string;
    readonly kind: 'SriovNetworkNodePolicy' | 'SriovNetwork';
    readonly metadata: { readonly name: string; readonly namespace: string };
    readonly spec: Record<string, unknown>;
  };
  readonly verdict: Verdict;
}

const allowed: Verdict = { allowed: true };

function refused(code: string, field: string, layer: Layer, apiField = field, more: readonly Finding[] = []): Verdict {
  return { allowed: false, code, field, more, apiServer: { layer, status: layer === 'field-validation' ? 400 : 422, field: apiField } };
}

/** A finding only the webhook can make: the API server names the same field as the core. */
const byWebhook = (code: string, field: string): Verdict => refused(code, field, 'webhook');

const at = (key: string): string => `spec.dra.attributes[${JSON.stringify(key)}]`;
/** Where the API server's CEL rules on single values report: the key unquoted in brackets. */
const celAt = (key: string): string => `spec.dra.attributes[${key}]`;
/** Where its OpenAPI checks of a value member report: a dotted path. */
const schemaAt = (key: string, member: string): string => `spec.dra.attributes.${key}.${member}`;
/** CEL rules over the whole attribute map name only the map. */
const MAP = 'spec.dra.attributes';

let serial = 0;

function policy(title: string, dra: unknown, verdict: Verdict, where: { name?: string; namespace?: string } = {}): AdmissionCase {
  serial += 1;
  const spec: Record<string, unknown> = {
    resourceName: 'rail_a',
    nodeSelector: { 'feature.node.kubernetes.io/network-sriov.capable': 'true' },
    numVfs: 4,
    nicSelector: { pfNames: ['ens1f0'] },
    ...(dra === undefined ? {} : { dra }),
  };
  return {
    title,
    object: {
      apiVersion: API_VERSION,
      kind: 'SriovNetworkNodePolicy',
      metadata: { name: where.name ?? `policy-${serial}`, namespace: where.namespace ?? TENANT_NAMESPACE },
      spec,
    },
    verdict,
  };
}

/** A policy without spec.dra whose spec differs from a valid one by `fields`. */
function policySpec(title: string, fields: Record<string, unknown>, verdict: Verdict): AdmissionCase {
  const entry = policy(title, undefined, verdict);
  return { ...entry, object: { ...entry.object, spec: { ...entry.object.spec, ...fields } } };
}

function withAttributes(title: string, attributes: Record<string, unknown>, verdict: Verdict): AdmissionCase {
  return policy(title, { attributes }, verdict);
}

function network(title: string, namespace: string, spec: Record<string, unknown>, verdict: Verdict): AdmissionCase {
  serial += 1;
  return {
    title,
    object: { apiVersion: API_VERSION, kind: 'SriovNetwork', metadata: { name: `network-${serial}`, namespace }, spec: { resourceName: 'rail_a', ...spec } },
    verdict,
  };
}

const many = (count: number): Record<string, unknown> =>
  Object.fromEntries(Array.from({ length: count }, (_unused, index) => [`example.com/a${index}`, { int: index }]));

const X = 'example.com/x';
/** The validate command's code for what the CRD schema refuses outside spec.dra. */
const SCHEMA = 'CustomResourceSchemaViolation';

export const ADMISSION_CASES: readonly AdmissionCase[] = [
  // Invalid spec.dra inputs of §17.4.
  withAttributes('a value with two members', { [X]: { int: 1, bool: true } }, refused('InvalidDRAAttribute', at(X), 'schema', celAt(X))),
  withAttributes('a value with no member', { [X]: {} }, refused('InvalidDRAAttribute', at(X), 'schema', celAt(X))),
  // Unknown members of spec.dra and of its values are kept, not pruned, whatever the client's field
  // validation: the schema's rules see only the known members, the webhook refuses the rest.
  // A list member is unknown, and leaves the value without a member of its own.
  withAttributes(
    'an unsupported list value (strings)',
    { [X]: { strings: ['a'] } },
    refused('InvalidDRAAttribute', `${at(X)}.strings`, 'schema', celAt(X), [{ code: 'InvalidDRAAttribute', field: at(X) }]),
  ),
  withAttributes('a list value beside a scalar one', { [X]: { string: 'a', strings: ['a'] } }, byWebhook('InvalidDRAAttribute', `${at(X)}.strings`)),
  withAttributes('an unqualified key', { tier: { int: 1 } }, refused('InvalidDRAAttribute', at('tier'), 'schema', MAP)),
  withAttributes(
    'a "__proto__" key',
    JSON.parse('{"__proto__":{"int":1}}') as Record<string, unknown>,
    refused('InvalidDRAAttribute', at('__proto__'), 'schema', MAP),
  ),
  withAttributes(
    'a key prefix of 64 characters',
    { [`${'a'.repeat(64)}/x`]: { int: 1 } },
    refused('InvalidDRAAttribute', at(`${'a'.repeat(64)}/x`), 'schema', MAP),
  ),
  withAttributes(
    'a key suffix of 33 characters',
    { [`example.com/${'x'.repeat(33)}`]: { int: 1 } },
    refused('InvalidDRAAttribute', at(`example.com/${'x'.repeat(33)}`), 'schema', MAP),
  ),
  withAttributes(
    'a string of 65 ASCII bytes',
    { [X]: { string: 'a'.repeat(65) } },
    refused('InvalidDRAAttribute', `${at(X)}.string`, 'schema', schemaAt(X, 'string')),
  ),
  withAttributes(
    'a string of 33 two-byte characters (66 bytes)',
    { [X]: { string: '\u00e9'.repeat(33) } },
    refused('InvalidDRAAttribute', `${at(X)}.string`, 'schema', celAt(X)),
  ),
  withAttributes(
    'an invalid semantic version',
    { [X]: { version: '1.0' } },
    refused('InvalidDRAAttribute', `${at(X)}.version`, 'schema', schemaAt(X, 'version')),
  ),
  withAttributes('an integer beyond 2^53-1', { [X]: { int: 2 ** 53 } }, refused('InvalidDRAAttribute', `${at(X)}.int`, 'schema', schemaAt(X, 'int'))),
  withAttributes(
    'only the SriovNetwork name',
    { [NAME_KEY]: { string: 'rail-a-net' } },
    refused('IncompleteSriovNetworkReference', at(NAME_KEY), 'schema', MAP),
  ),
  withAttributes(
    'only the SriovNetwork namespace',
    { [NAMESPACE_KEY]: { string: TENANT_NAMESPACE } },
    refused('IncompleteSriovNetworkReference', at(NAMESPACE_KEY), 'schema', MAP),
  ),
  withAttributes(
    'a SriovNetwork name of 65 characters',
    { [NAME_KEY]: { string: 'a'.repeat(65) }, [NAMESPACE_KEY]: { string: TENANT_NAMESPACE } },
    refused('InvalidSriovNetworkReference', `${at(NAME_KEY)}.string`, 'schema', schemaAt(NAME_KEY, 'string')),
  ),
  // Each key alone is a valid attribute; as a reference the name must be a string. The API server's rule is on the map.
  withAttributes(
    'a SriovNetwork name given as a version',
    { [NAME_KEY]: { version: '1.0.0' }, [NAMESPACE_KEY]: { string: TENANT_NAMESPACE } },
    refused('InvalidSriovNetworkReference', at(NAME_KEY), 'schema', MAP),
  ),
  withAttributes(
    'a discovery-owned key',
    { 'resource.kubernetes.io/pcieRoot': { string: 'pci0000:00' } },
    refused('ReservedDRAAttribute', at('resource.kubernetes.io/pcieRoot'), 'schema', MAP),
  ),
  withAttributes(
    'the generated compatibility key k8s.cni.cncf.io/resourceName',
    { 'k8s.cni.cncf.io/resourceName': { string: 'openshift.io/rail_a' } },
    refused('ReservedDRAAttribute', at('k8s.cni.cncf.io/resourceName'), 'schema', MAP),
  ),
  withAttributes(
    'a manual netAttachDefName',
    { 'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName': { string: 'rail-a-net' } },
    refused('ReservedDRAAttribute', at('sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName'), 'schema', MAP),
  ),
  withAttributes(
    'a manual netAttachDefNamespace',
    { 'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefNamespace': { string: TENANT_NAMESPACE } },
    refused('ReservedDRAAttribute', at('sriovnetwork.k8snetworkplumbingwg.io/netAttachDefNamespace'), 'schema', MAP),
  ),
  withAttributes('33 attributes', many(33), refused('InvalidDRAAttribute', MAP, 'schema')),
  // The generated DeviceAttributes adds resourceName and turns the reference into the NAD pair: 31 entries fill the budget of 32.
  withAttributes('32 attributes', many(32), refused('InvalidDRAAttribute', MAP, 'schema')),
  withAttributes(
    '30 attributes and a SriovNetwork reference',
    { ...many(30), [NAME_KEY]: { string: 'rail-a-net' }, [NAMESPACE_KEY]: { string: TENANT_NAMESPACE } },
    refused('InvalidDRAAttribute', MAP, 'schema'),
  ),
  policy('an unknown member of spec.dra', { labels: {} }, byWebhook('InvalidDRAAttribute', 'spec.dra.labels')),
  policy('a misspelt attributes member', { atributes: { [X]: { int: 1 } } }, byWebhook('InvalidDRAAttribute', 'spec.dra.atributes')),
  policy('the default policy with spec.dra attributes', { attributes: { [X]: { int: 1 } } }, byWebhook('DRABlockOnDefaultPolicy', 'spec.dra'), {
    name: 'default',
    namespace: OPERATOR_NAMESPACE,
  }),
  policy('the default policy with an empty spec.dra', {}, byWebhook('DRABlockOnDefaultPolicy', 'spec.dra'), { name: 'default', namespace: OPERATOR_NAMESPACE }),

  // The rest of the policy: its CRD schema, which the validate command applies as well.
  policySpec('numVfs as a string', { numVfs: '16' }, refused(SCHEMA, 'spec.numVfs', 'schema')),
  policySpec('priority 100', { priority: 100 }, refused(SCHEMA, 'spec.priority', 'schema')),
  policySpec('a resourceName with a dot', { resourceName: 'sriov.vfs' }, refused(SCHEMA, 'spec.resourceName', 'schema')),
  policySpec('a misspelt spec field', { numVf: 4 }, refused(SCHEMA, 'spec.numVf', 'field-validation')),

  // Valid inputs: zero and false are values, and a reference need not resolve at admission.
  policy('no spec.dra', undefined, allowed),
  policy('an empty spec.dra', {}, allowed),
  policy('an empty attribute map', { attributes: {} }, allowed),
  withAttributes('int 0 and bool false', { 'example.com/tier': { int: 0 }, 'example.com/fast': { bool: false } }, allowed),
  withAttributes('an empty string', { [X]: { string: '' } }, allowed),
  withAttributes('a string of 32 two-byte characters (64 bytes)', { [X]: { string: '\u00e9'.repeat(32) } }, allowed),
  withAttributes('a version with pre-release and build metadata', { [X]: { version: '22.31.1014-rc.1+build.5' } }, allowed),
  withAttributes('a key of 63 + 32 characters', { [`${'a'.repeat(63)}/${'x'.repeat(32)}`]: { int: 1 } }, allowed),
  withAttributes('31 attributes', many(31), allowed),
  withAttributes(
    '29 attributes and a SriovNetwork reference',
    { ...many(29), [NAME_KEY]: { string: 'rail-a-net' }, [NAMESPACE_KEY]: { string: TENANT_NAMESPACE } },
    allowed,
  ),
  withAttributes(
    'a reference to a SriovNetwork that does not exist',
    { [NAME_KEY]: { string: 'not-created-yet' }, [NAMESPACE_KEY]: { string: 'no-such-namespace' } },
    allowed,
  ),
  policy('the default policy without spec.dra', undefined, allowed, { name: 'default', namespace: OPERATOR_NAMESPACE }),
  policy('a policy named default outside the operator namespace', { attributes: { [X]: { int: 1 } } }, allowed, { name: 'default' }),

  // SriovNetwork: the checks the controller meets when it renders the source NAD.
  network(
    'a SriovNetwork with networkNamespace outside the operator namespace',
    TENANT_NAMESPACE,
    { networkNamespace: 'team-b' },
    byWebhook('NetworkAttachmentDefinitionInvalid', 'spec.networkNamespace'),
  ),
  network('a SriovNetwork with malformed ipam JSON', TENANT_NAMESPACE, { ipam: '{"type": host-local}' }, byWebhook('MalformedSriovNetworkJson', 'spec.ipam')),
  network(
    'a SriovNetwork with a metaPlugins list ending in a comma',
    TENANT_NAMESPACE,
    { metaPlugins: '{"type":"tuning"},' },
    byWebhook('MalformedSriovNetworkJson', 'spec.metaPlugins'),
  ),
  network('a SriovNetwork with vlan 4095', TENANT_NAMESPACE, { vlan: 4095 }, refused(SCHEMA, 'spec.vlan', 'schema')),
  network('a SriovNetwork with vlan as a string', TENANT_NAMESPACE, { vlan: '10' }, refused(SCHEMA, 'spec.vlan', 'schema')),
  network(
    'a SriovNetwork with ipam and metaPlugins',
    TENANT_NAMESPACE,
    { ipam: '{ "type": "host-local", "subnet": "10.56.217.0/24" }', metaPlugins: '{"type":"tuning"}' },
    allowed,
  ),
  network('a SriovNetwork in the operator namespace placing its NAD elsewhere', OPERATOR_NAMESPACE, { networkNamespace: TENANT_NAMESPACE }, allowed),
];
