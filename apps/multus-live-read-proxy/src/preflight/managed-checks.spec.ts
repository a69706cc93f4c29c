import { describe, expect, it } from '@jest/globals';
import { type ManagedFacts, evaluateManaged } from './managed-checks.ts';

const COMMIT = '0123456789abcdef0123456789abcdef01234567';
const OTHER_COMMIT = 'fedcba9876543210fedcba9876543210fedcba98';
const SETTINGS = { path: '/etc/sriov-dra/daemon-config.json', liveNetworkConfigOnAdd: true, chrootDir: '/hostroot', cniDir: '/var/lib/cni/multus' };

const HEALTHY: ManagedFacts = {
  templates: {
    scope: 'SriovResourcePolicy and DeviceAttributes objects in namespace sriov-dra for node worker-a',
    templates: [
      {
        nad: 'ai-workloads/rail-a-net',
        referencedBy: 'DeviceClass sriov-rail-a',
        ipamTypes: ['whereabouts'],
        hostLocalDataDirs: [],
        whereaboutsConfigs: [{ kubeconfig: '', configurationPath: '' }],
      },
    ],
    unresolved: [],
    forbidden: [],
    errors: [],
  },
  plugins: {
    binDir: '/opt/cni/bin',
    chrootDir: '/hostroot',
    plugins: [
      { type: 'sriov', neededBy: 'every managed shadow', found: true, runnable: true },
      { type: 'tuning', neededBy: 'allowed after sriov in a template', found: true, runnable: true },
      { type: 'whereabouts', neededBy: 'IPAM of ai-workloads/rail-a-net', found: true, runnable: true },
    ],
  },
  whereabouts: {
    root: '/hostroot',
    kubeconfigs: [{ path: '/etc/cni/net.d/whereabouts.d/whereabouts.kubeconfig', from: '/etc/cni/net.d/whereabouts.d/whereabouts.conf', readable: true }],
    unnamed: [],
  },
  routeTools: {
    root: '/hostroot',
    searched: ['/usr/sbin', '/usr/bin'],
    tools: [
      { name: 'nsenter', path: '/usr/bin/nsenter' },
      { name: 'ip', path: '/usr/sbin/ip' },
    ],
  },
  existingMultus: { daemonSets: [], entryConfig: { path: '/etc/cni/net.d/00-multus.conf', state: 'ours' } },
  runningDaemon: {
    socketPath: '/run/multus/multus.sock',
    reachable: true,
    about: { build: { version: '0.1.0', commit: COMMIT }, config: SETTINGS },
    preflight: { version: '0.1.0', commit: COMMIT },
    file: SETTINGS,
  },
};

function only(facts: ManagedFacts, id: string): { status: string; message: string } {
  const check = evaluateManaged(facts).find((entry) => entry.id === id);
  if (check === undefined) throw new Error(`no ${id} check`);
  return { status: check.status, message: check.message };
}

describe('evaluateManaged', () => {
  it('passes a node ready for managed shadows', () => {
    expect(Object.fromEntries(evaluateManaged(HEALTHY).map((check) => [check.id, check.status]))).toEqual({
      'source-templates': 'pass',
      'managed-plugins': 'pass',
      'whereabouts-kubeconfig': 'pass',
      'default-route-tools': 'pass',
      'existing-multus-daemonset': 'pass',
      'entry-config-owner': 'pass',
      'running-daemon': 'pass',
    });
    expect(only(HEALTHY, 'source-templates').message).toContain('ai-workloads/rail-a-net (IPAM whereabouts)');
    expect(only(HEALTHY, 'running-daemon').message).toContain('liveNetworkConfigOnAdd true, chrootDir /hostroot');
  });

  describe('source-templates', () => {
    const templates = (change: Partial<ManagedFacts['templates']>): ManagedFacts => ({ ...HEALTHY, templates: { ...HEALTHY.templates, ...change } });

    it('fails a Forbidden read on its own, naming the read and how to grant it', () => {
      const check = only(templates({ forbidden: ['list sriovresourcepolicies.sriovnetwork.k8snetworkplumbingwg.io in sriov-dra'] }), 'source-templates');
      expect(check.status).toBe('fail');
      expect(check.message).toContain('forbidden to preflight');
      expect(check.message).toContain('list sriovresourcepolicies.sriovnetwork.k8snetworkplumbingwg.io in sriov-dra');
      expect(check.message).toContain('Grant that identity get and list');
    });

    it('fails a read that did not answer', () => {
      expect(only(templates({ errors: ['list deviceclasses.resource.k8s.io: timeout'] }), 'source-templates')).toEqual({
        status: 'fail',
        message: expect.stringContaining("cannot read this node's source templates: list deviceclasses.resource.k8s.io: timeout"),
      });
    });

    it('warns about a reference no NAD answers, with MissingNetworkTemplate as the consequence', () => {
      const check = only(templates({ unresolved: [{ reference: 'infra/rail-c', referencedBy: 'DeviceClass c', reason: 'not found' }] }), 'source-templates');
      expect(check.status).toBe('warn');
      expect(check.message).toContain('infra/rail-c (not found; referenced by DeviceClass c)');
      expect(check.message).toContain('MissingNetworkTemplate');
    });

    it('passes a node without templates, saying only sriov and the metaplugins are required', () => {
      expect(only(templates({ templates: [] }), 'source-templates')).toEqual({
        status: 'pass',
        message: expect.stringContaining('only sriov and the allowed metaplugins'),
      });
    });
  });

  describe('managed-plugins', () => {
    const withPlugin = (found: boolean, runnable: boolean, chrootDir = '/hostroot'): ManagedFacts => ({
      ...HEALTHY,
      plugins: { binDir: '/opt/cni/bin', chrootDir, plugins: [{ type: 'whereabouts', neededBy: 'IPAM of ai-workloads/rail-a-net', found, runnable }] },
    });

    it('fails a plugin the daemon cannot find in binDir, naming what needs it', () => {
      const check = only(withPlugin(false, false), 'managed-plugins');
      expect(check.status).toBe('fail');
      expect(check.message).toContain('/opt/cni/bin/whereabouts (IPAM of ai-workloads/rail-a-net)');
      expect(check.message).toContain("Install these CNI plugins into the host's /opt/cni/bin (the daemon sees the host's root at /hostroot)");
    });

    it('fails a plugin found in binDir but missing inside chrootDir, where it runs', () => {
      const check = only(withPlugin(true, false), 'managed-plugins');
      expect(check.status).toBe('fail');
      expect(check.message).toContain('/hostroot/opt/cni/bin/whereabouts, where the daemon runs it chrooted into /hostroot');
    });

    it('passes plugins present where they run', () => {
      expect(only(withPlugin(true, true, ''), 'managed-plugins')).toEqual({
        status: 'pass',
        message: "managed shadows' plugins are in /opt/cni/bin: whereabouts",
      });
    });
  });

  describe('whereabouts-kubeconfig', () => {
    it('fails a kubeconfig delegates cannot read where they run', () => {
      const facts = {
        ...HEALTHY,
        whereabouts: { root: '/', kubeconfigs: [{ path: '/etc/wb.kubeconfig', from: 'named by a/b', readable: false }], unnamed: [] },
      };
      const check = only(facts, 'whereabouts-kubeconfig');
      expect(check.status).toBe('fail');
      expect(check.message).toContain('/etc/wb.kubeconfig (named by a/b) cannot be read by delegates running in /');
      expect(check.message).toContain('set chrootDir to where the host root is mounted');
    });

    it('fails a template for which no kubeconfig is named, even beside one that is', () => {
      const whereabouts = { ...HEALTHY.whereabouts, root: '/hostroot', kubeconfigs: HEALTHY.whereabouts?.kubeconfigs ?? [], unnamed: ['infra/rail-c-net'] };
      expect(only({ ...HEALTHY, whereabouts }, 'whereabouts-kubeconfig')).toEqual({
        status: 'fail',
        message: expect.stringContaining('infra/rail-c-net names no kubeconfig and no whereabouts.conf in /hostroot does'),
      });
    });

    it('is not checked when no template uses whereabouts', () => {
      const facts: ManagedFacts = {
        templates: HEALTHY.templates,
        routeTools: HEALTHY.routeTools,
        existingMultus: HEALTHY.existingMultus,
        runningDaemon: HEALTHY.runningDaemon,
      };
      expect(evaluateManaged(facts).map((check) => check.id)).not.toContain('whereabouts-kubeconfig');
    });
  });

  describe('default-route-tools', () => {
    it('warns when ip is missing where a default-route change runs it, saying managed selections never need it', () => {
      const routeTools = {
        ...HEALTHY.routeTools,
        tools: [
          { name: 'nsenter', path: '/usr/bin/nsenter' },
          { name: 'ip', path: undefined },
        ],
      };
      const check = only({ ...HEALTHY, routeTools }, 'default-route-tools');
      expect(check.status).toBe('warn');
      expect(check.message).toContain('ip not found in /usr/sbin:/usr/bin inside /hostroot');
      expect(check.message).toContain('managed selections never set it');
    });

    it('passes, naming the tools it found', () => {
      expect(only(HEALTHY, 'default-route-tools').message).toBe('a default-route change runs /usr/bin/nsenter and /usr/sbin/ip inside /hostroot');
    });
  });

  describe('an existing Multus', () => {
    it('fails an upstream Multus DaemonSet, saying why and in which order to migrate', () => {
      const check = only(
        { ...HEALTHY, existingMultus: { ...HEALTHY.existingMultus, daemonSets: ['kube-system/kube-multus-ds'] } },
        'existing-multus-daemonset',
      );
      expect(check.status).toBe('fail');
      expect(check.message).toContain('kube-system/kube-multus-ds');
      expect(check.message).toContain('two daemons would fight over 00-multus.conf');
      expect(check.message).toContain('cordon and drain it; keep the other Multus off it');
      expect(check.message).toContain('only then enable multusAutoAttach');
    });

    it('warns when DaemonSets cannot be listed', () => {
      expect(only({ ...HEALTHY, existingMultus: { ...HEALTHY.existingMultus, daemonSets: { error: 'forbidden' } } }, 'existing-multus-daemonset').status).toBe(
        'warn',
      );
    });

    it.each([
      ['foreign', 'fail', 'two daemons would fight over 00-multus.conf'],
      ['unknown', 'warn', 'cannot be told'],
      ['absent', 'pass', 'this daemon writes it when it starts'],
    ] as const)('judges a %s 00-multus.conf as %s', (state, status, text) => {
      const entryConfig =
        state === 'absent'
          ? { path: '/etc/cni/net.d/00-multus.conf', state }
          : { path: '/etc/cni/net.d/00-multus.conf', state, detail: 'its type is "multus"' };
      const check = only({ ...HEALTHY, existingMultus: { ...HEALTHY.existingMultus, entryConfig } }, 'entry-config-owner');
      expect(check.status).toBe(status);
      expect(check.message).toContain(text);
    });
  });

  describe('running-daemon', () => {
    const running = HEALTHY.runningDaemon as Extract<ManagedFacts['runningDaemon'], { reachable: true }>;
    const daemon = (change: Partial<typeof running>): ManagedFacts => ({ ...HEALTHY, runningDaemon: { ...running, ...change } });

    it('fails a daemon that does not answer, saying where to run preflight', () => {
      const check = only({ ...HEALTHY, runningDaemon: { socketPath: '/run/multus/multus.sock', reachable: false, error: 'connect ENOENT' } }, 'running-daemon');
      expect(check.status).toBe('fail');
      expect(check.message).toContain('no daemon answers on /run/multus/multus.sock (connect ENOENT)');
      expect(check.message).toContain('run preflight in that Pod');
    });

    it('fails a daemon of another build than this preflight', () => {
      const check = only(daemon({ about: { ...running.about, build: { version: '0.1.0', commit: OTHER_COMMIT } } }), 'running-daemon');
      expect(check.status).toBe('fail');
      expect(check.message).toContain(`runs version 0.1.0, commit ${OTHER_COMMIT}`);
      expect(check.message).toContain(`this preflight is version 0.1.0, commit ${COMMIT}`);
      expect(check.message).toContain('roll the DaemonSet out');
    });

    it('fails a daemon started with settings the file no longer has', () => {
      const check = only(daemon({ about: { ...running.about, config: { ...SETTINGS, liveNetworkConfigOnAdd: false } } }), 'running-daemon');
      expect(check.status).toBe('fail');
      expect(check.message).toContain('started with liveNetworkConfigOnAdd false (the file now says true): restart the daemon');
    });

    it('fails a daemon running without live reads, as the file also says', () => {
      const settings = { ...SETTINGS, liveNetworkConfigOnAdd: false };
      const check = only(daemon({ about: { ...running.about, config: settings }, file: settings }), 'running-daemon');
      expect(check.status).toBe('fail');
      expect(check.message).toContain('reads Pods and NADs from informer caches on ADD');
    });

    it('warns when both builds have no commit', () => {
      const check = only(
        daemon({ about: { ...running.about, build: { version: '0.1.0', commit: null } }, preflight: { version: '0.1.0', commit: undefined } }),
        'running-daemon',
      );
      expect(check.status).toBe('warn');
      expect(check.message).toContain('SRIOV_DRA_GIT_COMMIT');
    });
  });
});
