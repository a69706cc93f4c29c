import { describe, expect, it } from '@jest/globals';
import { effectiveNetConf, parseDaemonConfig } from '../daemon-config.ts';
import { findPrimaryConfName, renderEntryConfig } from './entry-config.ts';

const daemon = (json: string) => parseDaemonConfig(Buffer.from(json), '/etc/cni/net.d/multus.d/daemon-config.json');

const FLANNEL = {
  path: '/host/etc/cni/net.d/10-flannel.conflist',
  bytes: JSON.stringify({
    name: 'cbr0',
    cniVersion: '0.3.1',
    plugins: [
      { type: 'flannel', delegate: { hairpinMode: true, isDefaultGateway: true } },
      { type: 'portmap', capabilities: { portMappings: true } },
    ],
  }),
};

describe('renderEntryConfig', () => {
  it('generates upstream’s file for upstream’s thick daemon-config', () => {
    const config = daemon(`{
      "chrootDir": "/hostroot", "cniVersion": "0.3.1", "logLevel": "verbose", "logToStderr": true,
      "cniConfigDir": "/host/etc/cni/net.d", "multusAutoconfigDir": "/host/etc/cni/net.d",
      "multusConfigFile": "auto", "socketDir": "/host/run/multus/"
    }`);
    expect(renderEntryConfig(config, FLANNEL)).toBe(
      '{"capabilities":{"portMappings":true},"cniVersion":"0.3.1","logLevel":"verbose","logToStderr":true,"name":"multus-cni-network","clusterNetwork":"/host/etc/cni/net.d/10-flannel.conflist","type":"multus-shim"}',
    );
  });

  it('carries every shim-relevant key in MultusConf order, flushes the daemon-only ones, and merges capabilities', () => {
    const config = daemon(`{
      "cniVersion": "1.0.0", "binDir": "/opt/cni/bin", "capabilities": {"bandwidth": true, "ips": false},
      "logFile": "/var/log/multus.log", "logLevel": "debug", "logOptions": {"maxAge": 5, "Compress": true, "unknown": 1},
      "namespaceIsolation": true, "globalNamespaces": "default,infra", "cniDir": "/var/lib/cni/multus",
      "daemonSocketDir": "/run/multus", "readinessindicatorfile": "/run/ready",
      "multusConfigFile": "auto", "multusMasterCNI": "", "forceCNIVersion": false, "cniConfigDir": "/etc/cni/net.d",
      "liveNetworkConfigOnAdd": true
    }`);
    const primary = {
      path: '/etc/cni/net.d/10-calico.conflist',
      bytes:
        '{"cniVersion":"1.0.0","name":"k8s-pod-network","plugins":[{"type":"calico"},{"type":"bandwidth","capabilities":{"bandwidth":true}},{"type":"portmap","capabilities":{"portMappings":true,"snat":false}}]}',
    };
    expect(renderEntryConfig(config, primary)).toBe(
      '{"binDir":"/opt/cni/bin","capabilities":{"bandwidth":true,"portMappings":true},"cniVersion":"1.0.0","logFile":"/var/log/multus.log","logLevel":"debug",' +
        '"logOptions":{"maxAge":5,"compress":true},"name":"multus-cni-network","clusterNetwork":"/etc/cni/net.d/10-calico.conflist","namespaceIsolation":true,' +
        '"globalNamespaces":"default,infra","type":"multus-shim","cniDir":"/var/lib/cni/multus","daemonSocketDir":"/run/multus",' +
        '"liveNetworkConfigOnAdd":true}',
    );
  });

  it('takes capabilities from a single plugin configuration and the network name under overrideNetworkName', () => {
    const config = daemon('{"cniVersion":"0.4.0","overrideNetworkName":true}');
    const primary = { path: '/etc/cni/net.d/10-kindnet.conf', bytes: '{"cniVersion":"0.4.0","name":"kindnet","type":"ptp","capabilities":{"ips":true}}' };
    expect(renderEntryConfig(config, primary)).toBe(
      '{"capabilities":{"ips":true},"cniVersion":"0.4.0","name":"kindnet","clusterNetwork":"/etc/cni/net.d/10-kindnet.conf","type":"multus-shim","overrideNetworkName":true}',
    );
  });

  it('takes the primary’s cniVersion when daemon-config has none', () => {
    const primary = { path: '/etc/cni/net.d/10-primary.conf', bytes: '{"cniVersion":"1.1.0","name":"primary","type":"bridge"}' };
    expect(renderEntryConfig(daemon('{}'), primary)).toBe(
      '{"cniVersion":"1.1.0","name":"multus-cni-network","clusterNetwork":"/etc/cni/net.d/10-primary.conf","type":"multus-shim"}',
    );
  });

  it('escapes strings as Go does', () => {
    const primary = { path: '/etc/cni/net.d/10-a&b<c>.conf', bytes: '{"cniVersion":"1.0.0","name":"p","type":"bridge"}' };
    expect(renderEntryConfig(daemon('{"cniVersion":"1.0.0"}'), primary)).toContain('"clusterNetwork":"/etc/cni/net.d/10-a\\u0026b\\u003cc\\u003e.conf"');
  });

  it.each([
    ['a 0.4.0 top level over a 0.3.1 primary', '{"cniVersion":"0.4.0"}', '{"cniVersion":"0.3.1","name":"p","type":"bridge"}', 'IncompatiblePrimaryCniVersion'],
    ['a primary without cniVersion', '{"cniVersion":"1.0.0"}', '{"name":"p","type":"bridge"}', 'IncompatiblePrimaryCniVersion'],
    ['a primary that is not JSON', '{"cniVersion":"1.0.0"}', '{"name":', 'MalformedPrimaryCniConfig'],
    [
      'a non-boolean capability',
      '{"cniVersion":"1.0.0"}',
      '{"cniVersion":"1.0.0","name":"p","type":"bridge","capabilities":{"mac":"yes"}}',
      'MalformedPrimaryCniConfig',
    ],
    [
      'overrideNetworkName over a nameless primary',
      '{"cniVersion":"1.0.0","overrideNetworkName":true}',
      '{"cniVersion":"1.0.0","type":"bridge"}',
      'MalformedPrimaryCniConfig',
    ],
  ])('refuses %s, naming the primary file', (_case, daemonJson, primaryJson, code) => {
    expect(() => renderEntryConfig(daemon(daemonJson), { path: '/etc/cni/net.d/10-p.conf', bytes: primaryJson })).toThrow(
      expect.objectContaining({ code, subject: '/etc/cni/net.d/10-p.conf' }),
    );
  });
});

describe('liveNetworkConfigOnAdd through the generated file', () => {
  const primary = { path: '/etc/cni/net.d/10-primary.conf', bytes: '{"cniVersion":"1.0.0","name":"primary","type":"bridge"}' };

  it('round-trips: the shim configuration generated by a live daemon makes a request live when daemon-config is silent', () => {
    const generated = renderEntryConfig(daemon('{"cniVersion":"1.0.0","liveNetworkConfigOnAdd":true}'), primary);
    expect(effectiveNetConf(daemon('{"cniVersion":"1.0.0"}'), Buffer.from(generated)).liveNetworkConfigOnAdd).toBe(true);
    const withoutLive = renderEntryConfig(daemon('{"cniVersion":"1.0.0"}'), primary);
    expect(effectiveNetConf(daemon('{"cniVersion":"1.0.0"}'), Buffer.from(withoutLive)).liveNetworkConfigOnAdd).toBe(false);
  });

  it('yields to the daemon’s own key in either direction', () => {
    const live = renderEntryConfig(daemon('{"cniVersion":"1.0.0","liveNetworkConfigOnAdd":true}'), primary);
    expect(effectiveNetConf(daemon('{"liveNetworkConfigOnAdd":false}'), Buffer.from(live)).liveNetworkConfigOnAdd).toBe(false);
    const cached = `${live.slice(0, -'"liveNetworkConfigOnAdd":true}'.length - 1)}}`;
    expect(JSON.parse(cached)).not.toHaveProperty('liveNetworkConfigOnAdd');
    expect(effectiveNetConf(daemon('{"liveNetworkConfigOnAdd":true}'), Buffer.from(cached)).liveNetworkConfigOnAdd).toBe(true);
  });
});

describe('findPrimaryConfName', () => {
  it('takes the first .conf or .conflist by byte order, never the generated file', () => {
    expect(
      findPrimaryConfName(['99-last.conf', '00-multus.conf', '00-multus.conf.bak.conf', 'README', '20-b.json', '10-b.conflist', '10-a.conf', '.conf']),
    ).toBe('10-a.conf');
    expect(findPrimaryConfName(['00-multus.conf', 'notes.txt'])).toBeUndefined();
    expect(findPrimaryConfName(['Z.conf', 'a.conf'])).toBe('Z.conf');
  });
});
