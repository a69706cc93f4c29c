import { describe, expect, it } from '@jest/globals';
import { SriovDraError } from '@sriov-dra/contract';
import { HostOperationError } from '../device/host-operation-error.ts';
import { failureReason } from './failure-reason.ts';

describe('failureReason', () => {
  it('is the stable code of a typed error, host errors included, and Internal for anything else', () => {
    expect(failureReason(new SriovDraError('ShadowConflict', 'the object differs'))).toBe('ShadowConflict');
    expect(failureReason(new HostOperationError('DriverBindingFailed', '0000:3b:00.2', '/sys/bus/pci/drivers/mlx5_core/unbind', 'EIO'))).toBe(
      'DriverBindingFailed',
    );
    expect(failureReason(new TypeError('undefined is not a function'))).toBe('Internal');
    expect(failureReason('a string')).toBe('Internal');
  });
});
