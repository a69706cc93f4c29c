import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { isApiError } from '../api-errors.ts';
import type { KubeClient, KubeObject } from '../client.ts';
import { resourceTypes } from '../resources.ts';
import { waitFor } from './processes.ts';

/** The chart's CRDs: the single source of truth for the API server's schemas in tests and installs. */
export const CHART_CRDS_DIR = fileURLToPath(new URL('../../../../charts/sriov-dra/crds/', import.meta.url));

export function readCrds(dir = CHART_CRDS_DIR): Record<string, unknown>[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .flatMap((file) => parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((document) => document.toJS() as Record<string, unknown>));
}

/** Creates every chart CRD (tolerating ones that exist) and waits until each is Established. */
export async function installCrds(client: KubeClient, dir = CHART_CRDS_DIR): Promise<void> {
  await installCrdObjects(client, readCrds(dir));
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
