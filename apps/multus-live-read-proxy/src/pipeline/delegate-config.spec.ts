import { describe, expect, it } from '@jest/globals';
import { annotations } from '@sriov-dra/contract';
import { type NetworkSelection, parseNetworkSelections } from '@sriov-dra/cni-render';
import type { GuardNad, GuardPod } from '../guard/managed-shadow-guard.ts';
import { delegateConfigFromNad } from './delegate-config.ts';

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

function config(of: GuardNad, annotation = 'rail-a-net'): string {
  const result = delegateConfigFromNad(pod, of, selection(annotation), null);
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

  it('refuses a NAD that asks for a device-plugin lookup, even with an empty resourceName', () => {
    expect(config(nad('{"cniVersion":"1.0.0","name":"r","type":"sriov"}', { [annotations.resourceName]: '' }))).toBe('DevicePluginLookupUnsupported');
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
});
