/** CNI network names (CNI spec): a letter or digit, then letters, digits, "_", "." or "-". */
const CNI_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

export function isCniNetworkName(value: string): boolean {
  return CNI_NAME.test(value);
}

/**
 * The source's effective CNI name (§7 step 3, §7.1): its own nonempty name, otherwise the source NAD's
 * metadata.name — what Multus's NAD client would use. Never the shadow's name and never prefixed with a
 * namespace: host-local keys its allocation store and Whereabouts its pools by this logical identity,
 * so changing it per shadow would hand out duplicate addresses.
 */
export function effectiveCniName(configName: string | undefined, sourceNadName: string): string {
  return configName === undefined || configName === '' ? sourceNadName : configName;
}
