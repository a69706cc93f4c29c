import { describe, expect, it } from '@jest/globals';
import { chrootFailure, pluginLaunch } from './chroot.ts';
import type { PluginExit } from './plugin-output.ts';

const exit = (code: number | null, stderr: string, stdout = '', signal: NodeJS.Signals | null = null): PluginExit => ({ code, signal, stdout, stderr });

describe('pluginLaunch', () => {
  it('runs the plugin itself without a chrootDir', () => {
    expect(pluginLaunch('/opt/cni/bin/sriov', '')).toEqual({ file: '/opt/cni/bin/sriov', args: [], argv0: '/opt/cni/bin/sriov' });
  });

  it('runs chroot into chrootDir with the plugin at the path the daemon found it', () => {
    expect(pluginLaunch('/opt/cni/bin/sriov', '/hostroot')).toEqual({ file: '/usr/sbin/chroot', args: ['/hostroot', '/opt/cni/bin/sriov'], argv0: 'chroot' });
  });
});

describe('chrootFailure', () => {
  it.each([
    ['the plugin missing in the root', 127, 'chroot: failed to run command ‘/opt/cni/bin/sriov’: No such file or directory\n'],
    ['a plugin that cannot be executed there', 126, 'chroot: failed to run command ‘/opt/cni/bin/sriov’: Permission denied\n'],
    ['a root that cannot be entered', 125, 'chroot: cannot change root directory to ‘/hostroot’: Operation not permitted\n'],
  ])('recognises %s, with chroot’s words, as not busy', (_case, code, stderr) => {
    expect(chrootFailure(exit(code, stderr))).toEqual({ detail: stderr.trim(), textFileBusy: false });
  });

  it('recognises a plugin file being written as busy', () => {
    expect(chrootFailure(exit(126, 'chroot: failed to run command ‘/opt/cni/bin/sriov’: Text file busy\n'))).toEqual({
      detail: 'chroot: failed to run command ‘/opt/cni/bin/sriov’: Text file busy',
      textFileBusy: true,
    });
  });

  it.each([
    ['a plugin that succeeded', exit(0, '')],
    ['a plugin’s own failure with a CNI error', exit(127, 'chroot: failed to run command ‘x’: No such file or directory\n', '{"code":7,"msg":"bad"}')],
    ['a plugin’s own status without chroot’s words', exit(127, 'sh: ip: not found\n')],
    ['a shell plugin that found its own helper busy', exit(126, '/bin/sh: /usr/bin/helper: Text file busy\n')],
    ['a status chroot never uses for itself', exit(1, 'chroot: failed to run command ‘/opt/cni/bin/sriov’: No such file or directory\n')],
    ['a plugin killed by a signal', exit(null, 'chroot: x', '', 'SIGKILL')],
  ])('leaves %s to the plugin’s output', (_case, exited) => {
    expect(chrootFailure(exited)).toBeUndefined();
  });
});
