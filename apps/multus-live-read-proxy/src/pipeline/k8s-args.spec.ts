import { describe, expect, it } from '@jest/globals';
import { delegateArgs, k8sArgsOf, readK8sArgs } from './k8s-args.ts';

const sent: (readonly [string, string])[] = [
  ['IgnoreUnknown', '1'],
  ['K8S_POD_NAMESPACE', 'ai-workloads'],
  ['K8S_POD_NAME', 'trainer'],
  ['K8S_POD_INFRA_CONTAINER_ID', 'c0ffee'],
  ['K8S_POD_UID', 'uid-1'],
];

describe('k8sArgsOf', () => {
  it('reads the four Pod keys, each empty when not sent', () => {
    expect(k8sArgsOf(sent)).toEqual({ podNamespace: 'ai-workloads', podName: 'trainer', podUID: 'uid-1', infraContainerID: 'c0ffee' });
    expect(k8sArgsOf([['OTHER', 'x']])).toEqual({ podNamespace: '', podName: '', podUID: '', infraContainerID: '' });
  });

  it('keeps the last value of a repeated key, as libcni does', () => {
    expect(
      k8sArgsOf([
        ['K8S_POD_NAME', 'first'],
        ['K8S_POD_NAME', 'second'],
      ]).podName,
    ).toBe('second');
  });
});

describe('readK8sArgs', () => {
  it('accepts a request naming the Pod, with or without its UID', () => {
    const read = readK8sArgs(sent, 'ctr');
    expect(read.ok && read.value).toEqual(k8sArgsOf(sent));
    const withoutUID = readK8sArgs(
      [
        ['K8S_POD_NAMESPACE', 'ai-workloads'],
        ['K8S_POD_NAME', 'trainer'],
      ],
      'ctr',
    );
    expect(withoutUID.ok && withoutUID.value.podUID).toBe('');
  });

  it('refuses a request without the Pod namespace or name, naming the container and the missing key', () => {
    const noNamespace = readK8sArgs([['K8S_POD_NAME', 'trainer']], 'ctr-1');
    expect(noNamespace.ok ? 'accepted' : [noNamespace.error.code, noNamespace.error.detail]).toEqual([
      'InvalidComponentSetting',
      'CNI_ARGS of container ctr-1 lack K8S_POD_NAMESPACE',
    ]);
    const noName = readK8sArgs([['K8S_POD_NAMESPACE', 'ai-workloads']], 'ctr-2');
    expect(noName.ok ? 'accepted' : noName.error.detail).toBe('CNI_ARGS of container ctr-2 lack K8S_POD_NAME');
    expect(noName.ok ? 'accepted' : noName.error.remedy).toMatch(/K8S_POD_NAMESPACE and K8S_POD_NAME/);
  });
});

describe('delegateArgs', () => {
  const k8s = k8sArgsOf(sent);

  it('starts with IgnoreUnknown and the four Pod keys, then the request pairs not yet present', () => {
    expect(delegateArgs(k8s, [...sent, ['CUSTOM', 'v']], {})).toEqual([
      ['IgnoreUnknown', 'true'],
      ['K8S_POD_NAMESPACE', 'ai-workloads'],
      ['K8S_POD_NAME', 'trainer'],
      ['K8S_POD_INFRA_CONTAINER_ID', 'c0ffee'],
      ['K8S_POD_UID', 'uid-1'],
      ['CUSTOM', 'v'],
    ]);
  });

  it('fills a Pod key that is still empty from the request, but never overwrites one that is set', () => {
    const noUID = { ...k8s, podUID: '' };
    expect(delegateArgs(noUID, [['K8S_POD_UID', 'uid-late']], {})).toContainEqual(['K8S_POD_UID', 'uid-late']);
    expect(delegateArgs(k8s, [['K8S_POD_UID', 'uid-other']], {}).filter(([key]) => key === 'K8S_POD_UID')).toEqual([['K8S_POD_UID', 'uid-1']]);
    // A request pair fills only the empty key of its own name.
    expect(delegateArgs({ ...k8s, podUID: '', infraContainerID: '' }, [['CUSTOM', 'v']], {}).slice(3)).toEqual([
      ['K8S_POD_INFRA_CONTAINER_ID', ''],
      ['K8S_POD_UID', ''],
      ['CUSTOM', 'v'],
    ]);
    // An empty request value neither fills the key nor adds a second one.
    expect(delegateArgs(noUID, [['K8S_POD_UID', '']], {}).filter(([key]) => key === 'K8S_POD_UID')).toEqual([['K8S_POD_UID', '']]);
  });

  it('appends the legacy MAC and IP requests last, and only when they are set', () => {
    const args = delegateArgs(k8s, [['CUSTOM', 'v']], { mac: '02:00:00:00:00:01', ips: ['10.0.0.5/24', 'fd00::5/64'] });
    expect(args.slice(-3)).toEqual([
      ['CUSTOM', 'v'],
      ['MAC', '02:00:00:00:00:01'],
      ['IP', '10.0.0.5/24,fd00::5/64'],
    ]);
    expect(delegateArgs(k8s, [], { mac: '', ips: [] })).toHaveLength(5);
  });
});
