// `sriov-dra` as an administrator runs it: its own process from the sources, with nothing of the test's
// environment but PATH.
import { fileURLToPath } from 'node:url';
import { type EntryExit, runSourceEntry } from '@sriov-dra/k8s/testing';

const MAIN = fileURLToPath(new URL('../../src/admin/main.ts', import.meta.url));

export function sriovDra(...args: string[]): Promise<EntryExit> {
  return runSourceEntry(MAIN, args);
}
