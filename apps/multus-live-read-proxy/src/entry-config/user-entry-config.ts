import { constants } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { type JsonValue, isJsonObject, parseStrictJson } from '@sriov-dra/contract';
import { writeFileAtomic } from '@sriov-dra/durable-files';
import type { DaemonConfig } from '../daemon-config.ts';
import { EntryConfigError } from './entry-config-error.ts';
import { member } from './entry-config.ts';

/**
 * The node's CNI entry configuration when daemon-config.json names one (multusConfigFile other than
 * "auto"): as upstream (v4.2.3), the file is copied once at start into cniConfigDir under its own base
 * name, a relative path being taken from the working directory as Go's filepath.Abs does. Upstream logs
 * a failed copy and serves on, leaving the node without secondary networks and nothing but a log line
 * to say why; here every failure is an EntryConfigError that stops the start. The copy replaces the
 * destination atomically, since the runtime scans that directory at any moment. Upstream copies any
 * bytes; the source is checked first here for the members libcni cannot load a file without, so a file
 * the runtime would skip is refused while an operator is still watching the rollout.
 */

/** What the runtime's libcni reads from a CNI configuration directory (filepath.Ext of each name). */
const RUNTIME_EXTENSIONS = ['.conf', '.conflist', '.json'];

/** Where the file goes: upstream's cniConfigDir + "/" + filepath.Base(multusConfigFile). */
export function userEntryConfigPath(config: DaemonConfig): string {
  return join(config.cniConfigDir, basename(config.multusConfigFile));
}

/** Go's filepath.Ext: from the last dot of the name, a leading dot included (libcni loads a file named ".conf"). */
function goExt(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot);
}

/** A plugin configuration libcni accepts: an object whose type, matched as Go matches a struct field, is a nonempty string. */
function hasType(plugin: JsonValue): boolean {
  if (!isJsonObject(plugin)) return false;
  const type = member(plugin, 'type');
  return typeof type === 'string' && type !== '';
}

/**
 * Refuses a file libcni would not load (ConfFromBytes, ConfListFromBytes): a .conflist needs a string
 * name and a nonempty plugins array (its root read as a map, keys exact) of plugins with a type, any
 * other file a type itself. The JSON is parsed as each request's shim configuration is
 * (daemon-config.ts), so a repeated key, which Go would take silently but this daemon refuses on every
 * request, is refused here already.
 */
export function checkRuntimeLoadable(bytes: Buffer, path: string): void {
  const malformed = (detail: string): EntryConfigError => new EntryConfigError('MalformedUserCniConfig', path, detail);
  const extension = goExt(basename(path));
  if (!RUNTIME_EXTENSIONS.includes(extension)) {
    throw malformed(`the container runtime loads only ${RUNTIME_EXTENSIONS.join(', ')} files from the CNI configuration directory`);
  }
  const parsed = parseStrictJson(bytes.toString('utf8'));
  if (!parsed.ok) throw malformed(`${parsed.error.message} at byte ${parsed.error.position}`);
  const root = parsed.value;
  if (!isJsonObject(root)) throw malformed('the document is not a JSON object');
  if (extension !== '.conflist') {
    if (!hasType(root)) throw malformed('the network configuration has no type');
    return;
  }
  if (typeof root.get('name') !== 'string') throw malformed('the network configuration list has no string name');
  const plugins = root.get('plugins');
  if (!Array.isArray(plugins) || plugins.length === 0) throw malformed('the network configuration list has no plugins');
  const untyped = plugins.findIndex((plugin) => !hasType(plugin));
  if (untyped >= 0) throw malformed(`plugins[${untyped}] has no type`);
}

/** Go's filepath.Abs: a relative path is joined to the working directory, which may no longer exist. */
function absolute(path: string): string {
  try {
    return resolve(path);
  } catch (error) {
    throw new EntryConfigError('UnresolvableUserCniConfigPath', path, (error as Error).message);
  }
}

/** The whole file; non-blocking, so that a FIFO at the path is refused instead of waiting for a writer. */
async function readRegularFile(path: string): Promise<Buffer> {
  try {
    const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw new EntryConfigError('UnreadableUserCniConfig', path, 'it is not a regular file');
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof EntryConfigError) throw error;
    throw new EntryConfigError('UnreadableUserCniConfig', path, (error as Error).message);
  }
}

export interface InstalledUserEntryConfig {
  /** The configured file, made absolute. */
  readonly source: string;
  /** <cniConfigDir>/<its base name>. */
  readonly path: string;
  /** 'unchanged' when the destination already held these bytes (it is then not rewritten). */
  readonly outcome: 'copied' | 'unchanged';
}

/**
 * Installs multusConfigFile into cniConfigDir. Nothing is written unless the source was read whole and
 * checked, and nothing but the destination is created. A destination already holding the same bytes is
 * left alone: a rewrite would wake the runtime's watch for nothing, and a source that is itself the
 * destination stays intact (upstream truncates it to nothing then).
 */
export async function installUserEntryConfig(config: DaemonConfig): Promise<InstalledUserEntryConfig> {
  // Resolved before the first await, so the working directory is the one at the call.
  const source = absolute(config.multusConfigFile);
  const path = userEntryConfigPath(config);
  const bytes = await readRegularFile(source);
  checkRuntimeLoadable(bytes, source);
  const current = await readFile(path).catch(() => undefined);
  if (current?.equals(bytes) === true) return { source, path, outcome: 'unchanged' };
  try {
    await writeFileAtomic(path, bytes);
  } catch (error) {
    throw new EntryConfigError('UnwritableCniConfigDir', path, (error as Error).message);
  }
  return { source, path, outcome: 'copied' };
}
