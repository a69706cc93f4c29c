// Every `sriov-dra` command's failures, each from its own process against a real API server: a missing
// kubeconfig, a server that refuses connections, a user RBAC grants nothing, a bad argument. Each must
// end in exactly one line on stderr — error code, the object, file or server that failed, the remedy —
// and exit status 1, never a stack trace. A command registered without rows here fails the first test.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createServer } from 'node:net';
import { type ControlPlane, startControlPlane } from '@sriov-dra/k8s/testing';
import { ADMIN_COMMANDS } from '../../src/admin/admin-command.ts';
import { sriovDra } from './run-sriov-dra.ts';

// Each row starts the CLI from its TypeScript sources: seconds apiece on a loaded machine.
jest.setTimeout(60_000);

const MISSING = '/nonexistent/sriov-dra/kubeconfig';

interface Setting {
  /** A kubeconfig of a user RBAC grants nothing (a client certificate of its own, no groups). */
  readonly forbidden: string;
  /** A kubeconfig whose server refuses connections (a port nothing listens on). */
  readonly unreachable: string;
  readonly unreachableServer: string;
}

interface Row {
  readonly args: (setting: Setting) => string[];
  readonly code: string;
  /** What the line must name: the file, server, object or flag that failed. */
  readonly names: (setting: Setting) => string;
}

type ClusterFailure = 'missing kubeconfig' | 'unreachable server' | 'forbidden request';

/** A command that talks to a cluster has a row for each cluster failure and for a bad argument. */
type ClusterCommandRows = Record<ClusterFailure | 'bad argument', Row>;
/** A command that works without a cluster: a bad argument and a missing input file. */
type OfflineCommandRows = Record<'bad argument' | 'missing input file', Row>;

function clusterRows(command: string[], object: string, badArgument: Row): ClusterCommandRows {
  return {
    'missing kubeconfig': { args: () => [...command, '--kubeconfig', MISSING], code: 'InvalidKubeconfig', names: () => MISSING },
    'unreachable server': { args: (s) => [...command, '--kubeconfig', s.unreachable], code: 'ApiUnavailable', names: (s) => `server ${s.unreachableServer}` },
    'forbidden request': { args: (s) => [...command, '--kubeconfig', s.forbidden], code: 'ApiForbidden', names: () => object },
    'bad argument': badArgument,
  };
}

const ROWS: Readonly<Record<string, ClusterCommandRows | OfflineCommandRows>> = {
  inspect: clusterRows(['inspect', 'pod', 'trainer-0', '-n', 'ai-workloads'], 'Pod ai-workloads/trainer-0', {
    args: () => ['inspect', 'node', 'worker-1'],
    code: 'InvalidCommandLine',
    names: () => '"node worker-1"',
  }),
  orphans: clusterRows(['orphans', '--node-name', 'worker-1'], 'Node worker-1', {
    args: () => ['orphans', '--node-name', 'worker-1', '-o', 'xml'],
    code: 'InvalidCommandLine',
    names: () => '-o xml',
  }),
  status: clusterRows(['status'], 'User "nobody"', {
    args: () => ['status', '--plugins-dir', '/var/lib/kubelet/plugins'],
    code: 'InvalidCommandLine',
    names: () => '--plugins-dir',
  }),
  render: {
    'bad argument': { args: () => ['render', '--nad', 'rail-a.yaml'], code: 'InvalidCommandLine', names: () => '--pci' },
    'missing input file': { args: () => ['render', '--nad', MISSING, '--pci', '0000:03:00.1'], code: 'InvalidCommandLine', names: () => MISSING },
  },
};

let cp: ControlPlane;
let setting: Setting;

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

beforeAll(async () => {
  cp = await startControlPlane();
  const unreachableServer = `https://127.0.0.1:${await closedPort()}`;
  setting = {
    forbidden: cp.kubeconfigFor('nobody'),
    unreachable: cp.kubeconfigFor('admin', { groups: ['system:masters'], server: unreachableServer }),
    unreachableServer,
  };
}, 120_000);

afterAll(async () => {
  await cp.stop();
});

describe('sriov-dra failures', () => {
  it('has rows for every registered command, and none for a command that is not', () => {
    expect(Object.keys(ROWS).sort()).toEqual([...ADMIN_COMMANDS].sort());
  });

  const cases = Object.entries(ROWS).flatMap(([command, rows]) => Object.entries(rows).map(([failure, row]) => [command, failure, row] as const));
  it.each(cases)('%s, %s: one line with its code, what failed and what to do; exit 1', async (_command, _failure, row) => {
    const run = await sriovDra(...row.args(setting));
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: '' });
    const lines = run.stderr.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('');
    expect(lines[0]).toMatch(new RegExp(`^error: ${row.code}: .+ — .+$`));
    expect(lines[0]).toContain(row.names(setting));
    expect(run.stderr).not.toContain('    at ');
  });
});
