// The daemon socket against the unchanged upstream multus-shim (multus-cni v4.2.3), executed as a CNI
// plugin exactly as a container runtime runs it. Needs the shim: tools/control-plane/build-binaries.sh multus.
import { afterAll, afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { SriovDraError } from '@sriov-dra/contract';
import { leaveStaleSocket, multusBinaries } from '@sriov-dra/k8s/testing';
import { accessSync, chmodSync, constants, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { CniRequest, CniRequestHandler, CniResponse } from '../../src/server/cni-request.ts';
import { DaemonServerError } from '../../src/server/daemon-server-error.ts';
import { type DaemonServer, startDaemonServer } from '../../src/server/daemon-server.ts';
import { runShim } from './multus-shim.ts';
import { socketRequest } from './socket-http.ts';

const logger = pino({ level: 'silent' });
const root = mkdtempSync(join(tmpdir(), `multus-wire-${process.pid}-`));

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

class RecordingHandler implements CniRequestHandler {
  readonly requests: CniRequest[] = [];
  answer: () => CniResponse = () => ({});

  handle(request: CniRequest): Promise<CniResponse> {
    this.requests.push(request);
    // A throwing answer becomes a rejected promise, as an async pipeline's failure does.
    return new Promise((resolve) => {
      resolve(this.answer());
    });
  }
}

/** A CNI 1.0.0 result as a delegate pipeline would produce it. */
const RESULT_100 = {
  cniVersion: '1.0.0',
  interfaces: [{ name: 'net1', mac: '0a:58:0a:01:02:03', sandbox: '/var/run/netns/cni-1234' }],
  ips: [{ address: '10.1.2.3/24', gateway: '10.1.2.1', interface: 0 }],
  routes: [{ dst: '0.0.0.0/0', gw: '10.1.2.1' }],
  dns: { nameservers: ['10.96.0.10'] },
};

let socketDir: string;
let handler: RecordingHandler;
let server: DaemonServer;

function shimEnv(command: string): Record<string, string> {
  return {
    CNI_COMMAND: command,
    CNI_CONTAINERID: '3f5e1b7c9d2a',
    CNI_NETNS: '/var/run/netns/cni-1234',
    CNI_IFNAME: 'eth0',
    CNI_ARGS:
      'IgnoreUnknown=1;K8S_POD_NAMESPACE=ai;K8S_POD_NAME=trainer-0;K8S_POD_INFRA_CONTAINER_ID=3f5e1b7c9d2a;K8S_POD_UID=6f1c1e55-0000-4000-8000-000000000001',
    CNI_PATH: '/opt/cni/bin',
    // A runtime passes its own environment along; the shim forwards all of it.
    PATH: '/usr/local/sbin:/usr/sbin:/usr/bin',
    CONTAINER_RUNTIME_HINT: 'a=b;c',
  };
}

/**
 * The shim's stdin in an unusual but valid spelling: odd whitespace, a number no float64 holds, a
 * non-ASCII name and keys out of order, so only the exact bytes compare equal.
 */
function shimConfig(cniVersion: string): string {
  return `{ "cniVersion":"${cniVersion}",\n\t"name" : "multus-cni-network", "type":"multus-shim",  "daemonSocketDir": "${socketDir}",\n "logLevel":"verbose", "ticket": 18446744073709551617, "description": "r\u00e9seau \u{1F310}" }\n`;
}

beforeEach(async () => {
  socketDir = mkdtempSync(join(root, 'run-'));
  handler = new RecordingHandler();
  server = await startDaemonServer({ socketDir, handler, logger });
});

afterEach(async () => {
  await server.close();
});

describe('the upstream multus-shim binary', () => {
  it('is found by multusBinaries() and is executable', () => {
    const { multusShim, multusDaemon } = multusBinaries();
    expect(() => {
      accessSync(multusShim, constants.X_OK);
    }).not.toThrow();
    expect(() => {
      accessSync(multusDaemon, constants.X_OK);
    }).not.toThrow();
  });
});

describe('ADD through the upstream shim', () => {
  it('prints the handler result in cniVersion 1.0.0 and hands over the exact env, CNI_ARGS pairs and stdin bytes', async () => {
    handler.answer = () => ({ result: RESULT_100 });
    const env = shimEnv('ADD');
    const stdin = shimConfig('1.0.0');
    const run = await runShim(env, stdin);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(RESULT_100);

    expect(handler.requests).toHaveLength(1);
    const request = handler.requests[0] as CniRequest;
    expect(request.env).toEqual(env);
    expect(request.command).toBe('ADD');
    expect(request.containerID).toBe('3f5e1b7c9d2a');
    expect(request.netns).toBe('/var/run/netns/cni-1234');
    expect(request.ifName).toBe('eth0');
    expect(request.path).toBe('/opt/cni/bin');
    expect(request.args).toEqual([
      ['IgnoreUnknown', '1'],
      ['K8S_POD_NAMESPACE', 'ai'],
      ['K8S_POD_NAME', 'trainer-0'],
      ['K8S_POD_INFRA_CONTAINER_ID', '3f5e1b7c9d2a'],
      ['K8S_POD_UID', '6f1c1e55-0000-4000-8000-000000000001'],
    ]);
    expect(request.config.equals(Buffer.from(stdin, 'utf8'))).toBe(true);
  });

  it('prints the result converted to cniVersion 0.4.0 when the configuration asks for it', async () => {
    handler.answer = () => ({ result: RESULT_100 });
    const run = await runShim(shimEnv('ADD'), shimConfig('0.4.0'));
    expect(run.code).toBe(0);
    // CNI 0.4.0 results name each IP's family in "version"; 1.0.0 dropped the field.
    expect(JSON.parse(run.stdout)).toEqual({
      cniVersion: '0.4.0',
      interfaces: [{ name: 'net1', mac: '0a:58:0a:01:02:03', sandbox: '/var/run/netns/cni-1234' }],
      ips: [{ version: '4', address: '10.1.2.3/24', gateway: '10.1.2.1', interface: 0 }],
      routes: [{ dst: '0.0.0.0/0', gw: '10.1.2.1' }],
      dns: { nameservers: ['10.96.0.10'] },
    });
  });

  it('turns a typed handler rejection into a failing CNI call whose error carries the typed message', async () => {
    const rejection = new SriovDraError('ManagedShadowNotReady', 'shadow ai/trainer-0-net1 is being deleted', {
      object: { kind: 'NetworkAttachmentDefinition', namespace: 'ai', name: 'trainer-0-net1' },
    });
    handler.answer = () => {
      throw rejection;
    };
    const run = await runShim(shimEnv('ADD'), shimConfig('1.0.0'));
    expect(run.code).not.toBe(0);
    const error = JSON.parse(run.stdout) as { code: number; msg: string };
    // The shim quotes the body: the typed message is the whole body, not wrapped in another code.
    expect(error.msg).toContain(`CNI request failed with status 400: '${rejection.message}\n'`);
  });

  it('reports an untyped handler failure as CniRequestFailed naming the container', async () => {
    handler.answer = () => {
      throw new Error('delegate sriov exited with status 1');
    };
    const run = await runShim(shimEnv('ADD'), shimConfig('1.0.0'));
    expect(run.code).not.toBe(0);
    const error = JSON.parse(run.stdout) as { msg: string };
    expect(error.msg).toContain("CniRequestFailed: CNI ADD request for container '3f5e1b7c9d2a'");
    expect(error.msg).toContain('delegate sriov exited with status 1');
  });

  it('fails the call with InvalidCniResult instead of sending an ADD answer without a result', async () => {
    handler.answer = () => ({});
    const run = await runShim(shimEnv('ADD'), shimConfig('1.0.0'));
    expect(run.code).not.toBe(0);
    expect((JSON.parse(run.stdout) as { msg: string }).msg).toContain('InvalidCniResult');
  });
});

describe('DEL and CHECK through the upstream shim', () => {
  it('DEL reaches the handler and the shim exits 0 with no output', async () => {
    const env = shimEnv('DEL');
    const run = await runShim(env, shimConfig('1.0.0'));
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(handler.requests.map((request) => request.command)).toEqual(['DEL']);
    expect(handler.requests[0]?.env).toEqual(env);
  });

  it('CHECK reaches the handler and the shim exits 0', async () => {
    const run = await runShim(shimEnv('CHECK'), shimConfig('1.0.0'));
    expect(run.code).toBe(0);
    expect(handler.requests.map((request) => request.command)).toEqual(['CHECK']);
  });
});

describe('requests the shim does not send', () => {
  const validBody = (env: Record<string, string>): string => JSON.stringify({ env, config: Buffer.from('{"cniVersion":"1.0.0"}').toString('base64') });

  it('refuses /delegate with a 400 that says hot-plug is not supported', async () => {
    const answer = await socketRequest(server.socketPath, 'POST', '/delegate', validBody(shimEnv('ADD')));
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('DelegateNotSupported: POST /delegate: interface hot-plug is not supported by this daemon');
    expect(handler.requests).toEqual([]);
  });

  it.each([
    ['a body that is not JSON', '{"env": {', 'MalformedCniRequest: POST /cni body: the body is not valid JSON'],
    ['a JSON array', '[]', 'MalformedCniRequest: POST /cni body: the body is not a JSON object'],
    [
      'config that is not base64',
      JSON.stringify({ env: shimEnv('ADD'), config: 'not base64!' }),
      'MalformedCniRequest: POST /cni body: config is not standard padded base64',
    ],
    ['an env value that is not a string', JSON.stringify({ env: { CNI_COMMAND: 1 } }), 'MalformedCniRequest: POST /cni body: env.CNI_COMMAND'],
    ['two spellings of env', '{"env":{"CNI_COMMAND":"ADD"},"ENV":{}}', 'MalformedCniRequest: POST /cni body: members "env" and "ENV" both name the field env'],
    ['no CNI_COMMAND', JSON.stringify({ env: { CNI_CONTAINERID: 'c1' } }), 'MissingCniEnv: CNI request: CNI_COMMAND is missing'],
    [
      'an ADD without CNI_NETNS',
      JSON.stringify({ env: { ...shimEnv('ADD'), CNI_NETNS: undefined } }),
      "MissingCniEnv: CNI ADD request for container '3f5e1b7c9d2a': CNI_NETNS missing",
    ],
    [
      'an unknown command',
      JSON.stringify({ env: { ...shimEnv('ADD'), CNI_COMMAND: 'add' } }),
      "UnsupportedCniCommand: CNI add request for container '3f5e1b7c9d2a': unknown CNI_COMMAND 'add'",
    ],
    [
      'a CNI_ARG with two "="',
      JSON.stringify({ env: { ...shimEnv('ADD'), CNI_ARGS: 'K8S_POD_NAME=a=b' } }),
      "InvalidCniArgs: CNI ADD request for container '3f5e1b7c9d2a': invalid CNI_ARG 'K8S_POD_NAME=a=b'",
    ],
  ])('answers %s with a 400 naming the problem, without calling the handler', async (_what, body, message) => {
    const answer = await socketRequest(server.socketPath, 'POST', '/cni', body);
    expect(answer.status).toBe(400);
    expect(answer.body).toContain(message);
    expect(handler.requests).toEqual([]);
  });

  it('answers an empty body with a 400, without calling the handler', async () => {
    const answer = await socketRequest(server.socketPath, 'POST', '/cni');
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('MalformedCniRequest: POST /cni body: the body is not valid JSON');
    expect(handler.requests).toEqual([]);
  });

  it('accepts a body sent with any content type, as the Go daemon does', async () => {
    const answer = await socketRequest(server.socketPath, 'POST', '/cni', validBody(shimEnv('DEL')), 'text/plain');
    expect(answer.status).toBe(200);
    expect(handler.requests.map((request) => request.command)).toEqual(['DEL']);
  });

  it('answers a wrong method with 405 and an unknown path with 404', async () => {
    expect((await socketRequest(server.socketPath, 'GET', '/cni')).status).toBe(405);
    expect((await socketRequest(server.socketPath, 'GET', '/delegate')).status).toBe(405);
    expect((await socketRequest(server.socketPath, 'DELETE', '/healthz')).status).toBe(405);
    expect((await socketRequest(server.socketPath, 'POST', '/cni/')).status).toBe(404);
    expect((await socketRequest(server.socketPath, 'GET', '/metrics')).status).toBe(404);
  });
});

describe('health and readiness', () => {
  it('answers /healthz to GET and to the shim poll (POST null), and /readyz 200 until shutdown begins, then 500', async () => {
    expect((await socketRequest(server.socketPath, 'GET', '/healthz')).status).toBe(200);
    expect((await socketRequest(server.socketPath, 'POST', '/healthz', 'null')).status).toBe(200);
    expect((await socketRequest(server.socketPath, 'GET', '/readyz')).status).toBe(200);
    expect((await socketRequest(server.socketPath, 'POST', '/readyz', 'null')).status).toBe(200);
    server.beginShutdown();
    expect((await socketRequest(server.socketPath, 'GET', '/readyz')).status).toBe(500);
    expect((await socketRequest(server.socketPath, 'GET', '/healthz')).status).toBe(200);
  });
});

/** The error a start fails with, or 'started' (after closing the server again) when it wrongly succeeds. */
async function startAndStop(dir: string): Promise<unknown> {
  try {
    const started = await startDaemonServer({ socketDir: dir, handler, logger });
    await started.close();
    return 'started';
  } catch (error) {
    return error;
  }
}

describe('the socket path', () => {
  it('is <socketDir>/multus.sock with mode 0600 in a directory of mode 0700', () => {
    expect(server.socketPath).toBe(join(socketDir, 'multus.sock'));
    expect(statSync(server.socketPath).isSocket()).toBe(true);
    expect(statSync(server.socketPath).mode & 0o777).toBe(0o600);
    expect(statSync(socketDir).mode & 0o777).toBe(0o700);
  });

  it('creates a missing socket directory with mode 0700', async () => {
    const fresh = join(root, `fresh-${process.pid}`, 'multus');
    const other = await startDaemonServer({ socketDir: fresh, handler, logger });
    try {
      expect(statSync(fresh).mode & 0o777).toBe(0o700);
      expect((await socketRequest(other.socketPath, 'GET', '/healthz')).status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('restricts an existing socket directory to mode 0700', async () => {
    const dir = mkdtempSync(join(root, 'open-'));
    chmodSync(dir, 0o755);
    const other = await startDaemonServer({ socketDir: dir, handler, logger });
    try {
      expect(statSync(dir).mode & 0o777).toBe(0o700);
    } finally {
      await other.close();
    }
  });

  it('replaces a stale socket left by a crashed daemon', async () => {
    const dir = mkdtempSync(join(root, 'stale-'));
    await leaveStaleSocket(join(dir, 'multus.sock'));
    expect(statSync(join(dir, 'multus.sock')).isSocket()).toBe(true);
    const other = await startDaemonServer({ socketDir: dir, handler, logger });
    try {
      expect((await socketRequest(other.socketPath, 'GET', '/healthz')).status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('refuses a path occupied by something that is not a socket and leaves it in place', async () => {
    const dir = mkdtempSync(join(root, 'occupied-'));
    writeFileSync(join(dir, 'multus.sock'), 'not a socket');
    const outcome = await startAndStop(dir);
    expect(outcome).toBeInstanceOf(DaemonServerError);
    expect((outcome as DaemonServerError).message).toContain(
      `SocketPathOccupied: ${join(dir, 'multus.sock')}: the path exists and is not a socket, so it was left in place`,
    );
    expect(statSync(join(dir, 'multus.sock')).isFile()).toBe(true);
  });

  it('refuses a socket directory that is a file', async () => {
    const file = join(root, `plain-file-${process.pid}`);
    writeFileSync(file, '');
    const outcome = await startAndStop(file);
    expect(outcome).toBeInstanceOf(DaemonServerError);
    expect((outcome as DaemonServerError).message).toContain(`SocketDirUnusable: ${file}: cannot create it as a directory with mode 0700`);
  });
});
