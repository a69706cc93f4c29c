import { execFile } from 'node:child_process';
import { SriovDraError } from '@sriov-dra/contract';
import { z } from 'zod';
import { errorMessage } from './api-errors.ts';
import type { AuthMaterial, Credentials } from './credentials.ts';

/** The ExecCredential versions client-go still speaks (v1alpha1 was removed in Kubernetes 1.24). */
const EXEC_API_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'] as const;

/** A kubeconfig user's `exec` entry. */
export const execConfigSchema = z.looseObject({
  command: z.string().min(1),
  args: z.array(z.string()).nullish(),
  env: z.array(z.object({ name: z.string().min(1), value: z.string() })).nullish(),
  apiVersion: z.enum(EXEC_API_VERSIONS),
  installHint: z.string().optional(),
  provideClusterInfo: z.boolean().optional(),
  interactiveMode: z.enum(['Never', 'IfAvailable', 'Always']).optional(),
});
export type ExecConfig = z.infer<typeof execConfigSchema>;

/** The cluster as a plugin sees it in KUBERNETES_EXEC_INFO when the user sets provideClusterInfo. */
export interface ExecClusterInfo {
  readonly server: string;
  readonly 'tls-server-name'?: string;
  readonly 'insecure-skip-tls-verify'?: boolean;
  readonly 'certificate-authority-data'?: string;
  /** The cluster's `client.authentication.k8s.io/exec` extension, passed through untouched. */
  readonly config?: unknown;
}

const execCredentialSchema = z.object({
  apiVersion: z.enum(EXEC_API_VERSIONS),
  kind: z.literal('ExecCredential'),
  status: z
    .object({
      token: z.string().min(1).optional(),
      clientCertificateData: z.string().min(1).optional(),
      clientKeyData: z.string().min(1).optional(),
      expirationTimestamp: z.iso.datetime({ offset: true }).optional(),
    })
    .refine((status) => (status.clientCertificateData === undefined) === (status.clientKeyData === undefined), {
      error: 'clientCertificateData and clientKeyData come together',
    })
    .refine((status) => status.token !== undefined || status.clientCertificateData !== undefined, { error: 'neither a token nor a client certificate' }),
});

/** A plugin that does not answer in this time is treated as failed rather than stalling every request. */
const EXEC_TIMEOUT_MS = 60_000;

interface Cached {
  readonly material: AuthMaterial;
  /** Epoch milliseconds; undefined when the plugin gave no expiry (used until the server answers 401). */
  readonly expiresAt: number | undefined;
}

/**
 * An exec credential plugin (gke-gcloud-auth-plugin, aws eks get-token, kubelogin …): run with its
 * args and env plus KUBERNETES_EXEC_INFO, its ExecCredential cached until expirationTimestamp and
 * dropped after a 401. Concurrent requests share one run.
 */
export class ExecCredentials implements Credentials {
  private readonly exec: ExecConfig;
  private readonly cluster: ExecClusterInfo;
  /** Named in errors: the kubeconfig and user the plugin belongs to. */
  private readonly owner: string;
  private readonly now: () => number;
  private cached: Cached | undefined;
  private running: Promise<AuthMaterial> | undefined;

  constructor(exec: ExecConfig, cluster: ExecClusterInfo, owner: string, now: () => number) {
    this.exec = exec;
    this.cluster = cluster;
    this.owner = owner;
    this.now = now;
    if (exec.interactiveMode === 'Always')
      throw new SriovDraError('InvalidKubeconfig', `${owner}: exec plugin ${exec.command} needs an interactive terminal (interactiveMode: Always)`, {
        remedy: 'a service has no terminal; use a plugin or mode that obtains credentials non-interactively',
      });
  }

  current(): Promise<AuthMaterial> {
    const cached = this.cached;
    if (cached !== undefined && (cached.expiresAt === undefined || this.now() < cached.expiresAt)) return Promise.resolve(cached.material);
    this.running ??= this.run().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  refresh(): boolean {
    this.cached = undefined;
    return true;
  }

  private async run(): Promise<AuthMaterial> {
    const stdout = await this.spawn();
    let credential: z.infer<typeof execCredentialSchema>;
    try {
      credential = execCredentialSchema.parse(JSON.parse(stdout));
    } catch (error) {
      throw this.failure(`printed no valid ExecCredential: ${errorMessage(error).slice(0, 512)}`, error);
    }
    if (credential.apiVersion !== this.exec.apiVersion) throw this.failure(`answered in ${credential.apiVersion}, not the requested ${this.exec.apiVersion}`);
    const { token, clientCertificateData, clientKeyData, expirationTimestamp } = credential.status;
    const material: AuthMaterial = {
      ...(token === undefined ? {} : { token }),
      ...(clientCertificateData === undefined || clientKeyData === undefined
        ? {}
        : { cert: Buffer.from(clientCertificateData), key: Buffer.from(clientKeyData) }),
    };
    this.cached = { material, expiresAt: expirationTimestamp === undefined ? undefined : Date.parse(expirationTimestamp) };
    return material;
  }

  private spawn(): Promise<string> {
    const info = {
      apiVersion: this.exec.apiVersion,
      kind: 'ExecCredential',
      spec: { interactive: false, ...(this.exec.provideClusterInfo === true ? { cluster: this.cluster } : {}) },
    };
    const env = {
      ...process.env,
      ...Object.fromEntries((this.exec.env ?? []).map(({ name, value }) => [name, value])),
      KUBERNETES_EXEC_INFO: JSON.stringify(info),
    };
    return new Promise((resolve, reject) => {
      const child = execFile(this.exec.command, this.exec.args ?? [], { env, timeout: EXEC_TIMEOUT_MS, encoding: 'utf8' }, (error, stdout, stderr) => {
        if (error === null) {
          resolve(stdout);
          return;
        }
        const missing = (error as { code?: unknown }).code === 'ENOENT';
        const detail = missing ? 'not found' : `failed (${error.killed ? 'timed out' : `exit ${String(error.code)}`}): ${stderr.trim().slice(-512)}`;
        reject(this.failure(detail, error, missing ? this.exec.installHint : undefined));
      });
      // Non-interactive: the plugin reads nothing from us.
      child.stdin?.end();
    });
  }

  private failure(detail: string, cause?: unknown, remedy?: string): SriovDraError {
    return new SriovDraError('InvalidKubeconfig', `${this.owner}: exec plugin ${this.exec.command} ${detail}`, { cause, remedy });
  }
}
