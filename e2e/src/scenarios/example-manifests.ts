// The manifests under examples/ as a user applies them: each example's numbered files in order, every
// YAML document of each. The scenarios create these objects instead of copies of their own, so the
// examples are what the e2e suite runs; only what differs per node (where its IPAM keeps state) is
// substituted, by the functions below that say so.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type KubeClient, type ResourceType, resourceTypes } from '@sriov-dra/k8s';
import { parseAllDocuments } from 'yaml';
import { z } from 'zod';

export const EXAMPLES_DIR = fileURLToPath(new URL('../../../examples/', import.meta.url));

export type ExampleName = 'one-network' | 'gpu-nic-pairs' | 'operator-rails';

const manifestSchema = z.looseObject({
  apiVersion: z.string(),
  kind: z.string(),
  metadata: z.looseObject({ name: z.string(), namespace: z.string().optional() }),
});

export type Manifest = z.infer<typeof manifestSchema>;

export interface ExampleDocument {
  /** The file's name in its example's folder. */
  readonly file: string;
  readonly manifest: Manifest;
}

/** The example's YAML files in apply order (their number prefixes sort them). */
export function exampleFiles(example: ExampleName): string[] {
  const dir = path.join(EXAMPLES_DIR, example);
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file) => path.join(dir, file));
}

/** Every document of the example, in apply order; a document that is not a Kubernetes object throws naming its file. */
export function readExample(example: ExampleName): ExampleDocument[] {
  return exampleFiles(example).flatMap((file) =>
    parseAllDocuments(fs.readFileSync(file, 'utf8')).map((document) => {
      if (document.errors.length > 0) throw new Error(`examples/${example}/${path.basename(file)}: ${document.errors.map(String).join('; ')}`);
      const parsed = manifestSchema.safeParse(document.toJS());
      if (!parsed.success) throw new Error(`examples/${example}/${path.basename(file)}: not a Kubernetes object: ${parsed.error.message}`);
      return { file: path.basename(file), manifest: parsed.data };
    }),
  );
}

/** The example's objects of `kind`, in apply order; throws when it has none (a scenario relying on them would test nothing). */
export function exampleObjects(example: ExampleName, kind: string): Manifest[] {
  const found = readExample(example)
    .map((document) => document.manifest)
    .filter((manifest) => manifest.kind === kind);
  if (found.length === 0) throw new Error(`examples/${example} has no ${kind}`);
  return found;
}

const KIND_TYPES: ReadonlyMap<string, ResourceType> = new Map(
  [
    resourceTypes.networkAttachmentDefinition,
    resourceTypes.deviceAttributes,
    resourceTypes.sriovResourcePolicy,
    resourceTypes.sriovNetwork,
    resourceTypes.sriovNetworkNodePolicy,
    resourceTypes.deviceClass,
    resourceTypes.resourceClaimTemplate,
    resourceTypes.pod,
  ].map((type) => [type.kind, type]),
);

/** Creates the objects as `kubectl apply` would on a cluster that has none of them, each in its own namespace. */
export async function createManifests(admin: KubeClient, manifests: readonly Manifest[]): Promise<void> {
  for (const manifest of manifests) {
    const type = KIND_TYPES.get(manifest.kind);
    if (type === undefined) throw new Error(`${manifest.kind} ${manifest.metadata.name}: no resource type for this kind of example object`);
    await admin.create(type, manifest, type.namespaced ? { namespace: manifest.metadata.namespace } : {});
  }
}

/**
 * The IPAM object with Whereabouts' configuration file named. On a node of its own, Whereabouts reads
 * /etc/cni/net.d/whereabouts.d/whereabouts.conf; a simulated node keeps its configuration elsewhere.
 */
function withWhereaboutsConfig(owner: Manifest, ipam: Record<string, unknown>, whereaboutsConfig: string): Record<string, unknown> {
  if (ipam['type'] !== 'whereabouts') throw new Error(`${owner.kind} ${owner.metadata.name}: IPAM ${String(ipam['type'])} is not Whereabouts`);
  return { ...ipam, configuration_path: whereaboutsConfig };
}

/** A NetworkAttachmentDefinition of the examples with its CNI configuration's IPAM rewritten by `rewrite`. */
function withIpam(nad: Manifest, rewrite: (ipam: Record<string, unknown>) => Record<string, unknown>): Manifest {
  const spec = z.object({ config: z.string() }).parse(nad['spec']);
  const config = z.looseObject({ ipam: z.record(z.string(), z.unknown()) }).parse(JSON.parse(spec.config));
  return { ...nad, spec: { ...spec, config: JSON.stringify({ ...config, ipam: rewrite(config.ipam) }, null, 2) } };
}

/** The example's NAD with the node's Whereabouts configuration file (the node-specific substitution). */
export function nadOnNode(nad: Manifest, whereaboutsConfig: string): Manifest {
  return withIpam(nad, (ipam) => withWhereaboutsConfig(nad, ipam, whereaboutsConfig));
}

/** The example's NAD with host-local's lease directory on the node (by default /var/lib/cni/networks). */
export function hostLocalNadOnNode(nad: Manifest, hostLocalDir: string): Manifest {
  return withIpam(nad, (ipam) => {
    if (ipam['type'] !== 'host-local') throw new Error(`${nad.kind} ${nad.metadata.name}: IPAM ${String(ipam['type'])} is not host-local`);
    return { ...ipam, dataDir: hostLocalDir };
  });
}

/** The example's SriovNetwork with the node's Whereabouts configuration file in its IPAM. */
export function sriovNetworkOnNode(network: Manifest, whereaboutsConfig: string): Manifest {
  const spec = z.looseObject({ ipam: z.string() }).parse(network['spec']);
  const ipam = z.record(z.string(), z.unknown()).parse(JSON.parse(spec.ipam));
  return { ...network, spec: { ...spec, ipam: JSON.stringify(withWhereaboutsConfig(network, ipam, whereaboutsConfig), null, 2) } };
}

/** The example's one Pod under another name (each test's Pods are its own). */
export function examplePod(example: ExampleName, name: string): Manifest {
  const [pod, ...others] = exampleObjects(example, 'Pod');
  if (pod === undefined || others.length > 0) throw new Error(`examples/${example} has ${String(others.length + 1)} Pods, not one`);
  return { ...pod, metadata: { ...pod.metadata, name } };
}
