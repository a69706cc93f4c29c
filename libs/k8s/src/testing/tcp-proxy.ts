import { type Socket, connect, createServer } from 'node:net';

/**
 * A loopback TCP proxy that can turn into a black hole, or hold the server's bytes back until told (a
 * client's caches then lag the server for exactly as long as a test needs). A black hole is the failure
 * a dead route, a stalled load balancer or a half-open connection presents to a client. Unlike a refused or reset connection, which
 * fails at once, a black hole accepts and then never answers, so only the client's own deadlines end
 * its requests.
 */
export interface TcpProxy {
  /** The port clients connect to (on 127.0.0.1). */
  readonly port: number;
  /** Rewrites an https://127.0.0.1:<port> URL to go through the proxy. */
  via(url: string): string;
  /**
   * From now on nothing is forwarded in either direction: open connections go silent, new ones are
   * accepted and never answered, and whatever clients send is discarded.
   */
  blackhole(): void;
  /** New connections are forwarded again; silenced ones stay silent until their clients close them. */
  restore(): void;
  /**
   * Infinite latency, ended on cue: from now on, what the server sends on the connections open now is
   * held back (what clients send still goes through). The returned function forwards everything held, in
   * order, and lets those connections flow again. Connections opened later are not held, so a client that
   * needs a new connection (a TLS handshake) is never stuck behind the hold.
   */
  hold(): () => void;
  /** Silenced connections that their client closed: each one is a request the client gave up on. */
  readonly closedWhileSilent: number;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { readonly host: string; readonly port: number }): Promise<TcpProxy> {
  const open = new Map<Socket, Socket | undefined>();
  const silent = new Set<Socket>();
  /** Held connections: the server's bytes not yet forwarded, and whether the server has closed. */
  const held = new Map<Socket, { chunks: Buffer[]; closed: boolean; onData: (chunk: Buffer) => void }>();
  let blackholed = false;
  let closedWhileSilent = 0;

  const silence = (client: Socket): void => {
    const upstream = open.get(client);
    silent.add(client);
    held.delete(client);
    if (upstream !== undefined) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      upstream.destroy();
      open.set(client, undefined);
    }
    // Discard what the client sends. unpipe() paused the stream, and a paused stream would never
    // read the client's FIN, so a client giving up would go unnoticed.
    client.on('data', () => undefined);
    client.resume();
  };

  const server = createServer((client) => {
    open.set(client, undefined);
    client.on('error', () => undefined);
    client.once('close', () => {
      if (silent.delete(client)) closedWhileSilent += 1;
      held.delete(client);
      open.get(client)?.destroy();
      open.delete(client);
    });
    if (blackholed) {
      silence(client);
      return;
    }
    const upstream = connect(target.port, target.host);
    open.set(client, upstream);
    upstream.on('error', () => undefined);
    // The upstream closing (e.g. an API server restart) closes the client too, unless it was silenced.
    upstream.once('close', () => {
      const holding = held.get(client);
      if (holding !== undefined) holding.closed = true;
      else if (!silent.has(client)) client.destroy();
    });
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP address');

  return {
    port: address.port,
    via(url) {
      const rewritten = new URL(url);
      rewritten.host = `127.0.0.1:${address.port}`;
      return rewritten.toString().replace(/\/$/, '');
    },
    blackhole() {
      blackholed = true;
      for (const client of open.keys()) silence(client);
    },
    restore() {
      blackholed = false;
    },
    hold() {
      const connections = [...open].filter((entry): entry is [Socket, Socket] => entry[1] !== undefined && !held.has(entry[0]));
      for (const [client, upstream] of connections) {
        const chunks: Buffer[] = [];
        const onData = (chunk: Buffer): void => {
          chunks.push(chunk);
        };
        held.set(client, { chunks, closed: false, onData });
        upstream.unpipe(client);
        upstream.on('data', onData);
        // unpipe() paused the stream; held bytes must still be read, or the server's close goes unseen.
        upstream.resume();
      }
      return () => {
        for (const [client, upstream] of connections) {
          const holding = held.get(client);
          if (holding === undefined) continue;
          held.delete(client);
          upstream.off('data', holding.onData);
          for (const chunk of holding.chunks) client.write(chunk);
          if (holding.closed) client.end();
          else upstream.pipe(client);
        }
      };
    },
    get closedWhileSilent() {
      return closedWhileSilent;
    },
    async close() {
      for (const [client, upstream] of open) {
        upstream?.destroy();
        client.destroy();
      }
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}
