import { writeFileSync } from 'node:fs';
import { SriovDraError } from '@sriov-dra/contract';
import { type KubeClient, isApiError, resourceTypes } from '@sriov-dra/k8s';
import type { Logger } from 'pino';
import { type CrdManifest, crdManifestSchema, schemaAt } from './crd-manifest.ts';
import { carriesDraSchema } from './crd-plan.ts';
import { DRA_FIELD, fieldName } from './dra-fields.ts';
import { UPSTREAM_OWNED_CRDS } from './upstream-owned-crds.ts';

/**
 * The file the kubelet mounts for a container's termination message (the Pod spec's default path), when the
 * operator runs in its Pod: in-cluster configuration, no kubeconfig given. Elsewhere there is none to write.
 */
export function podTerminationLog(kubeconfig: string | undefined): string | undefined {
  return kubeconfig === undefined ? '/dev/termination-log' : undefined;
}

/** The version of each CRD with spec.dra that the operator reads its objects at. */
const READ_VERSIONS: Readonly<Record<string, string>> = {
  [`${resourceTypes.sriovNetworkNodePolicy.resource}.${resourceTypes.sriovNetworkNodePolicy.group}`]: resourceTypes.sriovNetworkNodePolicy.version,
};

/** The version of `ours` the operator reads its objects at. */
function readVersion(ours: CrdManifest): string {
  return READ_VERSIONS[ours.metadata.name] ?? ours.spec.versions.find((candidate) => candidate.storage)?.name ?? '';
}

/**
 * Why the installed copy of `ours` (undefined: not installed) would have the API server prune spec.dra from
 * every object read at the operator's version, or undefined when it declares spec.dra there. `remedy`
 * replaces the catalog's, which speaks of a start.
 */
export function draSchemaProblem(ours: CrdManifest, installed: CrdManifest | undefined, remedy?: string): SriovDraError | undefined {
  const name = ours.metadata.name;
  const options = { object: { kind: 'CustomResourceDefinition', name }, ...(remedy === undefined ? {} : { remedy }) };
  if (installed === undefined) return new SriovDraError('DraSchemaMissing', 'the CRD is not installed', options);
  const version = readVersion(ours);
  const served = installed.spec.versions.find((candidate) => candidate.name === version && candidate.served);
  if (served !== undefined && schemaAt(served, DRA_FIELD) !== undefined) return undefined;
  return new SriovDraError('DraSchemaMissing', `version ${version} ${served === undefined ? 'is not served' : `declares no ${fieldName(DRA_FIELD)}`}`, options);
}

/**
 * The installed CRDs the operator reads spec.dra from that do not declare it at the version it reads: with
 * such a CRD the API server prunes spec.dra from every policy, and each would read as a policy without a
 * DRA block.
 */
export async function findMissingDraSchemas(client: KubeClient, crds: readonly CrdManifest[] = UPSTREAM_OWNED_CRDS): Promise<SriovDraError[]> {
  const missing: SriovDraError[] = [];
  for (const ours of crds.filter(carriesDraSchema)) {
    let installed: CrdManifest | undefined;
    try {
      installed = crdManifestSchema.parse(await client.get(resourceTypes.customResourceDefinition, { name: ours.metadata.name }));
    } catch (error) {
      if (!isApiError(error, 'NotFound')) throw error;
    }
    const problem = draSchemaProblem(ours, installed);
    if (problem !== undefined) missing.push(problem);
  }
  return missing;
}

/**
 * At start: the operator refuses to run on CRDs that prune spec.dra rather than read pruned policies (and
 * withdraw what it generated for them). Each missing schema is logged once with its code; the messages also
 * go to `terminationLog`, the container's termination message the Pod's status shows, when there is one.
 * Returns whether the operator may start.
 */
export async function checkDraSchemasAtStart(client: KubeClient, logger: Logger, terminationLog: string | undefined): Promise<boolean> {
  const missing = await findMissingDraSchemas(client);
  for (const error of missing) logger.error({ code: error.code, crd: error.object?.name }, error.message);
  if (missing.length === 0) return true;
  if (terminationLog !== undefined) {
    try {
      // r+: only the file the kubelet mounted; none is created.
      writeFileSync(terminationLog, missing.map((error) => error.message).join('\n'), { flag: 'r+' });
    } catch (error) {
      logger.warn({ err: error }, 'the termination message could not be written');
    }
  }
  return false;
}
