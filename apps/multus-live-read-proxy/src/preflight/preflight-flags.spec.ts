import { describe, expect, it } from '@jest/globals';
import { parsePreflightFlags } from './preflight-flags.ts';

describe('parsePreflightFlags', () => {
  it('takes the driver namespace from the flag over DRIVER_NAMESPACE', () => {
    const parsed = parsePreflightFlags(['--driver-namespace', 'sriov-dra'], { DRIVER_NAMESPACE: 'other' });
    expect(parsed.ok && parsed.value.driverNamespace).toBe('sriov-dra');
    const fromEnv = parsePreflightFlags([], { DRIVER_NAMESPACE: 'other' });
    expect(fromEnv.ok && fromEnv.value.driverNamespace).toBe('other');
  });

  it('leaves the driver namespace unset (every namespace) when neither says one', () => {
    const parsed = parsePreflightFlags([], { DRIVER_NAMESPACE: '' });
    expect(parsed.ok && 'driverNamespace' in parsed.value).toBe(false);
  });

  it('refuses a driver namespace that is not a namespace name, naming the flag', () => {
    const parsed = parsePreflightFlags(['--driver-namespace', 'Not_A_Namespace'], {});
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error.code).toBe('InvalidComponentSetting');
      expect(parsed.error.message).toBe(
        'InvalidComponentSetting: Flag --driver-namespace: "Not_A_Namespace" is not a namespace name — fix the flag or option named in the message',
      );
    }
  });
});
