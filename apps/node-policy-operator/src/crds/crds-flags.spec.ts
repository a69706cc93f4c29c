import { describe, expect, it } from '@jest/globals';
import { crdsCommand } from './crds-command.ts';
import { parseCrdsApplyFlags } from './crds-flags.ts';

const output = () => {
  let text = '';
  return { write: (chunk: string) => (text += chunk), text: () => text };
};

describe('crds apply flags', () => {
  it('defaults to a real run with the round trip in namespace default', () => {
    expect(parseCrdsApplyFlags([])).toEqual({ ok: true, value: { dryRun: false, namespace: 'default' } });
    expect(parseCrdsApplyFlags(['--dry-run', '-n', 'sriov-dra', '--kubeconfig', '/etc/admin.conf'])).toEqual({
      ok: true,
      value: { dryRun: true, namespace: 'sriov-dra', kubeconfig: '/etc/admin.conf' },
    });
  });

  it.each([
    [['-n', 'Not_A_Namespace'], 'InvalidComponentSetting: Flag --namespace: "Not_A_Namespace" is not a namespace name'],
    [['--kubeconfig', ''], 'InvalidComponentSetting: Flag --kubeconfig: is empty'],
    [['--force'], "InvalidComponentSetting: Unknown option '--force'"],
  ])('refuses %j naming the flag', (argv, message) => {
    const parsed = parseCrdsApplyFlags(argv);
    expect(parsed.ok ? 'accepted' : parsed.error.message).toMatch(new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });

  it('refuses an unknown action with exit status 2, before any API call', async () => {
    const out = output();
    const err = output();
    expect(await crdsCommand(['install'], out, err)).toBe(2);
    expect({ out: out.text(), err: err.text() }).toEqual({
      out: '',
      err: 'InvalidComponentSetting: Command crds: unknown action "install" — run crds apply\n',
    });
  });
});
