import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { SriovDraError } from '@sriov-dra/contract';
import { z } from 'zod';
import { errorMessage } from './api-errors.ts';
import type { AuthMaterial, Credentials } from './credentials.ts';

/** The auth providers client-go no longer ships, with the exec plugin it names instead (as kubectl does). */
const REMOVED_PROVIDERS: Readonly<Record<string, string>> = { gcp: 'gke-gcloud-auth-plugin', azure: 'kubelogin' };

const discoverySchema = z.looseObject({ token_endpoint: z.url() });
const tokenResponseSchema = z.looseObject({ id_token: z.string().min(1), refresh_token: z.string().min(1).optional() });

/** Seconds since the epoch at which a JWT expires; undefined when it carries no readable exp. */
function expiry(jwt: string): number | undefined {
  const payload = jwt.split('.')[1];
  if (payload === undefined) return undefined;
  try {
    const exp = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp : undefined;
  } catch {
    return undefined;
  }
}

/** One HTTPS exchange with the identity provider; the body as JSON. */
function exchange(url: string, ca: Buffer | undefined, form?: { body: string; authorization: string }): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: form === undefined ? 'GET' : 'POST',
        ...(ca === undefined ? {} : { ca }),
        headers: {
          Accept: 'application/json',
          ...(form === undefined ? {} : { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: form.authorization }),
        },
        signal: AbortSignal.timeout(30_000),
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((response.statusCode ?? 0) >= 300) {
            reject(new Error(`HTTP ${String(response.statusCode)}: ${text.slice(0, 256)}`));
            return;
          }
          try {
            resolve(JSON.parse(text) as unknown);
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      },
    );
    req.on('error', reject);
    req.end(form?.body);
  });
}

/**
 * client-go's oidc auth provider: the id-token while it is valid, then a new one from the issuer's token
 * endpoint with the refresh-token. Unlike kubectl, a refreshed token is kept for this process only and
 * not written back into the kubeconfig.
 */
class OidcToken implements Credentials {
  private idToken: string | undefined;
  private refreshToken: string | undefined;
  private readonly config: Readonly<Record<string, string>>;
  private readonly owner: string;
  private readonly now: () => number;

  constructor(config: Readonly<Record<string, string>>, owner: string, now: () => number) {
    this.config = config;
    this.owner = owner;
    this.now = now;
    this.idToken = config['id-token'] === '' ? undefined : config['id-token'];
    this.refreshToken = config['refresh-token'] === '' ? undefined : config['refresh-token'];
    if (config['client-id'] === undefined || config['idp-issuer-url'] === undefined)
      throw this.failure('the oidc auth provider needs client-id and idp-issuer-url in its config');
  }

  private failure(detail: string, cause?: unknown): SriovDraError {
    return new SriovDraError('InvalidKubeconfig', `${this.owner}: ${detail}`, {
      remedy: 'log in with your identity provider again (e.g. kubectl oidc-login), or switch the user to an exec credential plugin',
      ...(cause === undefined ? {} : { cause }),
    });
  }

  private valid(token: string): boolean {
    const exp = expiry(token);
    return exp !== undefined && exp * 1000 > this.now();
  }

  private async renew(): Promise<string> {
    const { 'idp-issuer-url': issuer = '', 'client-id': clientID = '', 'client-secret': secret = '' } = this.config;
    const refreshToken = this.refreshToken;
    if (refreshToken === undefined) throw this.failure('the oidc id-token has expired and there is no refresh-token to renew it');
    const { 'idp-certificate-authority-data': caData, 'idp-certificate-authority': caFile } = this.config;
    try {
      const ca = caData !== undefined ? Buffer.from(caData, 'base64') : caFile !== undefined ? readFileSync(caFile) : undefined;
      const discovery = discoverySchema.parse(await exchange(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`, ca));
      const body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }).toString();
      const authorization = `Basic ${Buffer.from(`${encodeURIComponent(clientID)}:${encodeURIComponent(secret)}`).toString('base64')}`;
      const answer = tokenResponseSchema.parse(await exchange(discovery.token_endpoint, ca, { body, authorization }));
      this.idToken = answer.id_token;
      this.refreshToken = answer.refresh_token ?? refreshToken;
      return answer.id_token;
    } catch (error) {
      throw this.failure(`the oidc id-token could not be renewed at ${issuer}: ${errorMessage(error)}`, error);
    }
  }

  async current(): Promise<AuthMaterial> {
    const token = this.idToken !== undefined && this.valid(this.idToken) ? this.idToken : await this.renew();
    return { token };
  }

  /** After a 401 the token is renewed on the next request, if a refresh-token allows it. */
  refresh(): boolean {
    if (this.refreshToken === undefined) return false;
    this.idToken = undefined;
    return true;
  }
}

/** A kubeconfig user's auth-provider, as client-go resolves it today: oidc, or the removed providers' successors named. */
export function authProviderCredentials(
  provider: { name: string; config?: Readonly<Record<string, string>> | null },
  owner: string,
  now: () => number,
): Credentials {
  if (provider.name === 'oidc') return new OidcToken(provider.config ?? {}, owner, now);
  const successor = REMOVED_PROVIDERS[provider.name];
  if (successor !== undefined)
    throw new SriovDraError('InvalidKubeconfig', `${owner}: the ${provider.name} auth provider has been removed from Kubernetes clients`, {
      remedy: `use the "${successor}" credential plugin (an exec entry in the user), as kubectl requires since 1.26`,
    });
  throw new SriovDraError('InvalidKubeconfig', `${owner}: no auth provider named "${provider.name}"`, {
    remedy: 'use an exec credential plugin or a token in the user entry; only the oidc auth provider exists in Kubernetes clients',
  });
}
