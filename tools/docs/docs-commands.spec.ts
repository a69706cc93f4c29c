// The documentation against the workspace: every ```sh block of README.md, docs/ and the examples' READMEs
// names only npm scripts, files, subcommands and flags that exist, every block marked ```sh runnable runs and
// exits 0, and every relative link names a file (and heading) that exists.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it, jest } from '@jest/globals';
import { type ShellBlock, type Workspace, checkBlock, shellBlocks, simpleCommands, tokenize } from './doc-commands.ts';
import { checkLinks, headingAnchors } from './doc-links.ts';
import { documentationFiles, localLinkWorkspace, localWorkspace, runBlock } from './workspace-docs.ts';

jest.setTimeout(300_000);

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FILES = documentationFiles(ROOT);
const blocksOf = (file: string): ShellBlock[] => shellBlocks(file, fs.readFileSync(path.join(ROOT, file), 'utf8'));
const block = (text: string): ShellBlock => ({ file: 'probe.md', line: 1, runnable: false, text });

let workspace: Workspace;
beforeAll(() => {
  workspace = localWorkspace(ROOT);
});

describe('shell blocks in the documentation', () => {
  it('are found in README.md and docs/', () => {
    expect(FILES).toContain('README.md');
    expect(blocksOf('README.md').map((found) => found.text)).toEqual(expect.arrayContaining(['npm ci && npm run demo', 'npm run binaries && npm test']));
  });

  it("include the README's test command as CI runs it (.ci/run: npm run binaries, then npm test)", () => {
    const ci = fs.readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8').split('\n');
    const binaries = ci.findIndex((line) => line.trim() === 'npm run binaries');
    const test = ci.findIndex((line) => /^npm test\b/.test(line.trim()));
    expect({ binaries: binaries !== -1, test: test !== -1, order: binaries < test }).toEqual({ binaries: true, test: true, order: true });
  });

  it.each(FILES)('%s names only scripts, files, subcommands and flags that exist', (file) => {
    const findings = blocksOf(file).flatMap((found) =>
      checkBlock(found, workspace).map((finding) => `${file}:${String(found.line)}: ${finding.command}: ${finding.problem}`),
    );
    expect(findings).toEqual([]);
  });

  const runnable = FILES.flatMap((file) => blocksOf(file).filter((found) => found.runnable));
  it('has runnable blocks', () => {
    expect(runnable.length).toBeGreaterThan(0);
  });
  it.each(runnable.map((found) => [`${found.file}:${String(found.line)}`, found] as const))('runnable block %s exits 0', (_where, found) => {
    const result = runBlock(ROOT, found);
    expect({ status: result.status, output: result.output }).toEqual({ status: 0, output: expect.any(String) });
  });
});

describe('links in the documentation', () => {
  it.each(FILES)('%s links only to files and headings that exist', (file) => {
    expect(checkLinks(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), localLinkWorkspace(ROOT))).toEqual([]);
  });

  it('report a missing file and a missing heading, and ignore links in code', () => {
    const markdown = [
      '[ok](operations.md#first-rollout) [gone](no-such-page.md) [bad anchor](operations.md#no-such-heading)',
      '[web](https://example.com/x) `[code](nowhere.md)` [self](#links) [self, bad](#nope)',
      '```',
      '[fenced](nowhere.md)',
      '```',
      '## Links',
    ].join('\n');
    expect(checkLinks('docs/probe.md', markdown, localLinkWorkspace(ROOT))).toEqual([
      { file: 'docs/probe.md', target: 'no-such-page.md', problem: 'no file docs/no-such-page.md' },
      { file: 'docs/probe.md', target: 'operations.md#no-such-heading', problem: 'no heading #no-such-heading in docs/operations.md' },
      { file: 'docs/probe.md', target: '#nope', problem: 'no heading #nope in docs/probe.md' },
    ]);
  });

  it('anchor headings as GitHub does', () => {
    expect([...headingAnchors('# A: b (c, d)\n## When `spec.dra` is missing\n## A: b (c, d)\n## 1–25 nodes')]).toEqual([
      'a-b-c-d',
      'when-specdra-is-missing',
      'a-b-c-d-1',
      '125-nodes',
    ]);
  });
});

describe('the checks', () => {
  it('skip a here-document body', () => {
    expect(simpleCommands("kubectl apply -f - <<'EOF'\nnpm run not-a-command\nEOF\nnpm test")).toEqual([
      ['kubectl', 'apply', '-f', '-', '<<EOF'],
      ['npm', 'test'],
    ]);
  });

  it('split a block into simple commands, dropping comments and joining continued lines', () => {
    expect(simpleCommands('npm ci && npm run demo  # the demo\nhelm install x \\\n  charts/sriov-dra | tee log')).toEqual([
      ['npm', 'ci'],
      ['npm', 'run', 'demo'],
      ['helm', 'install', 'x', 'charts/sriov-dra'],
      ['tee', 'log'],
    ]);
    expect(tokenize(`kubectl get nad -l 'a=b c' # note`)).toEqual(['kubectl', 'get', 'nad', '-l', 'a=b c']);
  });

  it('read the info string: only sh blocks, runnable when marked', () => {
    const markdown = ['```sh', 'npm test', '```', '```text', 'npm run nothing', '```', '```sh runnable', 'true', '```'].join('\n');
    expect(shellBlocks('x.md', markdown)).toEqual([
      { file: 'x.md', line: 1, runnable: false, text: 'npm test' },
      { file: 'x.md', line: 7, runnable: true, text: 'true' },
    ]);
  });

  it('accept commands that name what exists', () => {
    const text = [
      'npm run binaries && npm test',
      'npx node --conditions=@sriov-dra/source apps/dra-driver/src/main.ts --help',
      'npx node-policy-operator validate -f charts/sriov-dra --operator-namespace x',
      'kubectl exec pod-a -- node apps/multus-live-read-proxy/dist/main.js preflight --driver-namespace sriov-dra',
      'sriov-dra inspect pod ns/name --driver-user u -o json',
    ].join('\n');
    expect(checkBlock(block(text), workspace)).toEqual([]);
  });

  it('report a missing npm script, file, subcommand and flag', () => {
    const text = [
      'npm run no-such-script',
      'helm install x charts/no-such-chart',
      'npx sriov-dra no-such-command',
      'npx node-policy-operator run --no-such-flag=1',
      'kubectl exec pod-a -- node apps/multus-live-read-proxy/dist/main.js preflight --no-such-flag',
      'node --conditions=@sriov-dra/source apps/dra-driver/src/main.ts --no-such-flag',
    ].join('\n');
    expect(checkBlock(block(text), workspace).map((finding) => finding.problem)).toEqual([
      'package.json has no script no-such-script',
      'no file charts/no-such-chart in the repository',
      'sriov-dra has no subcommand "no-such-command"',
      'node-policy-operator run --help lists no --no-such-flag',
      'multus-live-read-proxy preflight --help lists no --no-such-flag',
      'sriov-dra-driver --help lists no --no-such-flag',
    ]);
  });

  it('run a runnable block and report its failure', () => {
    expect(runBlock(ROOT, { ...block('npx sriov-dra --help'), runnable: true }).status).toBe(0);
    const failed = runBlock(ROOT, { ...block('npx sriov-dra --help\nnpx sriov-dra no-such-command\necho not reached'), runnable: true });
    expect(failed.status).not.toBe(0);
    expect(failed.output).toContain('unknown command "no-such-command"');
    expect(failed.output).not.toContain('not reached');
  });
});
