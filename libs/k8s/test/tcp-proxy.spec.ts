// The proxy's hold: the server's bytes on the connections open at the hold are kept back, in order, until
// release; what clients send still reaches the server, and connections opened during the hold flow.
import { type Server, type Socket, connect, createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type TcpProxy, startTcpProxy, waitFor } from '../src/testing/index.ts';

/** An echo server that records every byte it received and has written back. */
let server: Server;
let echoed = '';
let proxy: TcpProxy;

function client(): Promise<{ socket: Socket; received: () => string }> {
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect(proxy.port, '127.0.0.1', () => {
      resolve({ socket, received: () => received });
    });
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
    });
    socket.once('error', reject);
  });
}

async function until(what: string, probe: () => boolean): Promise<void> {
  await waitFor(what, () => Promise.resolve(probe()), { timeoutMs: 10_000 });
}

beforeAll(async () => {
  server = createServer((socket) => {
    socket.on('data', (chunk: Buffer) => {
      socket.write(chunk, () => {
        echoed += chunk.toString('utf8');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the echo server has no TCP address');
  proxy = await startTcpProxy({ host: '127.0.0.1', port: address.port });
});

afterAll(async () => {
  await proxy.close();
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
});

describe('TcpProxy.hold', () => {
  it('keeps the server’s bytes on open connections until release, forwards them in order, and never holds a new connection', async () => {
    const open = await client();
    open.socket.write('a');
    await until('the first echo', () => open.received() === 'a');

    const release = proxy.hold();
    open.socket.write('b');
    open.socket.write('c');
    await until('the server echoed b and c', () => echoed === 'abc');
    // A connection opened during the hold makes a full round trip while the open one still waits.
    const late = await client();
    late.socket.write('x');
    await until('the new connection’s echo', () => late.received() === 'x');
    expect(open.received()).toBe('a');

    release();
    await until('the held echoes', () => open.received() === 'abc');
    open.socket.write('d');
    await until('the echo after release', () => open.received() === 'abcd');
    expect(open.received()).toBe('abcd');
    open.socket.destroy();
    late.socket.destroy();
  });
});
