import { describe, expect, it } from '@jest/globals';
import { driverFlagsUsage, parseDriverFlags, wantsHelp } from './driver-flags.ts';

function parse(argv: readonly string[], env: Record<string, string> = {}) {
  return parseDriverFlags(argv, env);
}

function error(argv: readonly string[], env: Record<string, string> = {}): { code: string; message: string; object: unknown } {
  const result = parse(argv, env);
  if (result.ok) throw new Error(`accepted ${JSON.stringify(argv)}`);
  return { code: result.error.code, message: result.error.message, object: result.error.object };
}

describe('driver flags', () => {
  it('has the upstream defaults', () => {
    expect(parse(['--node-name', 'worker-1'])).toEqual({
      ok: true,
      value: {
        nodeName: 'worker-1',
        cdiRoot: '/var/run/cdi',
        kubeletRegistrarDirectoryPath: '/var/lib/kubelet/plugins_registry',
        kubeletPluginsDirectoryPath: '/var/lib/kubelet/plugins',
        healthcheckPort: -1,
        namespace: 'dra-sriov-driver',
        configurationMode: 'STANDALONE',
        kubeApiQps: 5,
        kubeApiBurst: 10,
        multusAutoAttach: false,
        sysfsRoot: '/sys',
      },
    });
  });

  it('reads the upstream environment variables, and a flag beats its variable', () => {
    const env = {
      NODE_NAME: 'worker-2',
      CDI_ROOT: '/run/cdi',
      KUBELET_REGISTRAR_DIRECTORY_PATH: '/k/reg',
      KUBELET_PLUGINS_DIRECTORY_PATH: '/k/plugins',
      HEALTHCHECK_PORT: '0',
      NAMESPACE: 'sriov',
      CONFIGURATION_MODE: 'MULTUS',
      KUBECONFIG: '/root/.kube/config',
      KUBE_API_QPS: '2.5',
      KUBE_API_BURST: '7',
      MULTUS_AUTO_ATTACH: 'True',
      SYSFS_ROOT: '/tmp/fake-sys',
    };
    expect(parse([], env)).toEqual({
      ok: true,
      value: {
        nodeName: 'worker-2',
        cdiRoot: '/run/cdi',
        kubeletRegistrarDirectoryPath: '/k/reg',
        kubeletPluginsDirectoryPath: '/k/plugins',
        healthcheckPort: 0,
        namespace: 'sriov',
        configurationMode: 'MULTUS',
        kubeconfig: '/root/.kube/config',
        kubeApiQps: 2.5,
        kubeApiBurst: 7,
        multusAutoAttach: true,
        sysfsRoot: '/tmp/fake-sys',
      },
    });
    const flagged = parse(['--node-name=worker-3', '--kube-api-burst', '20', '--multus-auto-attach=false'], env);
    expect(flagged.ok && [flagged.value.nodeName, flagged.value.kubeApiBurst, flagged.value.multusAutoAttach]).toEqual(['worker-3', 20, false]);
  });

  it('takes --multus-auto-attach alone or with a Go boolean', () => {
    for (const [args, expected] of [
      [['--multus-auto-attach'], true],
      [['--multus-auto-attach=1'], true],
      [['--multus-auto-attach=t'], true],
      [['--multus-auto-attach=F'], false],
      [['--multus-auto-attach=0'], false],
    ] as const) {
      const result = parse(['--node-name', 'n', '--configuration-mode', 'MULTUS', ...args]);
      expect(result.ok && result.value.multusAutoAttach).toBe(expected);
    }
  });

  it.each([
    [[], {}, 'Flag --node-name: is required'],
    [['--node-name', 'Worker_1'], {}, 'Flag --node-name: "Worker_1" is not a valid Node name'],
    [['--node-name', 'n', '--cdi-root', 'var/run/cdi'], {}, 'Flag --cdi-root: "var/run/cdi" is not an absolute path'],
    [['--node-name', 'n'], { KUBELET_PLUGINS_DIRECTORY_PATH: 'plugins' }, 'Flag --kubelet-plugins-directory-path: "plugins" is not an absolute path'],
    [['--node-name', 'n', '--kubelet-registrar-directory-path', './reg'], {}, 'Flag --kubelet-registrar-directory-path: "./reg" is not an absolute path'],
    [['--node-name', 'n', '--sysfs-root', 'sys'], {}, 'Flag --sysfs-root: "sys" is not an absolute path'],
    [['--node-name', 'n', '--healthcheck-port', '65536'], {}, 'Flag --healthcheck-port: 65536 is outside'],
    [['--node-name', 'n', '--healthcheck-port', '80a'], {}, 'Flag --healthcheck-port: "80a" is not an integer'],
    [['--node-name', 'n', '--namespace', 'Kube_System'], {}, 'Flag --namespace: "Kube_System" is not a valid namespace name'],
    [['--node-name', 'n', '--configuration-mode', 'multus'], {}, 'Flag --configuration-mode: "multus" is neither STANDALONE nor MULTUS'],
    [['--node-name', 'n', '--kube-api-qps', '0'], {}, 'Flag --kube-api-qps: "0" is not a positive number'],
    [['--node-name', 'n', '--kube-api-qps=-1'], {}, 'Flag --kube-api-qps: "-1" is not a positive number'],
    [['--node-name', 'n', '--kube-api-qps', '1e3'], {}, 'Flag --kube-api-qps: "1e3" is not a positive number'],
    [['--node-name', 'n', '--kube-api-burst', '0'], {}, 'Flag --kube-api-burst: 0 is outside 1..1000000'],
    [['--node-name', 'n', '--multus-auto-attach=yes'], {}, 'Flag --multus-auto-attach: "yes" is not a boolean'],
    [['--node-name', 'n', '--multus-auto-attach'], {}, 'Flag --multus-auto-attach: automatic network attachment needs Multus'],
    [['--node-name', 'n'], { MULTUS_AUTO_ATTACH: 'true' }, 'Flag --multus-auto-attach: automatic network attachment needs Multus'],
  ])('%j with %j is refused: %s', (argv, env, detail) => {
    const refused = error(argv, env);
    expect(refused.code).toBe('InvalidComponentSetting');
    expect(refused.message).toContain(detail);
    expect(refused.object).toEqual({ kind: 'Flag', name: /^Flag (--[a-z-]+):/.exec(detail)?.[1] });
  });

  it('refuses unknown flags and positional arguments with a typed error, never an exception', () => {
    for (const argv of [['--node-name', 'n', '--nodes', 'x'], ['--node-name', 'n', 'extra'], ['--node-name']]) {
      const refused = error(argv);
      expect(refused.code).toBe('InvalidComponentSetting');
      expect(refused.object).toEqual({ kind: 'CommandLine' });
    }
  });

  it('reads a variable set to "" as "", except a boolean\'s and KUBECONFIG, as upstream does', () => {
    expect(error(['--node-name', 'n'], { CDI_ROOT: '' }).message).toContain('Flag --cdi-root: "" is not an absolute path');
    expect(error([], { NODE_NAME: '' }).message).toContain('Flag --node-name: "" is not a valid Node name');
    const result = parse(['--node-name', 'n'], { MULTUS_AUTO_ATTACH: '', KUBECONFIG: '' });
    expect(result.ok && result.value.multusAutoAttach).toBe(false);
    expect(result.ok && 'kubeconfig' in result.value).toBe(false);
  });

  it('lists every flag with its variable and default for --help', () => {
    expect(wantsHelp(['--node-name', 'n', '--help'])).toBe(true);
    expect(wantsHelp(['-h'])).toBe(true);
    expect(wantsHelp(['--node-name', 'help'])).toBe(false);
    const usage = driverFlagsUsage();
    expect(usage).toContain('  --node-name [$NODE_NAME]\n      the Node this driver serves (required)\n');
    expect(usage).toContain('  --kubelet-plugins-directory-path [$KUBELET_PLUGINS_DIRECTORY_PATH]\n');
    expect(usage).toContain('(default /var/lib/kubelet/plugins)\n');
    expect(usage.match(/^ {2}--/gm)).toHaveLength(13);
  });
});
