// KubeClient.listAll on a real API server: every page read, each continue token followed.
import { describe, expect, it } from '@jest/globals';
import { KubeClient } from '../src/client.ts';
import { resourceTypes } from '../src/resources.ts';
import { createPod, useControlPlane } from './fixtures.ts';

const shared = useControlPlane({ namespace: 'paged' });

describe('listAll', () => {
  it('returns every item across pages, following the continue tokens', async () => {
    const names = ['pod-a', 'pod-b', 'pod-c', 'pod-d', 'pod-e'];
    for (const name of names) await createPod(shared.admin, 'paged', name);
    const continued: boolean[] = [];
    const recording = new (class extends KubeClient {
      override async request(...args: Parameters<KubeClient['request']>): Promise<unknown> {
        continued.push(args[0].query?.['continue'] !== undefined);
        return super.request(...args);
      }
    })(shared.admin.config, { qps: 1_000, burst: 1_000 });
    const items = await recording.listAll(resourceTypes.pod, { namespace: 'paged', limit: 2 });
    recording.close();
    expect(items.map((item) => item.metadata.name)).toEqual(names);
    // Three pages of at most two: the first without a token, each next one with the token the last gave.
    expect(continued).toEqual([false, true, true]);
  }, 30_000);
});
