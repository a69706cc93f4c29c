import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ephemeralPortRange, freePort, waitFor } from './processes.ts';

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

describe('freePort', () => {
  it('hands out distinct loopback ports below the kernel’s ephemeral range, each one free', async () => {
    const { low } = ephemeralPortRange();
    const ports = await Promise.all(Array.from({ length: 200 }, () => freePort()));
    expect(new Set(ports).size).toBe(200);
    expect(ports.filter((port) => port < 10_000 || port >= low)).toEqual([]);
    // Free: each can be bound now.
    const servers = await Promise.all(
      ports.slice(0, 20).map(
        (port) =>
          new Promise<Server>((resolve, reject) => {
            const server = createServer();
            server.once('error', reject);
            server.listen(port, '127.0.0.1', () => {
              resolve(server);
            });
          }),
      ),
    );
    for (const server of servers) server.close();
  });

  it('reads the ephemeral range the kernel publishes, and Linux’s default when there is none', () => {
    const dir = mkdtempSync(join(tmpdir(), 'port-range-'));
    writeFileSync(join(dir, 'range'), '40000\t50000\n');
    expect(ephemeralPortRange(join(dir, 'range'))).toEqual({ low: 40000, high: 50000 });
    expect(ephemeralPortRange(join(dir, 'absent'))).toEqual({ low: 32768, high: 60999 });
    rmSync(dir, { recursive: true });
  });
});
