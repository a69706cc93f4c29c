import { describe, expect, it } from '@jest/globals';
import { goTrimSpace } from '@sriov-dra/cni-render';
import { cniRequestFromShim, parseCniArgs } from './cni-request.ts';
import { isDaemonServerError } from './daemon-server-error.ts';

const shim = (env: Record<string, string>) => ({ env, config: Buffer.from('{}'), interfaceAttributes: undefined });
const codeOf = (run: () => unknown): string | undefined => {
  try {
    run();
  } catch (error) {
    return isDaemonServerError(error) ? error.code : 'untyped';
  }
  return undefined;
};

describe('parseCniArgs', () => {
  it('splits on ";" then "=", trimming keys and values as Go strings.TrimSpace does', () => {
    expect(parseCniArgs(' K8S_POD_NAME = a ;K8S_POD_NAMESPACE=\u0085ns\u00a0', 's')).toEqual([
      ['K8S_POD_NAME', 'a'],
      ['K8S_POD_NAMESPACE', 'ns'],
    ]);
  });

  it.each(['', 'A=1;', 'A', 'A=1=2', 'A=1;;B=2'])('rejects %j: every part needs exactly one "="', (args) => {
    expect(codeOf(() => parseCniArgs(args, 's'))).toBe('InvalidCniArgs');
  });

  it('keeps U+FEFF, which Go does not count as space', () => {
    expect(goTrimSpace('\ufeffa ')).toBe('\ufeffa');
  });
});

describe('cniRequestFromShim', () => {
  const attachment = { CNI_CONTAINERID: 'c1', CNI_NETNS: '/var/run/netns/x', CNI_ARGS: 'K8S_POD_NAME=p' };

  it('defaults CNI_IFNAME to eth0 and CNI_PATH to empty', () => {
    const request = cniRequestFromShim(shim({ CNI_COMMAND: 'ADD', ...attachment }));
    expect(request).toMatchObject({ command: 'ADD', containerID: 'c1', netns: '/var/run/netns/x', ifName: 'eth0', path: '', args: [['K8S_POD_NAME', 'p']] });
  });

  it.each(['ADD', 'DEL', 'CHECK'])('%s needs CNI_CONTAINERID, CNI_NETNS and CNI_ARGS present, empty values allowed', (command) => {
    for (const key of Object.keys(attachment)) {
      const env = Object.fromEntries(Object.entries({ CNI_COMMAND: command, ...attachment }).filter(([name]) => name !== key));
      expect(codeOf(() => cniRequestFromShim(shim(env)))).toBe('MissingCniEnv');
    }
    expect(codeOf(() => cniRequestFromShim(shim({ CNI_COMMAND: command, CNI_CONTAINERID: '', CNI_NETNS: '', CNI_ARGS: 'A=1' })))).toBeUndefined();
  });

  it.each(['GC', 'STATUS'])('%s needs CNI_COMMAND alone and accepts the empty CNI_ARGS libcni sends', (command) => {
    expect(cniRequestFromShim(shim({ CNI_COMMAND: command })).args).toEqual([]);
    expect(cniRequestFromShim(shim({ CNI_COMMAND: command, CNI_ARGS: '' })).args).toEqual([]);
  });

  it('refuses commands other than the five the daemon serves, case-sensitively', () => {
    expect(codeOf(() => cniRequestFromShim(shim({ CNI_COMMAND: 'VERSION', ...attachment })))).toBe('UnsupportedCniCommand');
    expect(codeOf(() => cniRequestFromShim(shim({ CNI_COMMAND: 'del', ...attachment })))).toBe('UnsupportedCniCommand');
    expect(codeOf(() => cniRequestFromShim(shim({})))).toBe('MissingCniEnv');
  });
});
