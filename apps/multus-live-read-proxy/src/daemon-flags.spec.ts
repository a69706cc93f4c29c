import { describe, expect, it } from '@jest/globals';
import { parseDaemonFlags } from './daemon-flags.ts';

function parse(argv: readonly string[], env: Record<string, string> = {}): unknown {
  const result = parseDaemonFlags(argv, env);
  return result.ok ? result.value : result.error.message;
}

describe('parseDaemonFlags', () => {
  it('takes the upstream daemon-config path and the documented defaults', () => {
    expect(parse(['--node-name', 'worker-a'])).toEqual({
      config: '/etc/cni/net.d/multus.d/daemon-config.json',
      nodeName: 'worker-a',
      metricsPort: 9091,
      kubeApiQps: 50,
      kubeApiBurst: 100,
    });
  });

  it('lets a flag beat its environment variable, which beats the default', () => {
    expect(parse(['--metrics-port', '0'], { NODE_NAME: 'worker-b', METRICS_PORT: '7000', KUBECONFIG: '/k' })).toMatchObject({
      nodeName: 'worker-b',
      metricsPort: 0,
      kubeconfig: '/k',
    });
  });

  it('names the flag at fault', () => {
    expect(parse([])).toBe('InvalidComponentSetting: Flag --node-name: is required (or set NODE_NAME) — fix the flag or option named in the message');
    expect(parse(['--node-name', 'Worker_A'])).toBe(
      'InvalidComponentSetting: Flag --node-name: "Worker_A" is not a Node name — fix the flag or option named in the message',
    );
    expect(parse(['--node-name', 'w', '--metrics-port', '70000'])).toBe(
      'InvalidComponentSetting: Flag --metrics-port: 70000 is not a port — fix the flag or option named in the message',
    );
    expect(parse(['--node-name', 'w', '--kube-api-qps', '0'])).toBe(
      'InvalidComponentSetting: Flag --kube-api-qps: "0" is not an integer ≥ 1 — fix the flag or option named in the message',
    );
    expect(parse(['--node-name', 'w', '--bogus', 'x'])).toMatch(/^InvalidComponentSetting: Unknown option '--bogus'/);
  });
});
