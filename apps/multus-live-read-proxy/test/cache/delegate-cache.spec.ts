// The Multus delegate cache against upstream multus v4.2.3's format (pkg/multus saveDelegates: a
// json.Marshal of []*DelegateNetConf) and on a real filesystem, including a full one.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadDelegates, removeDelegates, saveDelegates } from '../../src/cache/delegate-cache.ts';
import { isDelegateCacheError } from '../../src/cache/delegate-cache-error.ts';
import { decodeDelegates, encodeDelegates } from '../../src/cache/delegate-codec.ts';

const SRIOV = '{"cniVersion":"1.0.0","name":"rail-a","type":"sriov","deviceID":"0000:03:00.1","ipam":{"type":"whereabouts","range":"10.0.0.0/24"}}';
const CHAIN =
  '{"cniVersion":"1.0.0","name":"chain","plugins":[{"type":"bridge","bridge":"br0","ipam":{"type":"host-local"}},{"type":"tuning","capabilities":{"mac":true,"ips":true},"dns":{"nameservers":["10.0.0.53"],"search":["svc"],"options":["ndots:2"]}}]}';

/**
 * Written by hand from the Go types: DelegateNetConf fields in declaration order; Conf through
 * PluginConf.MarshalJSON (sorted keys, "ipam" always, "dns" only when set); ConfList as NetConfList
 * (omitempty, plugins through PluginConf.MarshalJSON); CNINetworkConfigList the zero libcni struct;
 * Bytes standard base64 of the exact configuration.
 */
const UPSTREAM_FILE =
  '[{"Conf":{"cniVersion":"1.0.0","ipam":{"type":"whereabouts"},"name":"rail-a","type":"sriov"},"ConfList":{},' +
  '"CNINetworkConfigList":{"Name":"","CNIVersion":"","DisableCheck":false,"DisableGC":false,"LoadOnlyInlinedPlugins":false,"Plugins":null,"Bytes":null},' +
  '"Name":"pods/rail-a","ifnameRequest":"net1","default-route":["10.0.0.1"],"IsFilterV4Gateway":true,"IsFilterV6Gateway":false,"deviceID":"0000:03:00.1",' +
  '"Bytes":"eyJjbmlWZXJzaW9uIjoiMS4wLjAiLCJuYW1lIjoicmFpbC1hIiwidHlwZSI6InNyaW92IiwiZGV2aWNlSUQiOiIwMDAwOjAzOjAwLjEiLCJpcGFtIjp7InR5cGUiOiJ3aGVyZWFib3V0cyIsInJhbmdlIjoiMTAuMC4wLjAvMjQifX0="},' +
  '{"Conf":{"cniVersion":"1.0.0","ipam":{},"name":"chain"},' +
  '"ConfList":{"cniVersion":"1.0.0","name":"chain","plugins":[{"ipam":{"type":"host-local"},"type":"bridge"},{"capabilities":{"ips":true,"mac":true},"dns":{"nameservers":["10.0.0.53"],"options":["ndots:2"],"search":["svc"]},"ipam":{},"type":"tuning"}]},' +
  '"CNINetworkConfigList":{"Name":"","CNIVersion":"","DisableCheck":false,"DisableGC":false,"LoadOnlyInlinedPlugins":false,"Plugins":null,"Bytes":null},' +
  '"Name":"pods/chain","macRequest":"02:00:00:00:00:01","ipRequest":["10.1.0.5/24"],"IsFilterV4Gateway":false,"IsFilterV6Gateway":false,' +
  '"Bytes":"eyJjbmlWZXJzaW9uIjoiMS4wLjAiLCJuYW1lIjoiY2hhaW4iLCJwbHVnaW5zIjpbeyJ0eXBlIjoiYnJpZGdlIiwiYnJpZGdlIjoiYnIwIiwiaXBhbSI6eyJ0eXBlIjoiaG9zdC1sb2NhbCJ9fSx7InR5cGUiOiJ0dW5pbmciLCJjYXBhYmlsaXRpZXMiOnsibWFjIjp0cnVlLCJpcHMiOnRydWV9LCJkbnMiOnsibmFtZXNlcnZlcnMiOlsiMTAuMC4wLjUzIl0sInNlYXJjaCI6WyJzdmMiXSwib3B0aW9ucyI6WyJuZG90czoyIl19fV19"}]';

const DELEGATES = [
  {
    name: 'pods/rail-a',
    bytes: Buffer.from(SRIOV),
    ifnameRequest: 'net1',
    gatewayRequest: ['10.0.0.1'],
    isFilterV4Gateway: true,
    deviceID: '0000:03:00.1',
  },
  { name: 'pods/chain', bytes: Buffer.from(CHAIN), macRequest: '02:00:00:00:00:01', ipRequest: ['10.1.0.5/24'] },
];

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), `delegate-cache-${process.pid}-`));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('the delegate cache format', () => {
  it('is what upstream writes, byte for byte', () => {
    expect(encodeDelegates(DELEGATES).toString('utf8')).toBe(UPSTREAM_FILE);
  });

  it('reads a file upstream wrote: exact bytes and requests', () => {
    const [sriov, chain] = decodeDelegates(Buffer.from(UPSTREAM_FILE), '/var/lib/cni/multus/c1');
    expect(Buffer.from(sriov?.bytes ?? []).toString('utf8')).toBe(SRIOV);
    expect(Buffer.from(chain?.bytes ?? []).toString('utf8')).toBe(CHAIN);
    expect(sriov).toMatchObject({
      name: 'pods/rail-a',
      ifnameRequest: 'net1',
      gatewayRequest: ['10.0.0.1'],
      isFilterV4Gateway: true,
      isFilterV6Gateway: false,
      deviceID: '0000:03:00.1',
    });
    expect(chain).toMatchObject({ name: 'pods/chain', macRequest: '02:00:00:00:00:01', ipRequest: ['10.1.0.5/24'] });
  });

  it('matches keys as Go does: case-insensitively, the last match winning', () => {
    const file = '[{"name":"first","NAME":"pods/x","IFNAMEREQUEST":"net7","confList":{"Plugins":[{"type":"bridge"}]},"bytes":"e30=","Bytes":"eyJhIjoxfQ=="}]';
    const [delegate] = decodeDelegates(Buffer.from(file), '/cache/c2');
    expect(delegate).toMatchObject({ name: 'pods/x', ifnameRequest: 'net7' });
    expect(Buffer.from(delegate?.bytes ?? []).toString('utf8')).toBe('{"a":1}');
  });
});

describe('the delegate cache on disk', () => {
  it('gives back the exact bytes saved, in a 0600 file in a 0700 directory', async () => {
    const cniDir = join(root, 'fresh', 'multus');
    // Formatting, a 20-digit integer and "1.0" are all kept: DEL must see what ADD saw.
    const odd = Buffer.from('{ "cniVersion" : "1.0.0",\n  "name":"odd", "type":"bridge", "big": 12345678901234567890, "mtu": 1.0, "note":"\u00e9\u2028" }');
    await saveDelegates(cniDir, 'c0ffee', [{ name: 'pods/odd', bytes: odd }]);
    const [loaded] = (await loadDelegates(cniDir, 'c0ffee')) ?? [];
    expect(Buffer.compare(Buffer.from(loaded?.bytes ?? []), odd)).toBe(0);
    expect(statSync(join(cniDir, 'c0ffee')).mode & 0o777).toBe(0o600);
    expect(statSync(cniDir).mode & 0o777).toBe(0o700);
    expect(readdirSync(cniDir)).toEqual(['c0ffee']);

    expect(await removeDelegates(cniDir, 'c0ffee')).toBe(true);
    expect(await loadDelegates(cniDir, 'c0ffee')).toBeUndefined();
    expect(await removeDelegates(cniDir, 'c0ffee')).toBe(false);
  });

  it('refuses a container ID that is not one path component', async () => {
    const cniDir = join(root, 'ids');
    await expect(saveDelegates(cniDir, '../escape', DELEGATES)).rejects.toMatchObject({ code: 'InvalidContainerID' });
    await expect(loadDelegates(cniDir, '.hidden')).rejects.toMatchObject({ code: 'InvalidContainerID' });
    expect(() => statSync(join(root, 'escape'))).toThrow();
  });

  it.each([
    ['not JSON', 'not json at all'],
    ['a libcni result cache', '{"kind":"cniCacheV1","containerId":"c1","config":"e30=","ifName":"net1","networkName":"rail-a"}'],
    ['an empty list', '[]'],
    ['a delegate without bytes', '[{"Name":"pods/rail-a"}]'],
    ['bytes of the wrong type', '[{"Name":"pods/rail-a","Bytes":5}]'],
    ['bytes that are not base64', '[{"Name":"pods/rail-a","Bytes":"e30*"}]'],
    ['a default route that is no IP', '[{"Name":"pods/rail-a","default-route":["gateway"],"Bytes":"e30="}]'],
  ])('reports %s as corrupt, naming the file, and leaves it untouched', async (_what, content) => {
    const cniDir = join(root, 'corrupt');
    mkdirSync(cniDir, { recursive: true, mode: 0o700 });
    const path = join(cniDir, 'c1');
    writeFileSync(path, content, { mode: 0o600 });
    const error = await loadDelegates(cniDir, 'c1').catch((caught: unknown) => caught);
    expect(isDelegateCacheError(error, 'DelegateCacheCorrupt')).toBe(true);
    expect((error as Error).message).toContain(path);
    expect(readFileSync(path, 'utf8')).toBe(content);
  });

  describe('on a full filesystem', () => {
    let mount: string;
    beforeAll(() => {
      mount = mkdtempSync(join(tmpdir(), `delegate-cache-full-${process.pid}-`));
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,mode=0700', 'tmpfs', mount]);
    });
    afterAll(() => {
      execFileSync('umount', [mount]);
      rmSync(mount, { recursive: true, force: true });
    });

    it('keeps the previous file whole and leaves no partial file when a write fails', async () => {
      await saveDelegates(mount, 'c1', DELEGATES);
      const before = readFileSync(join(mount, 'c1'));
      const huge = { name: 'pods/huge', bytes: Buffer.from(JSON.stringify({ type: 'bridge', pad: 'x'.repeat(256 * 1024) })) };
      const error = await saveDelegates(mount, 'c1', [huge]).catch((caught: unknown) => caught);
      expect(isDelegateCacheError(error, 'DelegateCacheIoFailed')).toBe(true);
      expect(Buffer.compare(readFileSync(join(mount, 'c1')), before)).toBe(0);
      expect(readdirSync(mount)).toEqual(['c1']);
    });
  });
});
