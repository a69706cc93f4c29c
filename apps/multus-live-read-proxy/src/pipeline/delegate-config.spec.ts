import { describe, expect, it } from '@jest/globals';
import { annotations } from '@sriov-dra/contract';
import { type NetworkSelection, parseNetworkSelections } from '@sriov-dra/cni-render';
import { loadFixtures, rawInput } from '@sriov-dra/contract/fixtures';
import type { GuardNad, GuardPod } from '../guard/managed-shadow-guard.ts';
import { type DeviceSource, delegateConfigFromNad } from './delegate-config.ts';

const pod: GuardPod = { metadata: { name: 'trainer', namespace: 'ai-workloads', uid: '11111111-2222-3333-4444-555555555555' }, spec: { nodeName: 'worker-a' } };

function nad(config: string | undefined, nadAnnotations: Record<string, string> = {}): GuardNad {
  return {
    metadata: { name: 'rail-a-net', namespace: 'ai-workloads', uid: 'u-1', annotations: nadAnnotations },
    ...(config === undefined ? {} : { spec: { config } }),
  };
}

function selection(annotation: string): NetworkSelection {
  const parsed = parseNetworkSelections(annotation, 'ai-workloads');
  if (!parsed.ok || parsed.value[0] === undefined) throw new Error(`test selection does not parse: ${annotation}`);
  return parsed.value[0];
}

/** Devices as the kubelet would list them for the Pod, handed out in call order; records every call. */
function devices(byResource: Record<string, string[]> = {}): DeviceSource & { readonly taken: string[] } {
  const taken: string[] = [];
  return {
    taken,
    take: (resourceName) => {
      taken.push(resourceName);
      return byResource[resourceName]?.shift() ?? '';
    },
  };
}

function config(of: GuardNad, annotation = 'rail-a-net', source: DeviceSource = devices()): string {
  const result = delegateConfigFromNad(pod, of, { role: 'selection', selection: selection(annotation) }, null, source);
  if (!result.ok) return result.error.code;
  return result.value.kind === 'inline' ? result.value.bytes : `conf-file ${result.value.name}`;
}

describe('delegateConfigFromNad', () => {
  it('keeps a named inline configuration byte for byte', () => {
    const text = '{ "cniVersion": "1.0.0", "name": "rail", "type": "bridge", "mtu": 9000.0 }';
    expect(config(nad(text))).toBe(text);
  });

  it('names an unnamed configuration after its NAD, keeping numbers and key order', () => {
    expect(config(nad('{"cniVersion":"1.0.0","type":"bridge","big":12345678901234567890}'))).toBe(
      '{"cniVersion":"1.0.0","type":"bridge","big":12345678901234567890,"name":"rail-a-net"}',
    );
    expect(config(nad('{"name":"","cniVersion":"1.0.0","type":"bridge"}'))).toBe('{"name":"rail-a-net","cniVersion":"1.0.0","type":"bridge"}');
  });

  it('reads a NAD without inline configuration from the CNI file of its name', () => {
    expect(config(nad(undefined))).toBe('conf-file rail-a-net');
    expect(config(nad(''))).toBe('conf-file rail-a-net');
  });

  it('gives a resourceName NAD its device as deviceID and pciBusID, in place or last, numbers and key order kept', () => {
    const resource = { [annotations.resourceName]: 'intel.com/sriov' };
    const source = devices({ 'intel.com/sriov': ['0000:3b:00.2', '0000:3b:00.3'] });
    expect(config(nad('{"cniVersion":"1.0.0","name":"r","type":"sriov","vlan":100.0}', resource), 'rail-a-net', source)).toBe(
      '{"cniVersion":"1.0.0","name":"r","type":"sriov","vlan":100.0,"deviceID":"0000:3b:00.2","pciBusID":"0000:3b:00.2"}',
    );
    expect(config(nad('{"deviceID":"stale","cniVersion":"1.0.0","type":"sriov"}', resource), 'rail-a-net', source)).toBe(
      '{"deviceID":"0000:3b:00.3","cniVersion":"1.0.0","type":"sriov","name":"rail-a-net","pciBusID":"0000:3b:00.3"}',
    );
    expect(source.taken).toEqual(['intel.com/sriov', 'intel.com/sriov']);
  });

  it('gives every plugin of a list the device, before the selection cni-args are merged', () => {
    const source = devices({ 'intel.com/sriov': ['0000:3b:00.2'] });
    expect(
      config(
        nad('{"cniVersion":"1.0.0","name":"r","plugins":[{"type":"sriov"},{"type":"tuning"}]}', { [annotations.resourceName]: 'intel.com/sriov' }),
        '[{"name":"rail-a-net","cni-args":{"a":1}}]',
        source,
      ),
    ).toBe(
      '{"cniVersion":"1.0.0","name":"r","plugins":[{"type":"sriov","deviceID":"0000:3b:00.2","pciBusID":"0000:3b:00.2","args":{"cni":{"a":1}}},{"type":"tuning","deviceID":"0000:3b:00.2","pciBusID":"0000:3b:00.2","args":{"cni":{"a":1}}}]}',
    );
  });

  it('leaves the configuration as it is when the resource has no device left, even for an empty resourceName', () => {
    const text = '{"cniVersion":"1.0.0","name":"r","type":"sriov"}';
    const source = devices();
    expect(config(nad(text, { [annotations.resourceName]: '' }), 'rail-a-net', source)).toBe(text);
    expect(source.taken).toEqual(['']);
    const result = delegateConfigFromNad(
      pod,
      nad(text, { [annotations.resourceName]: 'x' }),
      { role: 'selection', selection: selection('rail-a-net') },
      null,
      devices(),
    );
    expect(result.ok && result.value.device).toEqual({ resourceName: 'x', deviceID: '' });
  });

  it('takes the device of a file-backed NAD too, and none for a NAD without resourceName', () => {
    const source = devices({ r: ['d'] });
    expect(config(nad(undefined, { [annotations.resourceName]: 'r' }), 'rail-a-net', source)).toBe('conf-file rail-a-net');
    expect(config(nad('{"cniVersion":"1.0.0","name":"r","type":"bridge"}'), 'rail-a-net', source)).toBe('{"cniVersion":"1.0.0","name":"r","type":"bridge"}');
    expect(source.taken).toEqual(['r']);
  });

  it('refuses a device for a list without plugins, as Multus does', () => {
    expect(config(nad('{"cniVersion":"1.0.0","name":"r"}', { [annotations.resourceName]: 'r' }), 'rail-a-net', devices({ r: ['d'] }))).toBe(
      'MalformedCniConfig',
    );
  });

  it('merges the selection cni-args into args.cni of the root, or of every plugin of a list', () => {
    const withArgs = '[{"name":"rail-a-net","cni-args":{"a":1,"b":"x"}}]';
    expect(config(nad('{"cniVersion":"1.0.0","name":"r","type":"bridge","args":{"cni":{"a":0,"keep":true}}}'), withArgs)).toBe(
      '{"cniVersion":"1.0.0","name":"r","type":"bridge","args":{"cni":{"a":1,"keep":true,"b":"x"}}}',
    );
    expect(config(nad('{"cniVersion":"1.0.0","name":"r","plugins":[{"type":"bridge"},{"type":"tuning","args":{}}]}'), withArgs)).toBe(
      '{"cniVersion":"1.0.0","name":"r","plugins":[{"type":"bridge","args":{"cni":{"a":1,"b":"x"}}},{"type":"tuning","args":{"cni":{"a":1,"b":"x"}}}]}',
    );
  });

  it('refuses what Multus would crash on or misread: a malformed configuration or a non-object args', () => {
    expect(config(nad('{"cniVersion":'))).toBe('MalformedCniConfig');
    expect(config(nad('{"cniVersion":"1.0.0","name":"r","type":"bridge","args":[]}'), '[{"name":"rail-a-net","cni-args":{"a":1}}]')).toBe('MalformedCniConfig');
  });

  it('guards every NAD an ADD reaches: a shadow as the cluster network or a default network is refused, an ordinary one runs', () => {
    const binding = loadFixtures('binding-annotation').find((fixture) => fixture.id === 'binding-annotation/rail-a');
    if (binding === undefined) throw new Error('fixture binding-annotation/rail-a missing');
    const shadow: GuardNad = {
      metadata: {
        name: 'dra-sriov-71179501bb6cd083245331b0ff5857fa',
        namespace: 'kube-system',
        uid: 'u-2',
        annotations: { [annotations.binding]: rawInput(binding) },
      },
      spec: { config: '{"cniVersion":"1.0.0","name":"r","type":"sriov","deviceID":"0000:03:00.1"}' },
    };
    const source = devices();
    const reached = (of: GuardNad, role: 'master' | 'default'): string => {
      const result = delegateConfigFromNad(pod, of, { role }, null, source);
      return result.ok ? (result.value.kind === 'inline' ? result.value.bytes : result.value.name) : result.error.code;
    };
    expect([reached(shadow, 'master'), reached(shadow, 'default')]).toEqual(['ManagedShadowAsDefaultNetwork', 'ManagedShadowAsDefaultNetwork']);
    expect(reached(nad('{"cniVersion":"1.0.0","name":"r","type":"bridge"}'), 'master')).toBe('{"cniVersion":"1.0.0","name":"r","type":"bridge"}');
    expect(source.taken).toEqual([]);
  });
});
