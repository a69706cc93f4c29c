import { readFileSync } from 'node:fs';
import { SriovDraError } from '@sriov-dra/contract';
import { errorMessage } from './api-errors.ts';

/** What a request presents besides the cluster's TLS settings. */
export interface AuthMaterial {
  readonly token?: string;
  /** A username and password (kubeconfig `username`/`password`), sent as HTTP basic authentication. */
  readonly basic?: { readonly username: string; readonly password: string };
  /** A client certificate and key supplied at request time (by an exec plugin); PEM. */
  readonly cert?: Buffer;
  readonly key?: Buffer;
}

/**
 * Where a user's credentials come from. `current` may run a plugin or read a file; `refresh` is called
 * after the API server answered 401 and says whether asking again can produce something different.
 */
export interface Credentials {
  current(): Promise<AuthMaterial>;
  refresh(): boolean;
}

/** A token written in the kubeconfig: a 401 cannot be cured by asking again. */
export class StaticToken implements Credentials {
  private readonly material: AuthMaterial;

  constructor(token: string) {
    this.material = { token };
  }

  current(): Promise<AuthMaterial> {
    return Promise.resolve(this.material);
  }

  refresh(): boolean {
    return false;
  }
}

/** A username and password written in the kubeconfig: like a static token, asking again changes nothing. */
export class BasicAuth implements Credentials {
  private readonly material: AuthMaterial;

  constructor(username: string, password: string) {
    this.material = { basic: { username, password } };
  }

  current(): Promise<AuthMaterial> {
    return Promise.resolve(this.material);
  }

  refresh(): boolean {
    return false;
  }
}

/** How long a token read from a file is used before the file is read again (client-go's period). */
export const TOKEN_FILE_PERIOD_MS = 60_000;

/**
 * A token in a file that something else rotates (the kubelet, for a projected service-account token):
 * re-read once a minute, and at once after a 401. The first read happens on construction so an
 * unreadable file fails at startup; a later failed read keeps the last token, which the server judges.
 */
export class FileToken implements Credentials {
  private readonly path: string;
  private readonly now: () => number;
  /** Named in errors: which kubeconfig user or in-cluster setting points at the file. */
  private readonly owner: string;
  private token: string;
  private readAt: number;

  constructor(path: string, owner: string, now: () => number) {
    this.path = path;
    this.owner = owner;
    this.now = now;
    this.token = this.read();
    this.readAt = now();
  }

  private read(): string {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      throw new SriovDraError('InvalidKubeconfig', `${this.owner}: token file ${this.path} cannot be read: ${errorMessage(error)}`, { cause: error });
    }
    const token = text.trim();
    if (token === '') throw new SriovDraError('InvalidKubeconfig', `${this.owner}: token file ${this.path} is empty`);
    return token;
  }

  /** Re-reads the file; whether the token changed. */
  private reread(): boolean {
    const previous = this.token;
    try {
      this.token = this.read();
    } catch {
      // Mid-rotation the file can be briefly absent; the previous token is still the best guess.
    }
    this.readAt = this.now();
    return this.token !== previous;
  }

  current(): Promise<AuthMaterial> {
    if (this.now() - this.readAt >= TOKEN_FILE_PERIOD_MS) this.reread();
    return Promise.resolve({ token: this.token });
  }

  /** Only a rotated token is worth another attempt. */
  refresh(): boolean {
    return this.reread();
  }
}
