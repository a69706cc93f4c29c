import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isKubeletPluginError } from './kubelet-plugin-error.ts';
import { pluginSocketPaths, removeStaleSocket } from './plugin-sockets.ts';
import { leaveStaleSocket } from '@sriov-dra/k8s/testing';

describe('pluginSocketPaths', () => {
  it('puts the registration socket in the registrar directory and the DRA socket in the driver directory', () => {
    expect(pluginSocketPaths('/var/lib/kubelet/plugins_registry', '/var/lib/kubelet/plugins', 'sriovnetwork.k8snetworkplumbingwg.io')).toEqual({
      registration: '/var/lib/kubelet/plugins_registry/sriovnetwork.k8snetworkplumbingwg.io-reg.sock',
      pluginDir: '/var/lib/kubelet/plugins/sriovnetwork.k8snetworkplumbingwg.io',
      dra: '/var/lib/kubelet/plugins/sriovnetwork.k8snetworkplumbingwg.io/dra.sock',
    });
  });

  it('makes relative directories absolute, because the kubelet dials the endpoint from its own working directory', () => {
    const paths = pluginSocketPaths('reg', 'plugins', 'example.com');
    expect(paths.registration).toBe(join(process.cwd(), 'reg', 'example.com-reg.sock'));
    expect(paths.dra).toBe(join(process.cwd(), 'plugins', 'example.com', 'dra.sock'));
  });
});

describe('removeStaleSocket', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sockets-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('removes a socket left by a process that died', async () => {
    const path = join(dir, 'dra.sock');
    await leaveStaleSocket(path);
    expect(existsSync(path)).toBe(true);
    await expect(removeStaleSocket(path)).resolves.toBe(true);
    expect(existsSync(path)).toBe(false);
  });

  it('does nothing when no file is there', async () => {
    await expect(removeStaleSocket(join(dir, 'absent.sock'))).resolves.toBe(false);
  });

  it.each([
    [
      'a regular file',
      (path: string) => {
        writeFileSync(path, 'not a socket');
      },
    ],
    [
      'a directory',
      (path: string) => {
        mkdirSync(path);
      },
    ],
  ])('refuses to delete %s', async (_kind, create) => {
    const path = join(dir, 'dra.sock');
    create(path);
    const error: unknown = await removeStaleSocket(path).catch((caught: unknown) => caught);
    expect(isKubeletPluginError(error, 'SocketPathOccupied')).toBe(true);
    expect((error as Error).message).toContain(path);
    expect(existsSync(path)).toBe(true);
  });
});
