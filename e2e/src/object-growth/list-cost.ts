// What one LIST costs: the time from each page's request to its last byte, and the bytes of every page, paged as the
// project's clients and informers page (limit 500, following continue), over the admin's connection.
import { request } from 'node:https';
import { performance } from 'node:perf_hooks';
import type { KubeClient } from '@sriov-dra/k8s';

export interface ListCost {
  readonly ms: number;
  readonly bytes: number;
  readonly largestPageBytes: number;
  readonly pages: number;
  readonly items: number;
}

const PAGE = 500;

function getPage(client: KubeClient, path: string, query: URLSearchParams): Promise<Buffer> {
  const { server, tls } = client.config;
  const url = new URL(`${server.pathname.replace(/\/$/, '')}${path}?${query.toString()}`, server);
  return new Promise((resolve, reject) => {
    const req = request(url, { ca: tls.ca, cert: tls.cert, key: tls.key, headers: { Accept: 'application/json' } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const body = Buffer.concat(chunks);
        if (response.statusCode === 200) resolve(body);
        else reject(new Error(`GET ${url.pathname} answered ${String(response.statusCode)}: ${body.toString('utf8').slice(0, 300)}`));
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** One complete paged LIST of `path` (e.g. /apis/k8s.cni.cncf.io/v1/network-attachment-definitions). */
export async function listCost(client: KubeClient, path: string, labelSelector?: string): Promise<ListCost> {
  let ms = 0;
  let bytes = 0;
  let largestPageBytes = 0;
  let pages = 0;
  let items = 0;
  let token: string | undefined;
  do {
    const query = new URLSearchParams({ limit: String(PAGE) });
    if (labelSelector !== undefined) query.set('labelSelector', labelSelector);
    if (token !== undefined) query.set('continue', token);
    // The client's own decoding is not the server's cost: only the requests are timed.
    const started = performance.now();
    const body = await getPage(client, path, query);
    ms += performance.now() - started;
    const page = JSON.parse(body.toString('utf8')) as { items: unknown[]; metadata: { continue?: string } };
    bytes += body.length;
    largestPageBytes = Math.max(largestPageBytes, body.length);
    pages++;
    items += page.items.length;
    token = page.metadata.continue === '' ? undefined : page.metadata.continue;
  } while (token !== undefined);
  return { ms, bytes, largestPageBytes, pages, items };
}

/** The run with the median time of `repeats` LISTs (its bytes and pages with it). */
export async function medianListCost(client: KubeClient, path: string, repeats: number, labelSelector?: string): Promise<ListCost> {
  const runs: ListCost[] = [];
  for (let run = 0; run < repeats; run++) runs.push(await listCost(client, path, labelSelector));
  runs.sort((a, b) => a.ms - b.ms);
  const median = runs[Math.floor(runs.length / 2)];
  if (median === undefined) throw new Error('no LIST was timed');
  return median;
}
