import { readFileSync, writeFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';

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

/**
 * The kubeconfig at `from` rewritten as JSON at `to`, for a measured process: the client reads a JSON
 * kubeconfig without loading the YAML parser, as a Pod that reads none at all never loads it.
 */
export function writeJsonKubeconfig(from: string, to: string): string {
  writeFileSync(to, JSON.stringify(parse(readFileSync(from, 'utf8'))), { mode: 0o600 });
  return to;
}
