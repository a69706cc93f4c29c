/** Status condition the operator sets on each SriovNetworkNodePolicy that carries spec.dra (§12.2.6). */
export const DRA_CONFIGURATION_READY = 'DRAConfigurationReady';

/**
 * Reasons for DRAConfigurationReady. True means the attributes/reference were validated and the generated
 * objects applied; it says nothing about a Pod's connectivity.
 */
export const draConfigurationReasons = {
  /** True: validated and applied. */
  applied: 'DRAConfigurationApplied',
  /** The block is stored but the DRA provider is disabled. */
  inactive: 'DRAInactive',
  invalidAttribute: 'InvalidDRAAttribute',
  sriovNetworkNotFound: 'SriovNetworkNotFound',
  sriovNetworkNotReady: 'SriovNetworkNotReady',
  sourceNadNotReady: 'SourceNADNotReady',
  sourceAccessDenied: 'SourceAccessDenied',
  conflictingMapping: 'ConflictingDRAMapping',
  unsupportedSelector: 'UnsupportedManagedSelector',
  syncFailed: 'DRAConfigurationSyncFailed',
} as const;

export type DraConfigurationReason = (typeof draConfigurationReasons)[keyof typeof draConfigurationReasons];
