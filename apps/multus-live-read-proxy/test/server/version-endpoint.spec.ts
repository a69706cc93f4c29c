// GET /version on the daemon socket: the build and settings preflight asks the running daemon for.
import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { CniRequestHandler } from '../../src/server/cni-request.ts';
import { type DaemonAbout, daemonAboutSchema } from '../../src/server/daemon-about.ts';
import { type DaemonServer, startDaemonServer } from '../../src/server/daemon-server.ts';
import { socketRequest } from './socket-http.ts';

const ABOUT: DaemonAbout = {
  build: { version: '0.1.0', commit: '0123456789abcdef0123456789abcdef01234567' },
  config: { path: '/etc/sriov-dra/daemon-config.json', liveNetworkConfigOnAdd: true, chrootDir: '/hostroot', cniDir: '/var/lib/cni/multus' },
};

const refuse: CniRequestHandler = {
  handle: () => Promise.reject(new Error('no CNI request is sent here')),
};

let dir: string | undefined;
let server: DaemonServer | undefined;

async function start(about?: DaemonAbout): Promise<DaemonServer> {
  dir = mkdtempSync(join(tmpdir(), 'mlrp-version-'));
  server = await startDaemonServer({
    socketDir: join(dir, 'run'),
    handler: refuse,
    logger: pino({ level: 'silent' }),
    ...(about === undefined ? {} : { about }),
  });
  return server;
}

afterEach(async () => {
  await server?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  server = undefined;
  dir = undefined;
});

describe('GET /version', () => {
  it('answers the build and settings the daemon was started with, in the shape preflight reads', async () => {
    const { socketPath } = await start(ABOUT);
    const answer = await socketRequest(socketPath, 'GET', '/version');
    expect({ status: answer.status, contentType: answer.contentType }).toEqual({ status: 200, contentType: 'application/json; charset=utf-8' });
    expect(daemonAboutSchema.parse(JSON.parse(answer.body))).toEqual(ABOUT);
  });

  it('refuses other methods as the socket’s other endpoints do', async () => {
    const { socketPath } = await start(ABOUT);
    expect((await socketRequest(socketPath, 'POST', '/version', 'null')).status).toBe(405);
  });

  it('is not found on a server started without it', async () => {
    const { socketPath } = await start();
    expect((await socketRequest(socketPath, 'GET', '/version')).status).toBe(404);
  });
});
