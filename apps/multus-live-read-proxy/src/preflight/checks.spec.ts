import { describe, expect, it } from '@jest/globals';
import { type PreflightFacts, evaluatePreflight, preflightExitCode } from './checks.ts';
import type { ManagedFacts } from './managed-checks.ts';

const COMMIT = '0123456789abcdef0123456789abcdef01234567';

/** Managed-shadow facts that pass; managed-checks.spec.ts varies them. */
const HEALTHY_MANAGED: ManagedFacts = {
  templates: { scope: 'policies', templates: [], unresolved: [], forbidden: [], errors: [] },
  plugins: { binDir: '/opt/cni/bin', chrootDir: '', plugins: [{ type: 'sriov', neededBy: 'every managed shadow', found: true, runnable: true }] },
  routeTools: { root: '/', searched: ['/usr/sbin'], tools: [{ name: 'ip', path: '/usr/sbin/ip' }] },
  existingMultus: { daemonSets: [], entryConfig: { path: '/etc/cni/net.d/00-multus.conf', state: 'ours' } },
  runningDaemon: {
    socketPath: '/run/multus/multus.sock',
    reachable: true,
    about: { build: { version: '0.1.0', commit: COMMIT }, config: { path: '/d.json', liveNetworkConfigOnAdd: true, chrootDir: '', cniDir: '' } },
    preflight: { version: '0.1.0', commit: COMMIT },
    file: { path: '/d.json', liveNetworkConfigOnAdd: true, chrootDir: '', cniDir: '' },
  },
};

const HEALTHY: PreflightFacts = {
  config: {
    ok: true,
    path: '/etc/cni/net.d/multus.d/daemon-config.json',
    daemonLive: true,
    shim: { state: 'read', path: '/etc/cni/net.d/00-multus.conf', effectiveLive: true },
  },
  binaries: {
    binDir: '/opt/cni/bin',
    chrootDir: '',
    shimPresent: true,
    plugins: [
      { type: 'bridge', present: true },
      { type: 'host-local', present: true },
    ],
  },
  storage: [
    { id: 'delegate-cache-storage', what: 'the delegate cache (cniDir)', path: '/var/lib/cni/multus', fsType: 'ext4', mountPoint: '/', writable: true },
    { id: 'result-cache-storage', what: 'the libcni result cache', path: '/var/lib/cni', fsType: 'xfs', mountPoint: '/var', writable: true },
  ],
  access: { required: [{ attribute: 'get pods', allowed: true }], unneeded: [{ attribute: 'get resourceclaims.resource.k8s.io', allowed: false }] },
  dynamicNetworksControllers: [],
  build: { version: '0.1.0', commit: COMMIT },
  managed: HEALTHY_MANAGED,
};

const statuses = (facts: PreflightFacts): Record<string, string> => Object.fromEntries(evaluatePreflight(facts).map((check) => [check.id, check.status]));

describe('evaluatePreflight', () => {
  it('passes a healthy node with every check id', () => {
    expect(statuses(HEALTHY)).toEqual({
      'daemon-config': 'pass',
      'live-network-config-on-add': 'pass',
      'shim-binary': 'pass',
      'delegate-plugins': 'pass',
      'delegate-cache-storage': 'pass',
      'result-cache-storage': 'pass',
      rbac: 'pass',
      'dynamic-networks-controller': 'pass',
      'build-identity': 'pass',
      'source-templates': 'pass',
      'managed-plugins': 'pass',
      'default-route-tools': 'pass',
      'existing-multus-daemonset': 'pass',
      'entry-config-owner': 'pass',
      'running-daemon': 'pass',
    });
    expect(preflightExitCode(evaluatePreflight(HEALTHY))).toBe(0);
  });

  it.each<[string, Partial<PreflightFacts>, string, string]>([
    [
      'live reads off in effect',
      { config: { ...HEALTHY.config, ok: true, path: '/d.json', daemonLive: false, shim: { state: 'read', path: '/s', effectiveLive: false } } },
      'live-network-config-on-add',
      'fail',
    ],
    [
      'live reads only from the shim file',
      { config: { ok: true, path: '/d.json', daemonLive: undefined, shim: { state: 'read', path: '/s', effectiveLive: true } } },
      'live-network-config-on-add',
      'warn',
    ],
    [
      'an auto-mode file not yet written',
      { config: { ok: true, path: '/d.json', daemonLive: true, shim: { state: 'missing', path: '/s', auto: true } } },
      'daemon-config',
      'warn',
    ],
    [
      'an installed shim file missing',
      { config: { ok: true, path: '/d.json', daemonLive: true, shim: { state: 'missing', path: '/s', auto: false } } },
      'daemon-config',
      'fail',
    ],
    ['a daemon-config that does not parse', { config: { ok: false, path: '/d.json', error: 'MalformedDaemonConfig' } }, 'daemon-config', 'fail'],
    [
      'a missing plugin',
      { binaries: { binDir: '/opt/cni/bin', chrootDir: '', shimPresent: true, plugins: [{ type: 'bridge', present: false }] } },
      'delegate-plugins',
      'fail',
    ],
    ['a missing shim', { binaries: { binDir: '/opt/cni/bin', chrootDir: '', shimPresent: false, plugins: [] } }, 'shim-binary', 'fail'],
    ['a denied permission', { access: { required: [{ attribute: 'patch pods/status', allowed: false }], unneeded: [] } }, 'rbac', 'fail'],
    ['a dynamic-networks-controller', { dynamicNetworksControllers: ['kube-system/dynamic-networks-controller-ds'] }, 'dynamic-networks-controller', 'warn'],
    ['an unknown commit', { build: { version: '0.1.0', commit: undefined } }, 'build-identity', 'warn'],
  ])('%s', (_case, change, id, status) => {
    const facts = { ...HEALTHY, ...change };
    expect(statuses(facts)[id]).toBe(status);
    expect(preflightExitCode(evaluatePreflight(facts))).toBe(status === 'fail' ? 1 : 0);
  });

  it.each([
    ['tmpfs', true, 'fail'],
    ['ramfs', true, 'fail'],
    ['ext4', false, 'fail'],
    ['overlay', true, 'warn'],
  ])('judges a daemon cache on %s (writable %s) as %s', (fsType, writable, status) => {
    const storage = [
      { ...HEALTHY.storage[0], id: 'delegate-cache-storage' as const, what: 'the delegate cache', path: '/c', fsType, mountPoint: '/', writable },
    ];
    expect(statuses({ ...HEALTHY, storage })['delegate-cache-storage']).toBe(status);
  });
});

describe('delegate state storage', () => {
  const sriovState = (fsType: string, delegateRoot: string) => ({
    id: 'sriov-state-storage' as const,
    what: 'sriov-cni’s VF state',
    path: `${delegateRoot}/var/lib/cni/sriov`,
    fsType,
    mountPoint: delegateRoot === '' ? '/' : delegateRoot,
    writable: true,
    delegateRoot,
  });
  const check = (fsType: string, delegateRoot: string) =>
    evaluatePreflight({ ...HEALTHY, storage: [sriovState(fsType, delegateRoot)] }).find((entry) => entry.id === 'sriov-state-storage');

  it('fails state in the container’s own layer, telling to set chrootDir when there is none', () => {
    expect(check('overlay', '')).toEqual({
      id: 'sriov-state-storage',
      status: 'fail',
      message: expect.stringContaining('set chrootDir in daemon-config.json'),
    });
  });

  it('fails an overlay under chrootDir, telling to mount the host root there', () => {
    expect(check('overlay', '/hostroot')?.message).toContain("mount the host's root filesystem at /hostroot");
    expect(check('overlay', '/hostroot')?.status).toBe('fail');
  });

  it('fails tmpfs and passes a disk', () => {
    expect(check('tmpfs', '/hostroot')?.status).toBe('fail');
    expect(check('xfs', '/hostroot')?.status).toBe('pass');
  });
});
