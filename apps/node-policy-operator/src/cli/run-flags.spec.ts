import { describe, expect, it } from '@jest/globals';
import { parseRunFlags } from './run-flags.ts';

const parse = (argv: string[], env: Record<string, string> = {}) => {
  const result = parseRunFlags(argv, env);
  return result.ok ? result.value : result.error.message;
};

describe('parseRunFlags', () => {
  it('fills defaults, the Lease in the operator namespace named after this replica', () => {
    expect(parse(['--operator-namespace', 'ops', '--identity', 'pod-1'])).toEqual({
      operatorNamespace: 'ops',
      resourcePrefix: 'openshift.io',
      draEnabled: true,
      mode: 'standalone',
      healthPort: 8081,
      kubeApiQps: 200,
      kubeApiBurst: 400,
      leaderElection: { namespace: 'ops', name: 'sriov-dra-node-policy-operator', identity: 'pod-1' },
    });
  });

  it('takes the environment when no flag is given, and a flag over the environment', () => {
    expect(parse(['--dra-enabled', 'false'], { OPERATOR_NAMESPACE: 'ops', DRA_ENABLED: 'true', LEADER_ELECT: 'false', KUBECONFIG: '/k' })).toMatchObject({
      operatorNamespace: 'ops',
      draEnabled: false,
      kubeconfig: '/k',
    });
    expect(parse([], { OPERATOR_NAMESPACE: 'ops', LEADER_ELECT: 'false' })).not.toHaveProperty('leaderElection');
    expect(parse([], { OPERATOR_NAMESPACE: 'ops', OPERATOR_MODE: 'alongside-upstream' })).toMatchObject({ mode: 'alongside-upstream' });
    expect(parse(['--mode', 'standalone'], { OPERATOR_NAMESPACE: 'ops', OPERATOR_MODE: 'alongside-upstream' })).toMatchObject({ mode: 'standalone' });
  });

  it.each([
    [[], 'InvalidComponentSetting: Flag --operator-namespace: is required: the namespace the operator runs in'],
    [['--operator-namespace', 'Ops'], 'Flag --operator-namespace: "Ops" is not a namespace name'],
    [['--operator-namespace', 'ops', '--dra-enabled', 'yes'], 'Flag --dra-enabled: "yes" is neither true nor false'],
    [['--operator-namespace', 'ops', '--mode', 'upstream'], 'Flag --mode: "upstream" is not one of standalone, alongside-upstream'],
    [['--operator-namespace', 'ops', '--health-port', '70000'], 'Flag --health-port: "70000" is not an integer from 0 to 65535'],
    [['--operator-namespace', 'ops', '--kube-api-qps', '0'], 'Flag --kube-api-qps: "0" is not an integer from 1 to 9007199254740991'],
    [['--operator-namespace', 'ops', '--leader-election-id', 'Bad_Name'], 'Flag --leader-election-id: "Bad_Name" is not an object name'],
  ])('refuses %j', (argv, message) => {
    expect(parse(argv)).toContain(message);
  });

  it('refuses an unknown flag, pointing at --help', () => {
    expect(parse(['--operator-namespace', 'ops', '--nope', 'x'])).toContain("Unknown option '--nope'");
  });
});
