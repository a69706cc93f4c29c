// Lints probe files that cross a forbidden boundary, with the workspace's real ESLint configuration, and
// requires the boundary rule to fire. The rule silently skips itself without a project graph, so the
// test builds the graph first and fails if the rule reports nothing.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

const root = fileURLToPath(new URL('../../', import.meta.url));
const RULE = '@nx/enforce-module-boundaries';

async function boundaryErrors(file: string, source: string): Promise<string[]> {
  // The probe exists only in memory, so type-aware rules (which need files on disk) are switched off
  // for it; the boundary rule does not need types.
  const eslint = new ESLint({ cwd: root, overrideConfig: [{ files: ['**/boundary-probe.ts'], ...tseslint.configs.disableTypeChecked }] });
  const [result] = await eslint.lintText(source, { filePath: `${root}${file}` });
  return (result?.messages ?? []).filter((message) => message.ruleId === RULE).map((message) => message.message);
}

describe('module boundaries', () => {
  beforeAll(() => {
    // Writes .nx/workspace-data/project-graph.json, which the rule reads.
    execFileSync(process.execPath, [`${root}node_modules/nx/dist/bin/nx.js`, 'show', 'projects'], { cwd: root, stdio: 'ignore' });
  }, 120_000);

  it.each([
    ['a lib importing an app', 'libs/contract/src/boundary-probe.ts', "import '@sriov-dra/dra-driver';\n"],
    ['an app importing another app', 'apps/dra-driver/src/boundary-probe.ts', "import '@sriov-dra/multus-live-read-proxy';\n"],
  ])(
    'rejects %s',
    async (_case, file, source) => {
      const errors = await boundaryErrors(file, source);
      expect(errors).toEqual([expect.stringContaining('')]);
    },
    60_000,
  );

  it('accepts an app importing a shared lib', async () => {
    expect(await boundaryErrors('apps/dra-driver/src/boundary-probe.ts', "import '@sriov-dra/contract';\n")).toEqual([]);
  }, 60_000);
});
