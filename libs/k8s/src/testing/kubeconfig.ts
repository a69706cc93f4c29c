import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';

export type Credentials = { readonly cert: string; readonly key: string } | { readonly token: string };

/** Writes a single-context kubeconfig for `server`, trusting `caCert`. */
export function writeKubeconfig(path: string, server: string, caCert: string, user: string, credentials: Credentials): string {
  const userEntry = 'token' in credentials ? { token: credentials.token } : { 'client-certificate': credentials.cert, 'client-key': credentials.key };
  writeFileSync(
    path,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'sriov-dra-test', cluster: { server, 'certificate-authority': caCert } }],
      users: [{ name: user, user: userEntry }],
      contexts: [{ name: 'sriov-dra-test', context: { cluster: 'sriov-dra-test', user } }],
      'current-context': 'sriov-dra-test',
    }),
    { mode: 0o600 },
  );
  return path;
}
