import { once } from 'node:events';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
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

interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

const TEXT = 'text/plain; charset=utf-8';

/** What a GET of `path` answers; undefined for a path not served. */
async function answerFor(path: string, options: HealthServerOptions, registries: readonly Registry[]): Promise<Answer | undefined> {
  switch (path) {
    case '/healthz':
      return { status: 200, contentType: TEXT, body: 'ok' };
    case '/readyz': {
      const waiting = options.readiness.filter((check) => !check.ready()).map((check) => check.name);
      return waiting.length === 0
        ? { status: 200, contentType: TEXT, body: 'ok' }
        : { status: 503, contentType: TEXT, body: `not ready: ${waiting.join(', ')}` };
    }
    case '/metrics': {
      const merged = Registry.merge([...registries]);
      return { status: 200, contentType: merged.contentType, body: await merged.metrics() };
    }
    default:
      return undefined;
  }
}

async function respond(request: IncomingMessage, response: ServerResponse, options: HealthServerOptions, registries: readonly Registry[]): Promise<void> {
  const path = (request.url ?? '/').split('?', 1)[0] ?? '/';
  let answer: Answer;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    answer = { status: 405, contentType: TEXT, body: `${request.method ?? ''} is not served; use GET` };
    response.setHeader('Allow', 'GET, HEAD');
  } else {
    try {
      answer = (await answerFor(path, options, registries)) ?? {
        status: 404,
        contentType: TEXT,
        body: `${path} is not served: /healthz, /readyz, /metrics are`,
      };
    } catch (error) {
      // A collector that throws fails this scrape only; the endpoint keeps answering.
      answer = { status: 500, contentType: TEXT, body: `collecting metrics failed: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
  response.writeHead(answer.status, { 'Content-Type': answer.contentType, 'Content-Length': Buffer.byteLength(answer.body) });
  // Node's HTTP server sends no body for HEAD, only the headers.
  response.end(answer.body);
}

/**
 * A service's health endpoint: /healthz answers while the process serves requests at all, /readyz only
 * when every readiness check passes (naming the ones that do not), /metrics in the Prometheus text format:
 * the service's metrics and the process's. A port that cannot be bound names its flag. Three fixed GET
 * routes need no web framework: importing fastify on top of the driver's other modules measured 1.5–2.2 MB
 * more resident memory under the driver's launch flags, for code these routes never need.
 */
export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const registries = [options.registry, processMetricsRegistry()];
  // Merged on every scrape, so a metric the service registers later is served too; merged once now so a
  // name both registries use fails the start rather than every scrape.
  Registry.merge(registries);
  const server: Server = createServer((request, response) => {
    // Only writing to a connection that broke can fail here; that request is lost, never the process.
    respond(request, response, options, registries).catch(() => response.destroy());
  });
  try {
    server.listen({ port: options.port, host: options.host });
    await once(server, 'listening');
  } catch (error) {
    throw listenError(error, options);
  }
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  return {
    port,
    close: async () => {
      const closed = once(server, 'close');
      // Idle keep-alive connections (a prober's, a scraper's) are closed with it; a request under way finishes.
      server.close();
      await closed;
    },
  };
}
