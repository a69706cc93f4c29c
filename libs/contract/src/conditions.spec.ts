import { describe, expect, it } from '@jest/globals';
import { DRA_CONFIGURATION_READY, draConfigurationReasons } from './conditions.ts';

// Condition type and reasons appear in SriovNetworkNodePolicy status, where administrators and alerts
// match them by name (§12.2.6): they are spelled exactly as the specification names them.
describe('DRAConfigurationReady condition', () => {
  it('has the type named by the specification', () => {
    expect(DRA_CONFIGURATION_READY).toBe('DRAConfigurationReady');
  });

  it('reports the reasons named by the specification', () => {
    expect(draConfigurationReasons).toEqual({
      applied: 'DRAConfigurationApplied',
      inactive: 'DRAInactive',
      invalidAttribute: 'InvalidDRAAttribute',
      sriovNetworkNotFound: 'SriovNetworkNotFound',
      sriovNetworkNotReady: 'SriovNetworkNotReady',
      sourceNadNotReady: 'SourceNADNotReady',
      sourceAccessDenied: 'SourceAccessDenied',
      conflictingMapping: 'ConflictingDRAMapping',
      unsupportedSelector: 'UnsupportedManagedSelector',
      syncFailed: 'DRAConfigurationSyncFailed',
    });
  });
});
