import { describe, expect, it } from '@jest/globals';
import { CniInvocationError, CniPluginError } from './cni-error.ts';
import { type PluginExit, readPluginOutput } from './plugin-output.ts';

const ADD = { command: 'ADD', network: 'net-a', pluginType: 'sriov', configVersion: '1.0.0' } as const;
const exit = (code: number | null, stdout: string, stderr = '', signal: NodeJS.Signals | null = null): PluginExit => ({ code, signal, stdout, stderr });

function error(outcome: ReturnType<typeof readPluginOutput>): Error {
  if (outcome.ok) throw new Error('no error');
  return outcome.error;
}

describe('readPluginOutput', () => {
  it('turns a CNI error object into a CniPluginError with code, msg and details', () => {
    const failure = error(readPluginOutput(exit(1, '{"cniVersion":"1.0.0","code":11,"msg":"busy","details":"vf 3 locked"}'), ADD));
    expect(failure).toBeInstanceOf(CniPluginError);
    expect(failure).toMatchObject({ cniCode: 11, msg: 'busy', details: 'vf 3 locked', network: 'net-a', pluginType: 'sriov', command: 'ADD' });
    expect(failure.message).toBe('plugin type="sriov" failed (add) for network "net-a": CNI error 11: busy; vf 3 locked');
  });

  it('reports a failure without output with libcni’s words, with or without stderr', () => {
    expect(error(readPluginOutput(exit(1, ''), ADD)).message).toContain('netplugin failed with no error message: exit status 1');
    expect(error(readPluginOutput(exit(null, '', '', 'SIGSEGV'), ADD)).message).toContain('signal: SIGSEGV');
    expect(error(readPluginOutput(exit(1, '', 'no such device'), ADD))).toMatchObject({ code: 'PluginFailedWithoutError' });
    expect(error(readPluginOutput(exit(1, '', 'no such device'), ADD)).message).toContain('netplugin failed: "no such device"');
  });

  it('refuses a failure whose output is not a CNI error object', () => {
    const failure = error(readPluginOutput(exit(1, 'panic: runtime error'), ADD));
    expect(failure).toBeInstanceOf(CniInvocationError);
    expect(failure).toMatchObject({ code: 'InvalidPluginOutput' });
    expect(error(readPluginOutput(exit(1, '{"code":-1,"msg":"x"}'), ADD))).toMatchObject({ code: 'InvalidPluginOutput' });
  });

  it('gives a result without cniVersion the configuration version', () => {
    expect(readPluginOutput(exit(0, '{"ips":[{"address":"10.0.0.2/24"}]}'), ADD)).toEqual({
      ok: true,
      result: { cniVersion: '1.0.0', ips: [{ address: '10.0.0.2/24' }] },
    });
  });

  it('ignores the output of a successful DEL or CHECK', () => {
    expect(readPluginOutput(exit(0, 'not json'), { ...ADD, command: 'DEL' })).toEqual({ ok: true, result: undefined });
    expect(readPluginOutput(exit(0, ''), { ...ADD, command: 'CHECK' })).toEqual({ ok: true, result: undefined });
  });

  it('refuses a successful ADD without a result object', () => {
    expect(error(readPluginOutput(exit(0, ''), ADD))).toMatchObject({ code: 'InvalidPluginOutput' });
    expect(error(readPluginOutput(exit(0, '[1]'), ADD))).toMatchObject({ code: 'InvalidPluginOutput' });
  });
});
