import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

/** One YAML or JSON document of a manifest file, as plain data. */
export interface ManifestDocument {
  readonly file: string;
  /** 1-based position in the file's document stream. */
  readonly index: number;
  readonly value: unknown;
}

/** A path that could not be read or a document that could not be parsed: nothing in it was checked. */
export interface ManifestInputError {
  readonly file: string;
  readonly message: string;
}

export interface Manifests {
  readonly documents: readonly ManifestDocument[];
  readonly errors: readonly ManifestInputError[];
}

const MANIFEST_EXTENSIONS = ['.yaml', '.yml', '.json'];

/**
 * Every document of the named files and of the manifest files below the named directories (.yaml, .yml,
 * .json, in name order; hidden entries such as .git or a mounted volume's ..data are skipped). A file
 * named explicitly is read whatever its extension.
 */
export async function readManifests(paths: readonly string[]): Promise<Manifests> {
  const documents: ManifestDocument[] = [];
  const errors: ManifestInputError[] = [];
  for (const path of paths) {
    for (const file of await manifestFiles(path, errors)) {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        errors.push({ file, message: `cannot be read: ${(error as Error).message}` });
        continue;
      }
      parseDocuments(file, text, documents, errors);
    }
  }
  return { documents, errors };
}

async function manifestFiles(path: string, errors: ManifestInputError[]): Promise<string[]> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(path)).isDirectory();
  } catch (error) {
    errors.push({ file: path, message: `cannot be read: ${(error as Error).message}` });
    return [];
  }
  if (!isDirectory) return [path];
  const files: string[] = [];
  const entries = await readdir(path, { withFileTypes: true });
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name.startsWith('.')) continue;
    const child = join(path, entry.name);
    // A symbolic link is followed to a file but never into a directory, which could loop.
    if (entry.isDirectory()) files.push(...(await manifestFiles(child, errors)));
    else if (MANIFEST_EXTENSIONS.some((extension) => entry.name.endsWith(extension)) && (await isFile(child))) files.push(child);
  }
  return files;
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (stats) => stats.isFile(),
    () => false,
  );
}

/**
 * kubectl turns YAML into JSON with go-yaml v2, which reads YAML 1.1: an unquoted on, off, yes, no, y or n
 * is a boolean there, so `spoofChk: on` reaches the API server as `true`. Parsing as YAML 1.1 judges the
 * object the API server would receive. Duplicate keys are an error rather than a silent choice.
 */
function parseDocuments(file: string, text: string, documents: ManifestDocument[], errors: ManifestInputError[]): void {
  let index = 0;
  for (const document of parseAllDocuments(text, { version: '1.1', uniqueKeys: true, prettyErrors: true })) {
    index += 1;
    const [error] = document.errors;
    if (error !== undefined) {
      errors.push({ file, message: `document ${index} is not valid YAML: ${error.message.split('\n')[0] ?? ''}` });
      continue;
    }
    try {
      documents.push({ file, index, value: document.toJS() });
    } catch (cause) {
      // Alias expansion beyond toJS's limit ("billion laughs") ends up here.
      errors.push({ file, message: `document ${index} cannot be read: ${(cause as Error).message}` });
    }
  }
}
