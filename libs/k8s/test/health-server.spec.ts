// A component's health endpoint over real HTTP: what the kubelet's probes and a Prometheus scrape read,
// what anything else gets, and what a port that cannot be bound says.
import { request } from 'node:http';
import { afterEach, describe, expect, it } from '@jest/globals';
import { SriovDraError } from '@sriov-dra/contract';
import { Counter, Gauge, Registry } from 'prom-client';
import { type HealthServer, startHealthServer } from '../src/health-server.ts';

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

function call(port: number, method: string, path: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port, method, path }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body });
      });
    });
    sent.on('error', reject).end();
  });
}

let server: HealthServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(readiness: { name: string; ready(): boolean }[] = [], registry = new Registry()): Promise<HealthServer> {
  server = await startHealthServer({ port: 0, portFlag: '--healthcheck-port', host: '127.0.0.1', readiness, registry });
  return server;
}

describe('the health endpoint', () => {
  it('answers /healthz while the process serves, and /readyz only once every check passes, naming those that do not', async () => {
    let registered = false;
    const { port } = await start([
      { name: 'checkpoint loaded', ready: () => true },
      { name: 'kubelet registration', ready: () => registered },
      { name: 'first publication', ready: () => false },
    ]);
    expect(await call(port, 'GET', '/healthz')).toMatchObject({ status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'ok' });
    expect(await call(port, 'GET', '/readyz')).toMatchObject({ status: 503, body: 'not ready: kubelet registration, first publication' });
    registered = true;
    expect(await call(port, 'GET', '/readyz?verbose')).toMatchObject({ status: 503, body: 'not ready: first publication' });
  });

  it('answers /readyz ok when every check passes', async () => {
    const { port } = await start([{ name: 'checkpoint loaded', ready: () => true }]);
    expect(await call(port, 'GET', '/readyz')).toMatchObject({ status: 200, body: 'ok' });
  });

  it('serves the service metrics, one registered after the start too, beside the process metrics in the Prometheus text format', async () => {
    const registry = new Registry();
    new Counter({ name: 'sriov_dra_test_started_total', help: 'at start', registers: [registry] }).inc(3);
    const { port } = await start([], registry);
    new Gauge({ name: 'sriov_dra_test_later', help: 'after start', registers: [registry] }).set(7);
    const metrics = await call(port, 'GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const samples = metrics.body.split('\n').filter((line) => /^(sriov_dra_test_\w+|process_resident_memory_bytes) /.test(line));
    expect(samples.map((line) => line.split(' ')[0])).toEqual(['sriov_dra_test_started_total', 'sriov_dra_test_later', 'process_resident_memory_bytes']);
    expect(samples.slice(0, 2)).toEqual(['sriov_dra_test_started_total 3', 'sriov_dra_test_later 7']);
  });

  it('fails only the scrape when a metric cannot be collected, and keeps answering', async () => {
    const registry = new Registry();
    new Gauge({
      name: 'sriov_dra_test_broken',
      help: 'throws',
      registers: [registry],
      collect() {
        throw new Error('device gone');
      },
    });
    const { port } = await start([], registry);
    expect(await call(port, 'GET', '/metrics')).toMatchObject({ status: 500, body: 'collecting metrics failed: device gone' });
    expect(await call(port, 'GET', '/healthz')).toMatchObject({ status: 200, body: 'ok' });
  });

  it('answers HEAD with the headers alone, other methods 405 with Allow, other paths 404 naming those served', async () => {
    const { port } = await start();
    expect(await call(port, 'HEAD', '/healthz')).toMatchObject({ status: 200, headers: { 'content-length': '2' }, body: '' });
    expect(await call(port, 'POST', '/healthz')).toMatchObject({ status: 405, headers: { allow: 'GET, HEAD' }, body: 'POST is not served; use GET' });
    expect(await call(port, 'GET', '/live')).toMatchObject({ status: 404, body: '/live is not served: /healthz, /readyz, /metrics are' });
  });

  it('names the flag that chose a port already in use, and stops listening on close', async () => {
    const first = await start();
    const taken = await startHealthServer({
      port: first.port,
      portFlag: '--healthcheck-port',
      host: '127.0.0.1',
      readiness: [],
      registry: new Registry(),
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(taken).toBeInstanceOf(SriovDraError);
    expect((taken as SriovDraError).toJSON()).toEqual({
      code: 'InvalidComponentSetting',
      detail: `port 127.0.0.1:${String(first.port)} is already in use`,
      object: { kind: 'Flag', name: '--healthcheck-port' },
      remedy: 'stop what listens there or set --healthcheck-port to a free port',
    });
    await first.close();
    server = undefined;
    await expect(call(first.port, 'GET', '/healthz')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
