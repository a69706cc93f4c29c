import { describe, expect, it } from '@jest/globals';
import { SriovDraError } from '@sriov-dra/contract';
import { startupFailureLine } from './startup-failure.ts';

describe('startupFailureLine', () => {
  it('is a typed error’s own message: code, subject, detail and remedy', () => {
    const error = new SriovDraError('InvalidKubeconfig', 'kubeconfig /k cannot be read', { object: { kind: 'Flag', name: '--kubeconfig' }, remedy: 'fix it' });
    expect(startupFailureLine('dra-driver', error)).toBe('InvalidKubeconfig: Flag --kubeconfig: kubeconfig /k cannot be read — fix it');
  });

  it('names the service of an error without a stable code, and how to see its stack', () => {
    const coded = Object.assign(new Error('listen EADDRINUSE: address already in use 0.0.0.0:1'), { code: 'EADDRINUSE' });
    expect(startupFailureLine('multus-live-read-proxy', coded)).toBe(
      'multus-live-read-proxy failed to start: listen EADDRINUSE: address already in use 0.0.0.0:1 — run with --log-level debug for the stack trace',
    );
    expect(startupFailureLine('dra-driver', 'thrown text')).toBe('dra-driver failed to start: thrown text — run with --log-level debug for the stack trace');
  });

  it('stays one line when the message has several', () => {
    expect(startupFailureLine('dra-driver', new Error('first\n  second\n'))).toBe(
      'dra-driver failed to start: first second — run with --log-level debug for the stack trace',
    );
  });
});
