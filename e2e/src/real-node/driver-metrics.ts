// The node driver's own count of the kubelet's NodePrepareResources claims, read from its Prometheus
// endpoint: the driver runs on the host network, on the health port the release was installed with. The
// count is the driver process's: a new driver Pod starts from zero.
import { z } from 'zod';
import type { RealStack } from './real-stack.ts';

const PREPARE_REQUESTS = 'sriov_dra_driver_prepare_requests_total';

const releaseValues = z.looseObject({ 'dra-driver': z.looseObject({ healthcheckPort: z.number().int().positive() }) });

/** Claims the running driver was asked to prepare, by result (`ok`, `error`); empty before its first. */
export async function driverPrepareRequests(stack: Pick<RealStack, 'values'>): Promise<Record<string, number>> {
  const port = releaseValues.parse(stack.values)['dra-driver'].healthcheckPort;
  const response = await fetch(`http://127.0.0.1:${String(port)}/metrics`, { signal: AbortSignal.timeout(5_000) });
  if (!response.ok) throw new Error(`the driver's /metrics answered ${String(response.status)}`);
  const counts: Record<string, number> = {};
  for (const line of (await response.text()).split('\n')) {
    // sriov_dra_driver_prepare_requests_total{result="ok"} 3
    const match = new RegExp(`^${PREPARE_REQUESTS}\\{result="([a-z]+)"\\} (\\d+)$`).exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) counts[match[1]] = Number(match[2]);
  }
  return counts;
}
