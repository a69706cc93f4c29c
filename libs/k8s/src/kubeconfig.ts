import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve, sep } from 'node:path';
import { SriovDraError } from '@sriov-dra/contract';
import { z } from 'zod';
import { errorMessage } from './api-errors.ts';
import { authProviderCredentials } from './auth-provider.ts';
import { type ClientConfig, type Impersonation, type TlsSettings, proxyUrl, serverUrl } from './client-config.ts';
import { BasicAuth, type Credentials, FileToken, StaticToken } from './credentials.ts';
import { type ExecClusterInfo, ExecCredentials, execConfigSchema } from './exec-credential.ts';

// Only the file's outline is validated up front; an entry is validated in full when the chosen context
// uses it, so a broken entry nobody selects does not make the file unusable (kubectl behaves the same).
const fileSchema = z.looseObject({
  clusters: z.array(z.looseObject({ name: z.string().min(1), cluster: z.unknown() })).nullish(),
  users: z.array(z.looseObject({ name: z.string().min(1), user: z.unknown() })).nullish(),
  contexts: z.array(z.looseObject({ name: z.string().min(1), context: z.unknown() })).nullish(),
  'current-context': z.string().nullish(),
});

const contextSchema = z.looseObject({ cluster: z.string().min(1), user: z.string().nullish(), namespace: z.string().nullish() });

const clusterSchema = z.looseObject({
  server: z.string().min(1),
  'certificate-authority': z.string().nullish(),
  'certificate-authority-data': z.base64().nullish(),
  'insecure-skip-tls-verify': z.boolean().nullish(),
  'tls-server-name': z.string().nullish(),
  'proxy-url': z.string().nullish(),
  extensions: z.array(z.looseObject({ name: z.string(), extension: z.unknown() })).nullish(),
});

const userSchema = z
  .looseObject({
    'client-certificate': z.string().nullish(),
    'client-certificate-data': z.base64().nullish(),
    'client-key': z.string().nullish(),
    'client-key-data': z.base64().nullish(),
    token: z.string().nullish(),
    tokenFile: z.string().nullish(),
    exec: execConfigSchema.nullish(),
    username: z.string().nullish(),
    password: z.string().nullish(),
    'auth-provider': z.looseObject({ name: z.string().min(1), config: z.record(z.string(), z.string()).nullish() }).nullish(),
    as: z.string().nullish(),
    'as-uid': z.string().nullish(),
    'as-groups': z.array(z.string()).nullish(),
    'as-user-extra': z.record(z.string(), z.array(z.string())).nullish(),
  })
  .nullish();
type User = NonNullable<z.infer<typeof userSchema>>;

/** An entry of one kind, from the first file that defines its name. */
interface Entry {
  readonly value: unknown;
  /** The file it came from: relative paths in it resolve against that file's directory. */
  readonly file: string;
}

/** What a kubeconfig document (already parsed) contributes; the path resolves relative file names. */
export interface KubeconfigDocument {
  readonly path: string;
  readonly content: unknown;
}

export interface KubeconfigOptions {
  /** A context other than current-context. */
  readonly context?: string;
  /** Clock for exec credential expiry and token file re-reads (epoch milliseconds). */
  readonly now?: () => number;
}

/**
 * The kubeconfig files to use when none is named: the existing files of $KUBECONFIG (':'-separated; kubectl
 * skips missing ones), else ~/.kube/config if it exists; empty when there is none (then: in-cluster).
 */
export function defaultKubeconfigFiles(env: NodeJS.ProcessEnv = process.env): string[] {
  const listed = (env['KUBECONFIG'] ?? '').split(delimiter).filter((file) => file !== '');
  if (listed.length > 0) {
    const present = listed.filter((file) => existsSync(file));
    if (present.length === 0) throw new SriovDraError('InvalidKubeconfig', `none of the files in KUBECONFIG exists (${listed.join(delimiter)})`);
    return present;
  }
  const home = join(env['HOME'] ?? homedir(), '.kube', 'config');
  return existsSync(home) ? [home] : [];
}

const requireModule = createRequire(import.meta.url);

/**
 * A kubeconfig's document. JSON is YAML, so a JSON file is read as JSON; the YAML parser is loaded only for
 * the first file that is not, because it costs a node agent some 3.6 MiB of resident memory that a Pod
 * using its service account (no kubeconfig at all) or a JSON kubeconfig never needs.
 */
function parseKubeconfigText(text: string): unknown {
  if (text.trimStart().startsWith('{')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // Not JSON after all (YAML flow mappings start with "{" too): the YAML parser decides.
    }
  }
  const { parse } = requireModule('yaml') as typeof import('yaml');
  return parse(text) as unknown;
}

/** Reads and resolves kubeconfig files, merged as kubectl merges them. */
export function loadKubeconfig(files: readonly string[], options: KubeconfigOptions = {}): ClientConfig {
  return kubeconfigFrom(
    files.map((path) => {
      let content: unknown;
      try {
        content = parseKubeconfigText(readFileSync(path, 'utf8'));
      } catch (error) {
        throw new SriovDraError('InvalidKubeconfig', `kubeconfig ${path} cannot be read: ${errorMessage(error)}`, { cause: error });
      }
      return { path, content };
    }),
    options,
  );
}

/**
 * Merges parsed kubeconfig documents (the first to define a cluster, user or context name, or
 * current-context, wins) and resolves the chosen context into a ClientConfig: certificate files read,
 * credentials ready.
 */
export function kubeconfigFrom(documents: readonly KubeconfigDocument[], options: KubeconfigOptions = {}): ClientConfig {
  const origin = `kubeconfig ${documents.map((document) => document.path).join(delimiter)}`;
  const clusters = new Map<string, Entry>();
  const users = new Map<string, Entry>();
  const contexts = new Map<string, Entry>();
  let currentContext: string | undefined;
  for (const { path, content } of documents) {
    const parsed = fileSchema.safeParse(content ?? {});
    if (!parsed.success) throw invalid(`kubeconfig ${path}`, 'is not a kubeconfig', parsed.error);
    const file = parsed.data;
    addNew(
      clusters,
      file.clusters?.map((item) => [item.name, item.cluster]),
      path,
    );
    addNew(
      users,
      file.users?.map((item) => [item.name, item.user]),
      path,
    );
    addNew(
      contexts,
      file.contexts?.map((item) => [item.name, item.context]),
      path,
    );
    if (currentContext === undefined && present(file['current-context'])) currentContext = file['current-context'];
  }

  const contextName = options.context ?? currentContext;
  if (contextName === undefined) throw new SriovDraError('InvalidKubeconfig', `${origin}: current-context is not set and no context was named`);
  const contextEntry = contexts.get(contextName);
  if (contextEntry === undefined) throw new SriovDraError('InvalidKubeconfig', `${origin}: context "${contextName}" not found`);
  const context = validate(contextSchema, contextEntry.value, `${origin}: context "${contextName}"`);

  const clusterEntry = clusters.get(context.cluster);
  if (clusterEntry === undefined) throw new SriovDraError('InvalidKubeconfig', `${origin}: cluster "${context.cluster}" of context "${contextName}" not found`);
  const clusterOwner = `kubeconfig ${clusterEntry.file}: cluster "${context.cluster}"`;
  const cluster = validate(clusterSchema, clusterEntry.value, clusterOwner);

  const userName = context.user ?? '';
  const userEntry = present(userName) ? users.get(userName) : { value: {}, file: contextEntry.file };
  if (userEntry === undefined) throw new SriovDraError('InvalidKubeconfig', `${origin}: user "${userName}" of context "${contextName}" not found`);
  const userOwner = `kubeconfig ${userEntry.file}: user "${userName}"`;
  const user = validate(userSchema, userEntry.value, userOwner) ?? {};
  const impersonate = impersonationOf(user, userOwner);

  const ca = pem(cluster['certificate-authority-data'], at(clusterEntry, cluster['certificate-authority']), clusterOwner, 'certificate-authority');
  const insecure = cluster['insecure-skip-tls-verify'] === true;
  if (insecure && ca !== undefined)
    throw new SriovDraError('InvalidKubeconfig', `${clusterOwner}: certificate-authority and insecure-skip-tls-verify exclude each other`);
  const cert = pem(user['client-certificate-data'], at(userEntry, user['client-certificate']), userOwner, 'client-certificate');
  const key = pem(user['client-key-data'], at(userEntry, user['client-key']), userOwner, 'client-key');
  if ((cert === undefined) !== (key === undefined))
    throw new SriovDraError('InvalidKubeconfig', `${userOwner}: a client certificate needs its key and a key its certificate`);
  const tls: TlsSettings = {
    rejectUnauthorized: !insecure,
    ...(ca === undefined ? {} : { ca }),
    ...(cert === undefined || key === undefined ? {} : { cert, key }),
    ...(present(cluster['tls-server-name']) ? { servername: cluster['tls-server-name'] } : {}),
  };

  const execCluster: ExecClusterInfo = {
    server: cluster.server,
    ...(present(cluster['tls-server-name']) ? { 'tls-server-name': cluster['tls-server-name'] } : {}),
    ...(insecure ? { 'insecure-skip-tls-verify': true } : {}),
    ...(ca === undefined ? {} : { 'certificate-authority-data': ca.toString('base64') }),
    ...execExtension(cluster.extensions),
  };
  const credentials = credentialsOf(user, userEntry, userOwner, execCluster, options.now ?? Date.now);

  return {
    origin,
    context: contextName,
    clusterName: context.cluster,
    userName,
    server: serverUrl(cluster.server, clusterOwner),
    namespace: present(context.namespace) ? context.namespace : undefined,
    tls,
    credentials,
    ...(present(cluster['proxy-url']) ? { proxy: proxyUrl(cluster['proxy-url'], clusterOwner) } : {}),
    ...(impersonate === undefined ? {} : { impersonate }),
  };
}

/** The user entry's impersonation; as client-go, uid, groups or extra without a user to act as is an error. */
function impersonationOf(user: User, owner: string): Impersonation | undefined {
  const groups = user['as-groups'] ?? [];
  const extra = user['as-user-extra'] ?? {};
  if (present(user.as)) return { user: user.as, ...(present(user['as-uid']) ? { uid: user['as-uid'] } : {}), groups, extra };
  if (present(user['as-uid']) || groups.length > 0 || Object.keys(extra).length > 0)
    throw new SriovDraError('InvalidKubeconfig', `${owner}: as-uid, as-groups or as-user-extra are set without as, the user to impersonate`, {
      remedy: "name the user to act as in the user entry's as field, or remove the other as-* fields",
    });
  return undefined;
}

function present(value: string | null | undefined): value is string {
  return value !== undefined && value !== null && value !== '';
}

/**
 * client-go's precedence: a token file over an inline token, either over username and password; an
 * auth provider or an exec plugin when none of these is set (client-go refuses both at once).
 */
function credentialsOf(user: User, entry: Entry, owner: string, cluster: ExecClusterInfo, now: () => number): Credentials | undefined {
  if (user['auth-provider'] != null && user.exec != null)
    throw new SriovDraError('InvalidKubeconfig', `${owner}: auth-provider and exec exclude each other`, { remedy: 'keep one of them in the user entry' });
  const tokenFile = at(entry, user.tokenFile);
  if (tokenFile !== undefined) return new FileToken(tokenFile, owner, now);
  if (present(user.token)) return new StaticToken(user.token);
  if (present(user.username) || present(user.password)) return new BasicAuth(user.username ?? '', user.password ?? '');
  if (user['auth-provider'] != null) return authProviderCredentials(user['auth-provider'], owner, now);
  if (user.exec == null) return undefined;
  // A command with a directory part is relative to the kubeconfig; a bare name is looked up on PATH.
  const command = user.exec.command.includes(sep) ? resolve(dirname(entry.file), user.exec.command) : user.exec.command;
  return new ExecCredentials({ ...user.exec, command }, cluster, owner, now);
}

/** A file named in an entry, relative to the kubeconfig that holds the entry. */
function at(entry: Entry, path: string | null | undefined): string | undefined {
  return present(path) ? resolve(dirname(entry.file), path) : undefined;
}

/** Adds the entries whose names are not taken yet: the first file to define a name wins. */
function addNew(entries: Map<string, Entry>, items: readonly (readonly [string, unknown])[] | undefined, file: string): void {
  for (const [name, value] of items ?? []) if (!entries.has(name)) entries.set(name, { value, file });
}

/** Inline data (base64 in the kubeconfig) wins over a file, as in client-go. */
function pem(data: string | null | undefined, file: string | undefined, owner: string, field: string): Buffer | undefined {
  if (present(data)) return Buffer.from(data, 'base64');
  if (file === undefined) return undefined;
  try {
    return readFileSync(file);
  } catch (error) {
    throw new SriovDraError('InvalidKubeconfig', `${owner}: ${field} ${file} cannot be read: ${errorMessage(error)}`, { cause: error });
  }
}

function execExtension(extensions: readonly { name: string; extension: unknown }[] | null | undefined): { config?: unknown } {
  const found = extensions?.find((extension) => extension.name === 'client.authentication.k8s.io/exec');
  return found === undefined ? {} : { config: found.extension };
}

function validate<T>(schema: z.ZodType<T>, value: unknown, owner: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalid(owner, 'is malformed', parsed.error);
  return parsed.data;
}

function invalid(owner: string, what: string, error: z.ZodError): SriovDraError {
  const issues = error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
  return new SriovDraError('InvalidKubeconfig', `${owner} ${what}: ${issues}`, { cause: error });
}
