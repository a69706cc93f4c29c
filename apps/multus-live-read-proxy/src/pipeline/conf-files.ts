import { readFile, readdir, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { type Result, fail, ok } from '@sriov-dra/contract';

/** A network configuration read from a CNI file: its CNI name and its exact bytes. */
export interface ConfFile {
  readonly name: string;
  readonly path: string;
  readonly bytes: string;
}

/** libcni's ConfFiles extensions, in the order Multus searches a directory (files sorted by name). */
const CONF_EXTENSIONS: ReadonlySet<string> = new Set(['.conf', '.conflist', '.json']);

function cniName(bytes: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(bytes);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    const name = (parsed as Record<string, unknown>)['name'];
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}

async function confFilesIn(dir: string): Promise<string[]> {
  const names = await readdir(dir);
  return names
    .filter((name) => CONF_EXTENSIONS.has(extname(name)))
    .sort()
    .map((name) => join(dir, name));
}

/**
 * Multus's GetCNIConfigFromFile: the first CNI file of `dir` (sorted) whose network name is `name`, or the
 * first readable one when `name` is empty. Unparsable files are passed over, as Multus does.
 */
export async function findConfByName(dir: string, name: string): Promise<Result<ConfFile>> {
  let files: string[];
  try {
    files = await confFilesIn(dir);
  } catch (error) {
    return fail('NetworkNotFound', `cannot list the CNI configuration directory ${dir}: ${error instanceof Error ? error.message : String(error)}`);
  }
  for (const path of files) {
    const bytes = await readFile(path, 'utf8').catch(() => undefined);
    if (bytes === undefined) continue;
    const found = cniName(bytes);
    if (found !== undefined && (name === '' || found === name)) return ok({ name: found, path, bytes });
  }
  return fail('NetworkNotFound', `no CNI configuration named ${JSON.stringify(name)} in ${dir}`);
}

/** A cluster or default network given as a path: a directory (its first CNI file) or one file. */
export async function readConfPath(path: string): Promise<Result<ConfFile>> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(path)).isDirectory();
  } catch (error) {
    return fail('NetworkNotFound', `the network path ${path} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (isDirectory) return findConfByName(path, '');
  try {
    const bytes = await readFile(path, 'utf8');
    const name = cniName(bytes);
    if (name === undefined) return fail('MalformedCniConfig', `${path} is not a CNI configuration with a name`);
    return ok({ name, path, bytes });
  } catch (error) {
    return fail('NetworkNotFound', `the network file ${path} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
}
