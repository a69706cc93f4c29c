import { describe, expect, it } from '@jest/globals';
import { serializeJson } from '@sriov-dra/contract';
import { DaemonConfigError, delegateBinDirs, effectiveNetConf, parseDaemonConfig } from './daemon-config.ts';

const PATH = '/etc/cni/net.d/multus.d/daemon-config.json';
const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');
const daemon = (text: string) => parseDaemonConfig(bytes(text), PATH);
/** What the daemon generates for the shim in auto mode (config.MultusConf.Generate). */
const SHIM = '{"cniVersion":"0.3.1","name":"multus-cni-network","type":"multus-shim","logLevel":"verbose","logToStderr":true}';

function failure(run: () => unknown): DaemonConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof DaemonConfigError) return error;
    throw error;
  }
  throw new Error('expected a DaemonConfigError');
}

describe('parseDaemonConfig', () => {
  it('applies the upstream defaults to an empty file', () => {
    const config = daemon('{}');
    expect(config).toMatchObject({
      socketDir: '/run/multus/',
      multusConfigFile: 'auto',
      cniConfigDir: '/etc/cni/net.d',
      name: 'multus-cni-network',
      capabilities: {},
      chrootDir: '',
      logToStderr: false,
      metricsPort: undefined,
      liveNetworkConfigOnAdd: false,
      podResourcesSocket: '/var/lib/kubelet/pod-resources/kubelet.sock',
    });
  });

  it('reads podResourcesSocket, this daemon’s own key, and refuses a value that is not a string', () => {
    expect(daemon('{"podResourcesSocket":"/run/kubelet/pod-resources/kubelet.sock"}').podResourcesSocket).toBe('/run/kubelet/pod-resources/kubelet.sock');
    expect(() => daemon('{"podResourcesSocket":1}')).toThrow('podResourcesSocket');
  });

  it('reads the documented keys of a typical thick-mode file and keeps its raw bytes', () => {
    const text = `{
      "chrootDir": "/hostroot", "cniVersion": "0.3.1", "logLevel": "verbose", "logToStderr": true,
      "cniConfigDir": "/host/etc/cni/net.d", "multusAutoconfigDir": "/host/etc/cni/net.d",
      "multusConfigFile": "auto", "socketDir": "/host/run/multus/", "metricsPort": 9091,
      "clusterNetwork": "kindnet", "liveNetworkConfigOnAdd": true, "name": "ignored"
    }`;
    const config = daemon(text);
    expect(config).toMatchObject({
      chrootDir: '/hostroot',
      cniVersion: '0.3.1',
      logLevel: 'verbose',
      logToStderr: true,
      cniConfigDir: '/host/etc/cni/net.d',
      socketDir: '/host/run/multus/',
      metricsPort: 9091,
      clusterNetwork: 'kindnet',
      liveNetworkConfigOnAdd: true,
      name: 'multus-cni-network',
    });
    expect(config.raw.equals(bytes(text))).toBe(true);
  });

  it('matches keys as Go does: case-insensitively, the last match winning', () => {
    expect(daemon('{"SocketDir":"/a","socketdir":"/b"}').socketDir).toBe('/b');
    expect(daemon('{"socketdir":"/b","SocketDir":"/a"}').socketDir).toBe('/a');
    expect(daemon('{"LIVENETWORKCONFIGONADD":true}').liveNetworkConfigOnAdd).toBe(true);
    // Go folds U+212A KELVIN SIGN like "k" and U+017F LONG S like "s".
    expect(daemon('{"clusterNetwor\u212A":"kindnet"}').clusterNetwork).toBe('kindnet');
    expect(daemon('{"\u017FocketDir":"/c"}').socketDir).toBe('/c');
  });

  it('leaves a field at its default when its value is null, as Go does for scalars', () => {
    expect(daemon('{"socketDir":null}').socketDir).toBe('/run/multus/');
  });

  it.each([
    ['not JSON', '{"socketDir":', 'MalformedDaemonConfig: /etc/cni/net.d/multus.d/daemon-config.json:'],
    ['not an object', '["socketDir"]', 'MalformedDaemonConfig: /etc/cni/net.d/multus.d/daemon-config.json: the document is not a JSON object'],
    ['a repeated key', '{"socketDir":"/a","socketDir":"/b"}', 'MalformedDaemonConfig: /etc/cni/net.d/multus.d/daemon-config.json: duplicate key'],
    [
      'a number for a string',
      '{"socketDir":5}',
      'InvalidDaemonConfigKey: /etc/cni/net.d/multus.d/daemon-config.json key "socketDir": expected a string for socketDir',
    ],
    [
      'a differently spelled key',
      '{"SOCKETDIR":true}',
      'InvalidDaemonConfigKey: /etc/cni/net.d/multus.d/daemon-config.json key "SOCKETDIR": expected a string for socketDir',
    ],
    ['a string for a boolean', '{"liveNetworkConfigOnAdd":"true"}', 'key "liveNetworkConfigOnAdd": expected a boolean for liveNetworkConfigOnAdd'],
    ['a fraction for a port', '{"metricsPort":9091.5}', 'key "metricsPort": expected an integer for metricsPort'],
    ['a string for a NetConf list', '{"systemNamespaces":"kube-system"}', 'key "systemNamespaces": expected an array of strings for systemNamespaces'],
    ['a non-boolean capability', '{"capabilities":{"portMappings":"yes"}}', 'key "capabilities": expected an object of booleans for capabilities'],
  ])('rejects %s with a typed error naming the file and key', (_what, text, message) => {
    const error = failure(() => daemon(text));
    expect(error.message).toContain(message);
  });
});

describe('effectiveNetConf', () => {
  it('applies LoadNetConf defaults under the merged configuration', () => {
    const conf = effectiveNetConf(daemon('{"clusterNetwork":"kindnet"}'), bytes(SHIM));
    expect(conf).toMatchObject({
      cniVersion: '0.3.1',
      name: 'multus-cni-network',
      binDir: '/opt/cni/bin',
      confDir: '/etc/cni/multus/net.d',
      cniDir: '/var/lib/cni/multus',
      clusterNetwork: 'kindnet',
      defaultNetworks: [],
      delegates: [],
      namespaceIsolation: false,
      globalNamespaces: ['default'],
      systemNamespaces: ['kube-system'],
      multusNamespace: 'kube-system',
      readinessindicatorfile: '',
      logToStderr: true,
      liveNetworkConfigOnAdd: false,
    });
  });

  it('lets daemon keys replace shim keys and keeps shim keys the daemon does not set', () => {
    const shim = '{"cniVersion":"0.3.1","name":"multus-cni-network","type":"multus-shim","binDir":"/shim/bin","logLevel":"debug","cniDir":"/shim/cache"}';
    const conf = effectiveNetConf(daemon('{"clusterNetwork":"kindnet","binDir":"/daemon/bin","logLevel":"error"}'), bytes(shim));
    expect(conf.binDir).toBe('/daemon/bin');
    expect(conf.logLevel).toBe('error');
    expect(conf.cniDir).toBe('/shim/cache');
  });

  it('keeps the shim readinessindicatorfile in auto mode and overlays the daemon one otherwise', () => {
    const shim = '{"cniVersion":"0.3.1","name":"m","type":"multus-shim","readinessindicatorfile":"/shim/ready"}';
    const auto = daemon('{"clusterNetwork":"kindnet","readinessindicatorfile":"/daemon/ready"}');
    const file = daemon('{"clusterNetwork":"kindnet","readinessindicatorfile":"/daemon/ready","multusConfigFile":"/etc/multus.conf"}');
    expect(effectiveNetConf(auto, bytes(shim)).readinessindicatorfile).toBe('/shim/ready');
    expect(effectiveNetConf(file, bytes(shim)).readinessindicatorfile).toBe('/daemon/ready');
  });

  it('carries liveNetworkConfigOnAdd from the daemon file, over the shim, in both directions', () => {
    const shimOn = '{"cniVersion":"0.3.1","name":"m","type":"multus-shim","liveNetworkConfigOnAdd":true}';
    expect(effectiveNetConf(daemon('{"clusterNetwork":"k","liveNetworkConfigOnAdd":true}'), bytes(SHIM)).liveNetworkConfigOnAdd).toBe(true);
    expect(effectiveNetConf(daemon('{"clusterNetwork":"k"}'), bytes(shimOn)).liveNetworkConfigOnAdd).toBe(true);
    expect(effectiveNetConf(daemon('{"clusterNetwork":"k","liveNetworkConfigOnAdd":false}'), bytes(shimOn)).liveNetworkConfigOnAdd).toBe(false);
    expect(effectiveNetConf(daemon('{"clusterNetwork":"k"}'), bytes(SHIM)).liveNetworkConfigOnAdd).toBe(false);
  });

  it('overlays by exact key, so of two spellings the one Go sorts last wins wherever it came from', () => {
    // Both members survive the map overlay; Go marshals "BinDir" before "binDir" (uppercase sorts first).
    const shimLower = '{"cniVersion":"0.3.1","name":"m","type":"multus-shim","binDir":"/shim/bin"}';
    expect(effectiveNetConf(daemon('{"clusterNetwork":"k","BinDir":"/daemon/bin"}'), bytes(shimLower)).binDir).toBe('/shim/bin');
    const shimUpper = '{"cniVersion":"0.3.1","name":"m","type":"multus-shim","BINDIR":"/shim/bin"}';
    expect(effectiveNetConf(daemon('{"clusterNetwork":"k","binDir":"/daemon/bin"}'), bytes(shimUpper)).binDir).toBe('/daemon/bin');
  });

  it('exposes the merged document in Go map order with numbers as written', () => {
    const shim = '{"type":"multus-shim","name":"m","cniVersion":"0.3.1","mtu":9000.0}';
    const conf = effectiveNetConf(daemon('{"clusterNetwork":"k","Zeta":18446744073709551617}'), bytes(shim));
    expect(serializeJson(conf.document)).toBe(
      '{"Zeta":18446744073709551617,"clusterNetwork":"k","cniVersion":"0.3.1","mtu":9000.0,"name":"m","type":"multus-shim"}',
    );
  });

  it('splits globalNamespaces on commas and trims each name; a null list clears the default', () => {
    const conf = effectiveNetConf(
      daemon('{"clusterNetwork":"k","namespaceIsolation":true,"globalNamespaces":"default, shared ,tools","systemNamespaces":null}'),
      bytes(SHIM),
    );
    expect(conf.namespaceIsolation).toBe(true);
    expect(conf.globalNamespaces).toEqual(['default', 'shared', 'tools']);
    expect(conf.systemNamespaces).toEqual([]);
  });

  it('accepts inline delegates in place of clusterNetwork', () => {
    const conf = effectiveNetConf(daemon('{"delegates":[{"type":"bridge","name":"b"}]}'), bytes(SHIM));
    expect(conf.delegates).toHaveLength(1);
  });

  it.each([
    [
      'neither clusterNetwork nor delegates',
      '{}',
      SHIM,
      'MissingClusterNetwork: /etc/cni/net.d/multus.d/daemon-config.json over the multus-shim configuration',
    ],
    ['a shim configuration that is not JSON', '{"clusterNetwork":"k"}', '{"cniVersion"', 'MalformedShimConfig: the multus-shim configuration:'],
    [
      'a misfit shim member',
      '{"clusterNetwork":"k"}',
      '{"cniVersion":"0.3.1","defaultNetworks":"a,b"}',
      'InvalidDaemonConfigKey: the multus-shim configuration key "defaultNetworks": expected an array of strings for defaultNetworks',
    ],
  ])('rejects %s with a typed error naming its source', (_what, daemonText, shim, message) => {
    expect(failure(() => effectiveNetConf(daemon(daemonText), bytes(shim))).message).toContain(message);
  });
});

describe('delegateBinDirs', () => {
  it('searches binDir before each CNI_PATH entry', () => {
    const conf = effectiveNetConf(daemon('{"clusterNetwork":"k","binDir":"/opt/multus/bin"}'), bytes(SHIM));
    expect(delegateBinDirs(conf, '/opt/cni/bin:/usr/libexec/cni')).toEqual(['/opt/multus/bin', '/opt/cni/bin', '/usr/libexec/cni']);
    expect(delegateBinDirs(conf, '')).toEqual(['/opt/multus/bin']);
  });
});
