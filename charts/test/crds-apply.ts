import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const OPERATOR_MAIN = fileURLToPath(new URL('../../apps/node-policy-operator/src/main.ts', import.meta.url));

/** `node-policy-operator crds apply`, the documented step before `helm install`, as a process of its own. */
export function crdsApply(kubeconfig: string, ...flags: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, ['--conditions=@sriov-dra/source', OPERATOR_MAIN, 'crds', 'apply', '--kubeconfig', kubeconfig, ...flags], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '' },
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}
