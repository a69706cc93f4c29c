import { writeFileSync } from 'node:fs';
import { SriovDraError } from '@sriov-dra/contract';
import { type KubeClient, isApiError, resourceTypes } from '@sriov-dra/k8s';
import type { Logger } from 'pino';
import { type CrdManifest, crdManifestSchema, schemaAt } from './crd-manifest.ts';
import { carriesDraSchema } from './crd-plan.ts';
import { DRA_FIELD, fieldName } from './dra-fields.ts';
import { UPSTREAM_OWNED_CRDS } from './upstream-owned-crds.ts';

/** Where the kubelet reads a container's termination message from (the Pod spec's default path). */
const TERMINATION_LOG = '/dev/termination-log';

/** The version of each CRD with spec.dra that the operator reads its objects at. */
const READ_VERSIONS: Readonly<Record<string, string>> = {
  [`${resourceTypes.sriovNetworkNodePolicy.resource}.${resourceTypes.sriovNetworkNodePolicy.group}`]: resourceTypes.sriovNetworkNodePolicy.version,
};

/**
 * The installed CRDs the operator reads spec.dra from that do not declare it at the version it reads: with
 * such a CRD the API server prunes spec.dra from every policy, and each would read as a policy without a
 * DRA block.
 */
export async function findMissingDraSchemas(client: KubeClient, crds: readonly CrdManifest[] = UPSTREAM_OWNED_CRDS): Promise<SriovDraError[]> {
  const missing: SriovDraError[] = [];
  for (const ours of crds.filter(carriesDraSchema)) {
    const name = ours.metadata.name;
    const object = { kind: 'CustomResourceDefinition', name };
    const version = READ_VERSIONS[name] ?? ours.spec.versions.find((candidate) => candidate.storage)?.name ?? '';
    let installed: CrdManifest;
    try {
      installed = crdManifestSchema.parse(await client.get(resourceTypes.customResourceDefinition, { name }));
    } catch (error) {
      if (!isApiError(error, 'NotFound')) throw error;
      missing.push(new SriovDraError('DraSchemaMissing', 'the CRD is not installed', { object }));
      continue;
    }
    const served = installed.spec.versions.find((candidate) => candidate.name === version && candidate.served);
    if (served === undefined || schemaAt(served, DRA_FIELD) === undefined) {
      missing.push(
        new SriovDraError('DraSchemaMissing', `version ${version} ${served === undefined ? 'is not served' : `declares no ${fieldName(DRA_FIELD)}`}`, {
          object,
        }),
      );
    }
  }
  return missing;
}

/**
 * At start: the operator refuses to run on CRDs that prune spec.dra rather than read pruned policies (and
 * withdraw what it generated for them). Each missing schema is logged once with its code; the messages also
 * go to the container's termination message, which the Pod's status shows.
 * Returns whether the operator may start.
 */
export async function checkDraSchemasAtStart(client: KubeClient, logger: Logger, terminationLog = TERMINATION_LOG): Promise<boolean> {
  const missing = await findMissingDraSchemas(client);
  for (const error of missing) logger.error({ code: error.code, crd: error.object?.name }, error.message);
  if (missing.length === 0) return true;
  try {
    writeFileSync(terminationLog, missing.map((error) => error.message).join('\n'));
  } catch {
    // Outside a Pod there is no termination log; the log lines above say the same.
  }
  return false;
}
