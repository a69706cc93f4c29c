// .dockerignore's rules as a build applies them to context-relative paths, and the repository's own: no
// install, build output or cache of this machine is in the images' build context.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { parseDockerignore } from './dockerignore.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('parseDockerignore', () => {
  it('matches * and ? within one path element, ** across any number, from the context root', () => {
    const rules = parseDockerignore('# a comment\n/build\n*.log\nsrc/?.tmp\n**/dist\ndocs/**/draft.md\n');
    expect(
      ['build', 'build/out.js', 'a.log', 'src/a.tmp', 'dist', 'libs/k8s/dist/index.js', 'docs/draft.md', 'docs/a/b/draft.md'].filter((p) => !rules.excluded(p)),
    ).toEqual([]);
    expect(['lib/build', 'logs/a.log', 'src/ab.tmp', 'distant/x', 'libs/k8s/dists', 'docs/a/draft.mdx'].filter((p) => rules.excluded(p))).toEqual([]);
  });

  it('lets a later ! line bring back what an earlier one excluded, the last matching line deciding', () => {
    const rules = parseDockerignore('*.md\n!README.md\nREADME*\n!docs\n');
    expect(rules.excluded('CHANGES.md')).toBe(true);
    expect(rules.excluded('README.md')).toBe(true);
    expect(parseDockerignore('*.md\n!README.md\n').excluded('README.md')).toBe(false);
  });
});

describe('the repository’s .dockerignore', () => {
  const rules = parseDockerignore(fs.readFileSync(`${ROOT}.dockerignore`, 'utf8'));

  it('keeps this machine’s installs, build output, caches and reports out of the images’ build context', () => {
    const kept = [
      'node_modules/zod/package.json',
      'libs/k8s/node_modules/x/index.js',
      'apps/dra-driver/dist/main.js',
      'libs/contract/dist/index.js',
      'apps/dra-driver/dist/.tsbuildinfo',
      '.nx/cache/run.json',
      '.git/HEAD',
      'reports/coverage/index.html',
      'bench-results/idle.json',
      'apps/dra-driver/src/driver.spec.ts',
    ].filter((file) => !rules.excluded(file));
    expect(kept).toEqual([]);
  });

  it('leaves in what the Dockerfiles copy: manifests, the lockfile, sources, the build configuration, the shim’s module', () => {
    const excluded = [
      'package.json',
      'package-lock.json',
      'tsconfig.base.json',
      'libs/k8s/package.json',
      'libs/k8s/tsconfig.build.json',
      'libs/k8s/src/index.ts',
      'apps/dra-driver/src/main.ts',
      'tools/multus-peer/go.mod',
    ].filter((file) => rules.excluded(file));
    expect(excluded).toEqual([]);
  });
});
