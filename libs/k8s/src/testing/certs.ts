import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ClientCertificate {
  readonly cert: string;
  readonly key: string;
}

function openssl(args: readonly string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

function ecKey(dir: string, name: string): string {
  const path = join(dir, `${name}.key`);
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', path], dir);
  return path;
}

/**
 * A throwaway PKI for one control plane: a CA, an API server serving certificate for 127.0.0.1 and
 * localhost, and client certificates whose subject maps to a Kubernetes user and groups.
 */
export class LocalPki {
  readonly dir: string;
  readonly caCert: string;
  private readonly caKey: string;
  private serial = 1;

  constructor(dir: string) {
    this.dir = dir;
    this.caKey = ecKey(dir, 'ca');
    this.caCert = join(dir, 'ca.crt');
    openssl(['req', '-x509', '-new', '-key', this.caKey, '-subj', '/CN=sriov-dra-test-ca', '-days', '2', '-out', this.caCert], dir);
  }

  private issue(name: string, subject: string, extensions: string): ClientCertificate {
    const key = ecKey(this.dir, name);
    const csr = join(this.dir, `${name}.csr`);
    const ext = join(this.dir, `${name}.ext`);
    const cert = join(this.dir, `${name}.crt`);
    writeFileSync(ext, extensions);
    openssl(['req', '-new', '-key', key, '-subj', subject, '-out', csr], this.dir);
    openssl(
      ['x509', '-req', '-in', csr, '-CA', this.caCert, '-CAkey', this.caKey, '-set_serial', String(this.serial++), '-days', '2', '-extfile', ext, '-out', cert],
      this.dir,
    );
    return { cert, key };
  }

  /** A serving certificate for loopback (127.0.0.1, localhost) and `alternativeNames` (`IP:…`, `DNS:…`). */
  serving(name: string, alternativeNames: readonly string[] = []): ClientCertificate {
    const names = ['IP:127.0.0.1', 'DNS:localhost', ...alternativeNames].join(',');
    return this.issue(name, `/CN=${name}`, `subjectAltName=${names}\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature\n`);
  }

  /** Kubernetes reads the user from CN and groups from O. */
  client(user: string, groups: readonly string[] = []): ClientCertificate {
    const subject = `${groups.map((group) => `/O=${group}`).join('')}/CN=${user}`;
    return this.issue(user.replaceAll(':', '-'), subject, 'extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature\n');
  }
}
