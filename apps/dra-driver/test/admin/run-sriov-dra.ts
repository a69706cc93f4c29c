// `sriov-dra` as an administrator runs it: its own process from the sources, with nothing of the test's
// environment but PATH and what a case sets.
import { fileURLToPath } from 'node:url';
import { type EntryExit, runSourceEntry } from '@sriov-dra/k8s/testing';

const MAIN = fileURLToPath(new URL('../../src/admin/main.ts', import.meta.url));

export function sriovDra(...args: string[]): Promise<EntryExit> {
  return runSourceEntry(MAIN, args);
}

/** `sriov-dra` with these environment variables set (e.g. HTTPS_PROXY). */
export function sriovDraWith(env: Readonly<Record<string, string>>, ...args: string[]): Promise<EntryExit> {
  return runSourceEntry(MAIN, args, env);
}
