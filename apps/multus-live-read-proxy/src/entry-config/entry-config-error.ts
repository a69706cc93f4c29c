export type EntryConfigCode =
  | 'NoPrimaryCniConfig'
  | 'MalformedPrimaryCniConfig'
  | 'IncompatiblePrimaryCniVersion'
  | 'InvalidDaemonConfigKey'
  | 'UnresolvableUserCniConfigPath'
  | 'UnreadableUserCniConfig'
  | 'MalformedUserCniConfig'
  | 'UnwritableCniConfigDir';

const REMEDIES: Readonly<Record<EntryConfigCode, string>> = {
  NoPrimaryCniConfig:
    'install the cluster network plugin so it writes its .conf or .conflist into the directory; the daemon writes 00-multus.conf once it is there',
  MalformedPrimaryCniConfig: 'the cluster network plugin owns this file; fix or reinstall it so it is one JSON object with boolean capabilities',
  IncompatiblePrimaryCniVersion: 'give daemon-config.json a cniVersion the primary plugin supports (below 0.4.0 for a pre-0.4.0 plugin), or upgrade the plugin',
  InvalidDaemonConfigKey: 'give the key a value of the type named here in daemon-config.json and restart the daemon',
  UnresolvableUserCniConfigPath:
    'a relative multusConfigFile is resolved against the daemon\u2019s working directory, which is gone; give an absolute path in daemon-config.json and restart the daemon',
  UnreadableUserCniConfig:
    'mount the file into the daemon\u2019s container at this path as a regular file (or set multusConfigFile to "auto" in daemon-config.json) and restart the daemon',
  MalformedUserCniConfig:
    'the container runtime would not load it: make it a .conf or .json network configuration with a type, or a .conflist with a name and plugins that each have a type, and restart the daemon',
  UnwritableCniConfigDir:
    'mount the node\u2019s CNI configuration directory (cniConfigDir in daemon-config.json) writable into the daemon\u2019s container and restart the daemon',
};

/** Why the node's CNI entry configuration cannot be generated (auto mode) or installed from multusConfigFile; names the file at fault. */
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
