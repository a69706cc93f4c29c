import { describe, expect, it } from '@jest/globals';
import { waitFor } from './processes.ts';

describe('waitFor', () => {
  it('names the last probe error in its failure and keeps it as the cause', async () => {
    let probes = 0;
    const failure = await waitFor(
      'component',
      () => {
        probes += 1;
        return Promise.reject(new Error(`refused #${probes}`));
      },
      { timeoutMs: 250 },
    ).catch((caught: unknown) => caught as Error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toContain(`Last probe failed: refused #${probes}.`);
    expect(((failure as Error).cause as Error).message).toBe(`refused #${probes}`);
  });

  it('does not report an earlier error when the last probe merely answered false', async () => {
    let probes = 0;
    const failure = await waitFor(
      'component',
      () => {
        probes += 1;
        return probes === 1 ? Promise.reject(new Error('refused')) : Promise.resolve(false);
      },
      { timeoutMs: 250 },
    ).catch((caught: unknown) => caught as Error);
    expect((failure as Error).message).not.toContain('refused');
    expect((failure as Error).cause).toBeUndefined();
  });

  it('stops at once when the process exited', async () => {
    const failure = await waitFor('component', () => Promise.reject(new Error('refused')), { timeoutMs: 60_000, alive: () => false }).catch(
      (caught: unknown) => caught as Error,
    );
    // alive() is checked before the first probe: nothing was probed yet.
    expect((failure as Error).message).toMatch(/^component: process exited\./);
  });
});
