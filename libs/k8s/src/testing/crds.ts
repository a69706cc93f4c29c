import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { isApiError } from '../api-errors.ts';
import type { KubeClient, KubeObject } from '../client.ts';
import { resourceTypes } from '../resources.ts';
import { waitFor } from './processes.ts';

/** The CRDs the chart owns and installs from its crds/ (the driver's DeviceAttributes and SriovResourcePolicy). */
export const CHART_CRDS_DIR = fileURLToPath(new URL('../../../../charts/sriov-dra/crds/', import.meta.url));

/**
 * The CRDs other projects own (Multus's NetworkAttachmentDefinition, the SR-IOV network operator's kinds) in
 * the form this project needs them, spec.dra included: `node-policy-operator crds apply` creates them or adds
 * spec.dra to the installed ones; the operator's image carries them as src/crds/upstream-owned-crds.ts.
 */
export const UPSTREAM_OWNED_CRDS_DIR = fileURLToPath(new URL('../../../../apps/node-policy-operator/crds/', import.meta.url));

/** Every CRD the stack needs, as a fresh cluster gets them from the chart and `crds apply`. */
export const STACK_CRDS_DIRS: readonly string[] = [CHART_CRDS_DIR, UPSTREAM_OWNED_CRDS_DIR];

export function readCrds(dir = CHART_CRDS_DIR): Record<string, unknown>[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .flatMap((file) => parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((document) => document.toJS() as Record<string, unknown>));
}

/** Creates every CRD the stack needs (tolerating ones that exist) and waits until each is Established. */
export async function installCrds(client: KubeClient, dirs: readonly string[] = STACK_CRDS_DIRS): Promise<void> {
  await installCrdObjects(
    client,
    dirs.flatMap((dir) => readCrds(dir)),
  );
}

/** Creates the given CRDs (tolerating ones that exist) and waits until each is Established. */
export async function installCrdObjects(client: KubeClient, crds: readonly Record<string, unknown>[]): Promise<void> {
  for (const crd of crds) {
    try {
      await client.create(resourceTypes.customResourceDefinition, crd);
    } catch (error) {
      if (!isApiError(error, 'AlreadyExists')) throw error;
    }
  }
  for (const crd of crds) {
    const name = (crd['metadata'] as { name: string }).name;
    await waitFor(
      `CRD ${name}`,
      async () => {
        const live = await client.get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(resourceTypes.customResourceDefinition, {
          name,
        });
        return live.status?.conditions?.some((condition) => condition.type === 'Established' && condition.status === 'True') === true;
      },
      { timeoutMs: 30_000 },
    );
  }
}
