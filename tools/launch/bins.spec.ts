// Every package bin as npm links it into node_modules/.bin: a launcher committed with its executable bit,
// answering --version with its package's release and the commit the image build sets; and the admin
// command as a kubectl plugin, found by the real kubectl on PATH.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, jest } from '@jest/globals';
import { controlPlaneBinaries } from '@sriov-dra/k8s/testing';

jest.setTimeout(60_000);

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COMMIT = '0123456789abcdef0123456789abcdef01234567-dirty';
const BIN_DIR = path.join(ROOT, 'node_modules', '.bin');
/** Only the workspace's links and its pinned Node.js come before the system's tools. */
const PATH = `${BIN_DIR}:/usr/bin:/bin`;

/** Each bin, the program name its version line starts with, and the package it belongs to. */
const BINS: Readonly<Record<string, { readonly program: string; readonly app: string }>> = {
  'sriov-dra': { program: 'sriov-dra', app: 'dra-driver' },
  'kubectl-sriov_dra': { program: 'sriov-dra', app: 'dra-driver' },
  'sriov-dra-driver': { program: 'sriov-dra-driver', app: 'dra-driver' },
  'multus-live-read-proxy': { program: 'multus-live-read-proxy', app: 'multus-live-read-proxy' },
  'node-policy-operator': { program: 'node-policy-operator', app: 'node-policy-operator' },
};

function packageBins(app: string): Record<string, string> {
  return (JSON.parse(fs.readFileSync(path.join(ROOT, 'apps', app, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin;
}

const packageVersion = (app: string): string =>
  (JSON.parse(fs.readFileSync(path.join(ROOT, 'apps', app, 'package.json'), 'utf8')) as { version: string }).version;

describe('package bins', () => {
  it('are the ones listed here, across the apps', () => {
    const declared = fs.readdirSync(path.join(ROOT, 'apps')).flatMap((app) => Object.keys(packageBins(app)));
    expect(declared.sort()).toEqual(Object.keys(BINS).sort());
  });

  it.each(Object.entries(BINS))('%s points at a launcher committed as an executable with a node shebang', (bin, { app }) => {
    const target = path.posix.join('apps', app, packageBins(app)[bin] ?? '');
    // Mode 100755 in the index: what a fresh clone checks out, so npm links it and kubectl runs it.
    expect(execFileSync('git', ['-C', ROOT, 'ls-files', '--stage', '--', target], { encoding: 'utf8' })).toMatch(
      new RegExp(`^100755 [0-9a-f]{40} 0\t${target}\n$`),
    );
    expect(fs.readFileSync(path.join(ROOT, target), 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
  });

  it.each(Object.entries(BINS))('%s --version prints its release and the commit the image build set', (bin, { program, app }) => {
    const run = spawnSync(path.join(BIN_DIR, bin), ['--version'], { encoding: 'utf8', env: { PATH, SRIOV_DRA_GIT_COMMIT: COMMIT } });
    expect(run).toMatchObject({ status: 0, stdout: `${program} ${packageVersion(app)} (commit ${COMMIT})\n`, stderr: '' });
  });
});

describe('kubectl sriov-dra', () => {
  const kubectl = (args: readonly string[]): ReturnType<typeof spawnSync> =>
    spawnSync(controlPlaneBinaries().kubectl, args, { encoding: 'utf8', env: { PATH, HOME: process.env['HOME'] ?? '/', SRIOV_DRA_GIT_COMMIT: COMMIT } });

  it('runs the admin command: kubectl finds kubectl-sriov_dra on PATH', () => {
    expect(kubectl(['sriov-dra', '--version'])).toMatchObject({ status: 0, stdout: `sriov-dra ${packageVersion('dra-driver')} (commit ${COMMIT})\n` });
  });

  it('is listed by kubectl plugin list', () => {
    const list = kubectl(['plugin', 'list', '--name-only']);
    expect(list.status).toBe(0);
    expect(String(list.stdout).split('\n')).toContain('kubectl-sriov_dra');
  });
});
