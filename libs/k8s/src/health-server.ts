import { type FastifyInstance, type FastifyServerOptions, fastify } from 'fastify';
import { Registry } from 'prom-client';
import { listenError } from './listen-error.ts';
import { processMetricsRegistry } from './process-metrics.ts';

/** One condition /readyz requires; `ready` is asked on every request. */
export interface ReadinessCheck {
  readonly name: string;
  ready(): boolean;
}

export interface HealthServerOptions {
  /** Zero picks a free port. */
  readonly port: number;
  /** The flag that chose the port, named when it cannot be bound. */
  readonly portFlag: string;
  readonly host: string;
  readonly readiness: readonly ReadinessCheck[];
  /** The service's own metrics; the process metrics are served next to them. */
  readonly registry: Registry;
}

export interface HealthServer {
  /** The port actually bound. */
  readonly port: number;
  close(): Promise<void>;
}

function refuseSchema(): never {
  throw new Error('the health endpoint declares no route schemas');
}

/**
 * The routes declare no schemas, so fastify never compiles one; left to its default compilers it would
 * still load Ajv, its formats and fast-json-stringify for every instance: close to 4 MiB of a service's
 * resident memory (3 MiB of heap) spent on code that never runs.
 */
const noSchemaCompilers: NonNullable<FastifyServerOptions['schemaController']> = {
  compilersFactory: { buildValidator: () => refuseSchema, buildSerializer: () => refuseSchema },
};

/**
 * A service's health endpoint: /healthz answers while the process serves requests at all, /readyz only
 * when every readiness check passes (naming the ones that do not), /metrics in the Prometheus text format:
 * the service's metrics and the process's. A port that cannot be bound names its flag.
 */
export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const registries = [options.registry, processMetricsRegistry()];
  // Merged on every scrape, so a metric the service registers later is served too; merged once now so a
  // name both registries use fails the start rather than every scrape.
  Registry.merge(registries);
  const server: FastifyInstance = fastify({ logger: false, schemaController: noSchemaCompilers });
  server.get('/healthz', async (_request, reply) => reply.type('text/plain').send('ok'));
  server.get('/readyz', async (_request, reply) => {
    const waiting = options.readiness.filter((check) => !check.ready()).map((check) => check.name);
    if (waiting.length === 0) return reply.type('text/plain').send('ok');
    return reply
      .code(503)
      .type('text/plain')
      .send(`not ready: ${waiting.join(', ')}`);
  });
  server.get('/metrics', async (_request, reply) => {
    const merged = Registry.merge(registries);
    return reply.type(merged.contentType).send(await merged.metrics());
  });
  try {
    await server.listen({ port: options.port, host: options.host });
  } catch (error) {
    await server.close();
    throw listenError(error, options);
  }
  const address = server.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  return { port, close: () => server.close() };
}
