export type EntryConfigCode = 'NoPrimaryCniConfig' | 'MalformedPrimaryCniConfig' | 'IncompatiblePrimaryCniVersion' | 'InvalidDaemonConfigKey';

const REMEDIES: Readonly<Record<EntryConfigCode, string>> = {
  NoPrimaryCniConfig:
    'install the cluster network plugin so it writes its .conf or .conflist into the directory; the daemon writes 00-multus.conf once it is there',
  MalformedPrimaryCniConfig: 'the cluster network plugin owns this file; fix or reinstall it so it is one JSON object with boolean capabilities',
  IncompatiblePrimaryCniVersion: 'give daemon-config.json a cniVersion the primary plugin supports (below 0.4.0 for a pre-0.4.0 plugin), or upgrade the plugin',
  InvalidDaemonConfigKey: 'give the key a value of the type named here in daemon-config.json and restart the daemon',
};

/** Why the node's CNI entry configuration (00-multus.conf) cannot be generated; names the file at fault. */
export class EntryConfigError extends Error {
  override readonly name = 'EntryConfigError';
  readonly code: EntryConfigCode;
  readonly subject: string;

  constructor(code: EntryConfigCode, subject: string, detail: string) {
    super(`${code}: ${subject}: ${detail} \u2014 ${REMEDIES[code]}`);
    this.code = code;
    this.subject = subject;
  }
}
