import { chmod } from 'node:fs/promises';
import { type FastifyReply, type FastifyRequest, type FastifyServerOptions, fastify } from 'fastify';
import type { Logger } from 'pino';
import { type CniRequest, type CniRequestHandler, cniRequestFromShim } from './cni-request.ts';
import { type DaemonAbout, VERSION_ENDPOINT } from './daemon-about.ts';
import { DaemonServerError } from './daemon-server-error.ts';
import { SOCKET_MODE, prepareSocketPath } from './daemon-socket.ts';
import { CNI_ENDPOINT, DELEGATE_ENDPOINT, HEALTH_ENDPOINT, READY_ENDPOINT, decodeShimRequest, encodeAddResponse } from './wire.ts';

export interface DaemonServerOptions {
  /** The daemon's socketDir; the shim's daemonSocketDir must name the same directory. */
  readonly socketDir: string;
  readonly handler: CniRequestHandler;
  readonly logger: Logger;
  /** Served on GET /version for preflight; without it that path is not found. */
  readonly about?: DaemonAbout;
}

export interface DaemonServer {
  /** `<socketDir>/multus.sock`. */
  readonly socketPath: string;
  /** /readyz answers 500 from now on, so the runtime stops sending new work; requests are still served. */
  beginShutdown(): void;
  /** Stops accepting connections and resolves once every request in flight has been answered. */
  close(): Promise<void>;
}

/**
 * A CNI configuration is a few KiB; the limit only keeps one runaway client from filling memory,
 * far above anything a runtime sends.
 */
const BODY_LIMIT = 8 * 1024 * 1024;

function refuseSchema(): never {
  throw new Error('the daemon socket declares no route schemas');
}

// The routes declare no schemas; without this fastify would still load Ajv and its serializer compiler.
const noSchemaCompilers: NonNullable<FastifyServerOptions['schemaController']> = {
  compilersFactory: { buildValidator: () => refuseSchema, buildSerializer: () => refuseSchema },
};

/** An error that already carries a stable code keeps its own message as the shim's answer. */
function isTypedError(error: unknown): error is Error & { readonly code: string } {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string';
}

function describe(request: CniRequest): string {
  return `CNI ${request.command} request for container '${request.containerID}' (netns '${request.netns}', interface '${request.ifName}')`;
}

function methodNotAllowed(reply: FastifyReply): FastifyReply {
  // The text net/http's http.Error writes for the upstream daemon's 405.
  return reply.code(405).type('text/plain; charset=utf-8').send('Method not allowed\n');
}

function rejection(reply: FastifyReply, message: string): FastifyReply {
  // The shim quotes this body verbatim in the CNI error it prints; one line reads best there.
  return reply.code(400).type('text/plain; charset=utf-8').send(`${message}\n`);
}

/** Aborts when the shim hangs up before its answer was written, e.g. when the runtime killed it. */
function disconnectSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableEnded) controller.abort(new Error('the CNI client closed the connection before the answer was written'));
  });
  return controller.signal;
}

/**
 * The Multus thick daemon's socket, wire-compatible with the unchanged upstream multus-shim:
 * POST /cni carries one CNI invocation, /healthz and /readyz report liveness and readiness,
 * /delegate (interface hot-plug) is refused, and GET /version answers preflight's question of which build
 * and settings are running. Every malformed request gets a 400 whose body names the
 * problem; nothing a client sends can crash the daemon.
 */
export async function startDaemonServer(options: DaemonServerOptions): Promise<DaemonServer> {
  const { handler, logger } = options;
  const socketPath = await prepareSocketPath(options.socketDir);
  let shuttingDown = false;

  const server = fastify({ logger: false, schemaController: noSchemaCompilers, exposeHeadRoutes: false, bodyLimit: BODY_LIMIT });
  // Every body arrives as raw bytes whatever its content type: the shim's request is decoded by
  // decodeShimRequest, which answers malformed input with a typed message instead of fastify's.
  server.removeAllContentTypeParsers();
  server.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => {
    done(null, body);
  });
  // The upstream daemon disables keep-alive; each shim call is one connection.
  server.addHook('onSend', async (_request, reply) => {
    reply.header('connection', 'close');
  });

  async function serveCni(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    if (request.method !== 'POST') return methodNotAllowed(reply);
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    let cniRequest: CniRequest;
    try {
      cniRequest = cniRequestFromShim(decodeShimRequest(body, `POST ${CNI_ENDPOINT} body`));
    } catch (error) {
      if (!(error instanceof DaemonServerError)) throw error;
      logger.warn({ code: error.code, err: error }, 'rejected a malformed CNI request');
      return rejection(reply, error.message);
    }
    const subject = describe(cniRequest);
    const log = logger.child({ command: cniRequest.command, containerID: cniRequest.containerID, ifName: cniRequest.ifName });
    let encoded: string | undefined;
    try {
      const response = await handler.handle(cniRequest, disconnectSignal(reply));
      if (cniRequest.command === 'ADD') encoded = encodeAddResponse(response.result, subject);
    } catch (error) {
      const failure = isTypedError(error)
        ? error
        : new DaemonServerError('CniRequestFailed', subject, error instanceof Error ? error.message : String(error), error);
      log.warn({ code: failure.code, err: error }, 'CNI request failed');
      return rejection(reply, failure.message);
    }
    // DEL, CHECK, GC and STATUS answer with an empty body, which the shim reads as success.
    return encoded === undefined ? reply.code(200).send() : reply.code(200).type('application/json').send(encoded);
  }

  server.all(CNI_ENDPOINT, serveCni);
  server.all(DELEGATE_ENDPOINT, async (request, reply) => {
    if (request.method !== 'POST') return methodNotAllowed(reply);
    const error = new DaemonServerError('DelegateNotSupported', `POST ${DELEGATE_ENDPOINT}`, 'interface hot-plug is not supported by this daemon');
    logger.warn({ code: error.code }, 'refused a delegate request');
    return rejection(reply, error.message);
  });
  server.all(HEALTH_ENDPOINT, async (request, reply) => {
    if (request.method !== 'GET' && request.method !== 'POST') return methodNotAllowed(reply);
    return reply.code(200).send();
  });
  server.all(READY_ENDPOINT, async (request, reply) => {
    if (request.method !== 'GET' && request.method !== 'POST') return methodNotAllowed(reply);
    return reply.code(shuttingDown ? 500 : 200).send();
  });
  const about = options.about;
  if (about !== undefined) {
    server.all(VERSION_ENDPOINT, async (request, reply) => {
      if (request.method !== 'GET') return methodNotAllowed(reply);
      return reply.code(200).type('application/json').send(JSON.stringify(about));
    });
  }
  server.setNotFoundHandler(async (_request, reply) => reply.code(404).send());
  // Fastify's own rejections (an oversized body, a broken chunked stream) keep their status, in plain text.
  server.setErrorHandler(async (error: { statusCode?: number; message?: string }, request, reply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    logger.warn({ err: error, url: request.url, method: request.method }, 'daemon socket request failed');
    const failure = new DaemonServerError('MalformedCniRequest', `${request.method} ${request.url}`, error.message ?? 'unreadable request');
    return reply.code(status).type('text/plain; charset=utf-8').send(`${failure.message}\n`);
  });

  await server.listen({ path: socketPath });
  try {
    await chmod(socketPath, SOCKET_MODE);
  } catch (error) {
    await server.close();
    throw new DaemonServerError('SocketDirUnusable', socketPath, 'cannot restrict the socket to mode 0600', error);
  }
  logger.info({ socketPath }, 'daemon socket listening');
  return {
    socketPath,
    beginShutdown: () => {
      shuttingDown = true;
    },
    close: () => server.close(),
  };
}
