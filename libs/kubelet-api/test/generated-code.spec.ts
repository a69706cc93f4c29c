// The committed src/gen must be exactly what `npm run proto` produces from proto/: regenerate into a
// temporary directory with the same template and formatter, then compare file by file.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';

const projectDir = fileURLToPath(new URL('..', import.meta.url));
const repoRoot = join(projectDir, '..', '..');
const committedDir = join(projectDir, 'src', 'gen');

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

async function regenerate(outDir: string): Promise<Map<string, string>> {
  execFileSync(join(repoRoot, 'node_modules', '.bin', 'buf'), ['generate', '../../proto', '--template', 'buf.gen.yaml', '-o', outDir], {
    cwd: projectDir,
    // The ts-proto plugin is a node script; run it with this Node, not whatever node is first on PATH.
    env: { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env['PATH'] ?? ''}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const generatedDir = join(outDir, 'src', 'gen');
  const files = new Map<string, string>();
  for (const file of listFiles(generatedDir)) {
    // Formatted as if the file sat at its committed path, so the repository's prettier config applies.
    const options = await prettier.resolveConfig(join(committedDir, file));
    files.set(file, await prettier.format(readFileSync(join(generatedDir, file), 'utf8'), { ...options, filepath: join(committedDir, file) }));
  }
  return files;
}

describe('generated kubelet API code', () => {
  it('matches a fresh generation from proto/ (run `npm run proto` after editing proto/)', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'kubelet-api-gen-'));
    try {
      const fresh = await regenerate(outDir);
      expect(listFiles(committedDir)).toEqual([...fresh.keys()]);
      for (const [file, content] of fresh) {
        expect({ file, content: readFileSync(join(committedDir, file), 'utf8') }).toEqual({ file, content });
      }
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('generates one module per kubelet API version', () => {
    expect(listFiles(committedDir)).toEqual([
      'deviceplugin/v1beta1/api.ts',
      'dra-health/v1alpha1/api.ts',
      'dra/v1/api.ts',
      'dra/v1beta1/api.ts',
      'pluginregistration/v1/api.ts',
      'podresources/v1/api.ts',
    ]);
  });
});
