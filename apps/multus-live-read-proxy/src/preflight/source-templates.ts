import { DRIVER_NAME, type NadReference, validateDeviceAttributes, validateSriovResourcePolicy, validateVfConfig } from '@sriov-dra/contract';
import { type KubeClient, type KubeObject, type ResourceType, errorMessage, isApiError, resourceTypes } from '@sriov-dra/k8s';
import type { SourceTemplate, SourceTemplateFacts } from './managed-checks.ts';
import { labelsSelected, nodeSelected } from './policy-selectors.ts';

/**
 * The source templates managed shadows on this node are rendered from, found as the driver finds them
 * (§5.1, §5.2): the netAttachDefName references of the DeviceAttributes objects that the configs of the
 * SriovResourcePolicies applying to this node select, and the VfConfig references DeviceClasses give this
 * driver; then each referenced NAD's spec.config. Everything is read with preflight's own credentials; a
 * refused read is reported as such, never taken for "no templates". A claim's own VfConfig is per
 * workload and is not looked at.
 */

export interface TemplateScope {
  /** The Node whose labels select policies; absent: every policy counts. */
  readonly nodeName: string | undefined;
  /** The driver's namespace, where it reads policies and DeviceAttributes; absent: every namespace. */
  readonly driverNamespace: string | undefined;
}

interface Reference extends NadReference {
  readonly referencedBy: string;
}

interface Reads {
  readonly forbidden: string[];
  readonly errors: string[];
}

function describeRead(verb: string, type: ResourceType, where: string): string {
  return `${verb} ${type.resource}${type.group === '' ? '' : `.${type.group}`}${where}`;
}

/** One read; a refusal or failure is recorded and answers undefined, so the other reads still run. */
async function attempt<T>(reads: Reads, what: string, read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (isApiError(error, 'Forbidden')) reads.forbidden.push(what);
    else reads.errors.push(`${what}: ${errorMessage(error)}; run preflight again once the API server answers`);
    return undefined;
  }
}

const at = (namespace: string | undefined): string => (namespace === undefined ? ' in every namespace' : ` in ${namespace}`);
const nameOf = (object: { metadata: { namespace?: string; name: string } }): string => `${object.metadata.namespace ?? ''}/${object.metadata.name}`;

function policyReferences(
  policies: readonly KubeObject[],
  deviceAttributes: readonly KubeObject[],
  nodeLabels: Readonly<Record<string, string>> | undefined,
): Reference[] {
  const references: Reference[] = [];
  for (const raw of policies) {
    const policy = validateSriovResourcePolicy(raw);
    // An invalid policy withholds its devices in the driver: it renders nothing.
    if (!policy.ok) continue;
    if (nodeLabels !== undefined && !nodeSelected(policy.value.spec.nodeSelector, nodeLabels)) continue;
    for (const [index, config] of (policy.value.spec.configs ?? []).entries()) {
      const selector = config.deviceAttributesSelector;
      if (selector === null || selector === undefined) continue;
      for (const object of deviceAttributes) {
        if (object.metadata.namespace !== policy.value.namespace || !labelsSelected(selector, object.metadata.labels ?? {})) continue;
        const attributes = validateDeviceAttributes(object);
        if (!attributes.ok || attributes.value.nadReference === null) continue;
        references.push({
          ...attributes.value.nadReference,
          referencedBy: `SriovResourcePolicy ${nameOf(raw)} configs[${String(index)}] via DeviceAttributes ${nameOf(object)}`,
        });
      }
    }
  }
  return references;
}

interface OpaqueConfig {
  readonly opaque?: { readonly driver?: unknown; readonly parameters?: unknown };
}

function classReferences(classes: readonly KubeObject[]): Reference[] {
  return classes.flatMap((deviceClass) => {
    const configs = ((deviceClass as KubeObject & { spec?: { config?: OpaqueConfig[] } }).spec?.config ?? []).filter(
      (config) => config.opaque?.driver === DRIVER_NAME,
    );
    return configs.flatMap((config) => {
      const parameters = validateVfConfig(config.opaque?.parameters);
      if (!parameters.ok || parameters.value.netAttachDefName === undefined || parameters.value.netAttachDefName === '') return [];
      const namespace = parameters.value.netAttachDefNamespace;
      return [
        {
          name: parameters.value.netAttachDefName,
          namespace: namespace === undefined || namespace === '' ? null : namespace,
          referencedBy: `DeviceClass ${deviceClass.metadata.name}`,
        },
      ];
    });
  });
}

/** The IPAM settings of one CNI configuration that decide what a delegate needs on the node. */
export function templateNeeds(config: string): Pick<SourceTemplate, 'ipamTypes' | 'hostLocalDataDirs' | 'whereaboutsConfigs'> {
  const document = JSON.parse(config) as Record<string, unknown>;
  const plugins = Array.isArray(document['plugins']) ? (document['plugins'] as unknown[]) : [document];
  const ipamTypes = new Set<string>();
  const hostLocalDataDirs = new Set<string>();
  const whereaboutsConfigs: { kubeconfig: string; configurationPath: string }[] = [];
  for (const plugin of plugins) {
    const ipam = typeof plugin === 'object' && plugin !== null ? (plugin as { ipam?: unknown }).ipam : undefined;
    if (typeof ipam !== 'object' || ipam === null) continue;
    const { type, dataDir, kubernetes, configuration_path: configurationPath } = ipam as Record<string, unknown>;
    if (typeof type !== 'string' || type === '') continue;
    ipamTypes.add(type);
    if (type === 'host-local' && typeof dataDir === 'string' && dataDir !== '') hostLocalDataDirs.add(dataDir);
    if (type === 'whereabouts') {
      const kubeconfig = typeof kubernetes === 'object' && kubernetes !== null ? (kubernetes as { kubeconfig?: unknown }).kubeconfig : undefined;
      whereaboutsConfigs.push({
        kubeconfig: typeof kubeconfig === 'string' ? kubeconfig : '',
        configurationPath: typeof configurationPath === 'string' ? configurationPath : '',
      });
    }
  }
  return { ipamTypes: [...ipamTypes], hostLocalDataDirs: [...hostLocalDataDirs], whereaboutsConfigs };
}

async function readNode(client: KubeClient, reads: Reads, name: string): Promise<KubeObject | undefined> {
  try {
    return await client.get(resourceTypes.node, { name });
  } catch (error) {
    if (isApiError(error, 'NotFound')) reads.errors.push(`there is no Node ${name}: pass this node's name as --node-name (NODE_NAME)`);
    else if (isApiError(error, 'Forbidden')) reads.forbidden.push(describeRead('get', resourceTypes.node, ` ${name}`));
    else reads.errors.push(`get Node ${name}: ${errorMessage(error)}; run preflight again once the API server answers`);
    return undefined;
  }
}

type Nad = KubeObject & { spec?: { config?: string } };

/** The NADs a reference can resolve to: the named one, or for the consuming Pod's namespace every NAD of that name. */
async function resolve(client: KubeClient, reads: Reads, reference: NadReference): Promise<Nad[] | undefined> {
  const type = resourceTypes.networkAttachmentDefinition;
  if (reference.namespace !== null) {
    const { namespace, name } = reference;
    try {
      return [await client.get<Nad>(type, { namespace, name })];
    } catch (error) {
      if (isApiError(error, 'NotFound')) return [];
      if (isApiError(error, 'Forbidden')) reads.forbidden.push(describeRead('get', type, ` ${namespace}/${name}`));
      else reads.errors.push(`get NAD ${namespace}/${name}: ${errorMessage(error)}; run preflight again once the API server answers`);
      return undefined;
    }
  }
  return attempt(reads, describeRead('list', type, ' in every namespace'), () =>
    client.listAll<Nad>(type, { fieldSelector: `metadata.name=${reference.name}` }),
  );
}

export async function findSourceTemplates(client: KubeClient, scope: TemplateScope): Promise<SourceTemplateFacts> {
  const reads: Reads = { forbidden: [], errors: [] };
  const namespace = scope.driverNamespace;
  const listed = (type: ResourceType, where: string | undefined): Promise<KubeObject[] | undefined> =>
    attempt(reads, describeRead('list', type, type.namespaced ? at(where) : ''), () => client.listAll(type, where === undefined ? {} : { namespace: where }));
  const [policies, deviceAttributes, classes, node] = await Promise.all([
    listed(resourceTypes.sriovResourcePolicy, namespace),
    listed(resourceTypes.deviceAttributes, namespace),
    listed(resourceTypes.deviceClass, undefined),
    scope.nodeName === undefined ? undefined : readNode(client, reads, scope.nodeName),
  ]);
  // A Node that could not be read (or was not named) selects nothing out: every policy counts.
  const nodeLabels = node === undefined ? undefined : (node.metadata.labels ?? {});
  const references = [...policyReferences(policies ?? [], deviceAttributes ?? [], nodeLabels), ...classReferences(classes ?? [])];

  const templates = new Map<string, SourceTemplate>();
  const unresolved: { reference: string; referencedBy: string; reason: string }[] = [];
  const byReference = new Map<string, Reference[]>();
  for (const reference of references) {
    const key = `${reference.namespace ?? '<Pod namespace>'}/${reference.name}`;
    byReference.set(key, [...(byReference.get(key) ?? []), reference]);
  }
  for (const [key, group] of byReference) {
    const first = group[0] as Reference;
    const referencedBy = group.map((reference) => reference.referencedBy).join('; ');
    const nads = await resolve(client, reads, first);
    if (nads === undefined) continue;
    if (nads.length === 0) {
      unresolved.push({ reference: key, referencedBy, reason: first.namespace === null ? 'no NAD of that name in any namespace' : 'not found' });
    }
    for (const nad of nads) {
      const config = nad.spec?.config ?? '';
      try {
        if (config === '') throw new Error('spec.config is empty (a file-backed NAD cannot be a managed template)');
        const name = nameOf(nad);
        const earlier = templates.get(name);
        templates.set(name, {
          nad: name,
          referencedBy: earlier === undefined ? referencedBy : `${earlier.referencedBy}; ${referencedBy}`,
          ...templateNeeds(config),
        });
      } catch (error) {
        unresolved.push({ reference: nameOf(nad), referencedBy, reason: errorMessage(error) });
      }
    }
  }
  const where = namespace === undefined ? 'every namespace' : `namespace ${namespace}`;
  const nodeScope = scope.nodeName === undefined ? 'every node (no --node-name)' : `node ${scope.nodeName}`;
  return {
    scope: `SriovResourcePolicy and DeviceAttributes objects in ${where} for ${nodeScope}, and DeviceClass configs of ${DRIVER_NAME}`,
    templates: [...templates.values()],
    unresolved,
    forbidden: reads.forbidden,
    errors: reads.errors,
  };
}
