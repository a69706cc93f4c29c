import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { ATTACHMENT_PROTECTION_FINALIZER, annotations } from '@sriov-dra/contract';
import { type NetworkSelection, parseNetworkSelections } from '@sriov-dra/cni-render';
import { loadFixtures, rawInput } from '@sriov-dra/contract/fixtures';
import type { GuardNad, GuardPod } from '../guard/managed-shadow-guard.ts';
import { type DeviceSource, delegateConfigFromNad, injectDeviceID } from './delegate-config.ts';

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

  it('says why a configuration cannot take a device or cni-args, naming the NAD', () => {
    const refusal = (text: string, annotation: string, nadAnnotations: Record<string, string> = {}): unknown => {
      const result = delegateConfigFromNad(
        pod,
        nad(text, nadAnnotations),
        { role: 'selection', selection: selection(annotation) },
        null,
        devices({ r: ['d'] }),
      );
      return result.ok ? 'accepted' : [result.error.code, result.error.detail, result.error.object];
    };
    const at = { kind: 'NetworkAttachmentDefinition', namespace: 'ai-workloads', name: 'rail-a-net', uid: 'u-1' };
    const withArgs = '[{"name":"rail-a-net","cni-args":{"a":1}}]';
    const device = { [annotations.resourceName]: 'r' };
    expect(refusal('{"cniVersion":"1.0.0","name":"r"}', 'rail-a-net', device)).toEqual([
      'MalformedCniConfig',
      'the configuration list has no "plugins" list to receive deviceID',
      at,
    ]);
    expect(refusal('{"cniVersion":"1.0.0","name":"r","plugins":[{"type":"sriov"},"tuning"]}', 'rail-a-net', device)).toEqual([
      'MalformedCniConfig',
      'a plugin of the configuration list is not an object, so deviceID cannot be added to it',
      at,
    ]);
    expect(refusal('{"cniVersion":"1.0.0","name":"r","plugins":[]}', withArgs)).toEqual([
      'MalformedCniConfig',
      'the configuration list has no plugins to receive cni-args',
      at,
    ]);
    expect(refusal('{"cniVersion":"1.0.0","name":"r","type":""}', withArgs)).toEqual([
      'MalformedCniConfig',
      'the configuration list has no plugins to receive cni-args',
      at,
    ]);
    expect(refusal('{"cniVersion":"1.0.0","name":"r","plugins":{"type":"bridge"}}', withArgs)).toEqual([
      'MalformedCniConfig',
      'the configuration list has no plugins to receive cni-args',
      at,
    ]);
    expect(refusal('{"cniVersion":"1.0.0","name":"r","plugins":[{"type":"bridge"},"tuning"]}', withArgs)).toEqual([
      'MalformedCniConfig',
      'a plugin of the configuration list is not an object',
      at,
    ]);
    expect(refusal('{"cniVersion":"1.0.0","name":"r","type":"bridge","args":[]}', withArgs)).toEqual([
      'MalformedCniConfig',
      '"args" is not an object, so cni-args cannot be merged into it',
      at,
    ]);
    expect(refusal('{"cniVersion":"1.0.0","name":"r","type":"bridge","args":{"cni":"a=1"}}', withArgs)).toEqual([
      'MalformedCniConfig',
      '"args.cni" is not an object, so cni-args cannot be merged into it',
      at,
    ]);
    expect(refusal('[]', 'rail-a-net')).toEqual(['MalformedCniConfig', 'spec.config is not a JSON object', { ...at, field: 'spec.config' }]);
    const malformed = refusal('{"cniVersion":', 'rail-a-net');
    expect(Array.isArray(malformed) && malformed[2]).toEqual({ ...at, field: 'spec.config' });
  });

  it('reads cni-args under any spelling Go folds to it, and a null cni-args as none', () => {
    const text = '{"cniVersion":"1.0.0","name":"r","type":"bridge"}';
    expect(config(nad(text), '[{"name":"rail-a-net","CNI-Args":{"a":1}}]')).toBe('{"cniVersion":"1.0.0","name":"r","type":"bridge","args":{"cni":{"a":1}}}');
    expect(config(nad(text), '[{"name":"rail-a-net","cni-args":null}]')).toBe(text);
    // A list whose type is "" is a list, like one without a type.
    expect(config(nad('{"cniVersion":"1.0.0","name":"r","type":"","plugins":[{"type":"bridge"}]}'), '[{"name":"rail-a-net","cni-args":{"a":1}}]')).toBe(
      '{"cniVersion":"1.0.0","name":"r","type":"","plugins":[{"type":"bridge","args":{"cni":{"a":1}}}]}',
    );
  });

  it('runs a verified shadow as its frozen bytes, without taking a device', () => {
    const binding = loadFixtures('binding-annotation').find((fixture) => fixture.id === 'binding-annotation/rail-a');
    if (binding === undefined) throw new Error('fixture binding-annotation/rail-a missing');
    const parsed = JSON.parse(rawInput(binding)) as { podUID: string; nodeName: string; interface: string; attachmentID: string; pciAddress: string };
    const frozen = `{"cniVersion":"1.0.0","name":"r","type":"sriov","deviceID":"${parsed.pciAddress}"}`;
    const bound = JSON.stringify({ ...parsed, configSHA256: createHash('sha256').update(frozen, 'utf8').digest('hex') });
    const shadow: GuardNad = {
      metadata: {
        name: 'dra-sriov-71179501bb6cd083245331b0ff5857fa',
        namespace: 'ai-workloads',
        uid: 'u-2',
        annotations: { [annotations.binding]: bound },
        finalizers: [ATTACHMENT_PROTECTION_FINALIZER],
        ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'trainer', uid: parsed.podUID }],
      },
      spec: { config: frozen },
    };
    const source = devices();
    const result = delegateConfigFromNad(
      { metadata: { ...pod.metadata, uid: parsed.podUID }, spec: { nodeName: parsed.nodeName } },
      shadow,
      { role: 'selection', selection: selection(`[{"name":"dra-sriov-71179501bb6cd083245331b0ff5857fa","interface":"${parsed.interface}"}]`) },
      null,
      source,
    );
    expect(
      result.ok
        ? [
            result.value.kind,
            result.value.kind === 'inline' && result.value.bytes,
            result.value.kind === 'inline' && result.value.managed?.binding.attachmentID,
          ]
        : result.error.detail,
    ).toEqual(['inline', frozen, parsed.attachmentID]);
    expect(source.taken).toEqual([]);
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

describe('delegateConfigFromNad kinds and injectDeviceID', () => {
  const at = { kind: 'NetworkAttachmentDefinition', namespace: 'ai-workloads', name: 'rail-a-net' };

  it('answers a file-backed NAD as such, and reads a NAD without annotations as one without resourceName', () => {
    const fileBacked = delegateConfigFromNad(pod, nad(''), { role: 'selection', selection: selection('rail-a-net') }, null, devices());
    expect(fileBacked.ok && fileBacked.value).toEqual({ kind: 'conf-file', name: 'rail-a-net' });
    const source = devices({ r: ['d'] });
    const bare: GuardNad = {
      metadata: { name: 'rail-a-net', namespace: 'ai-workloads', uid: 'u-1' },
      spec: { config: '{"cniVersion":"1.0.0","name":"r","type":"bridge"}' },
    };
    const inline = delegateConfigFromNad(pod, bare, { role: 'selection', selection: selection('rail-a-net') }, null, source);
    expect(inline.ok && inline.value).toEqual({ kind: 'inline', bytes: '{"cniVersion":"1.0.0","name":"r","type":"bridge"}', managed: null });
    expect(source.taken).toEqual([]);
  });

  it('reports the parser message for a configuration that is not JSON', () => {
    const result = injectDeviceID('{"cniVersion":', 'd', at);
    expect(result.ok ? 'accepted' : [result.error.code, result.error.object]).toEqual(['MalformedCniConfig', { ...at, field: 'spec.config' }]);
    expect(result.ok ? 'accepted' : result.error.detail).not.toBe('spec.config is not a JSON object');
  });

  it('gives the device to every plugin of a list whose type is empty', () => {
    const result = injectDeviceID('{"type":"","plugins":[{"type":"sriov"}]}', '0000:3b:00.2', at);
    expect(result.ok && result.value).toBe('{"type":"","plugins":[{"type":"sriov","deviceID":"0000:3b:00.2","pciBusID":"0000:3b:00.2"}]}');
  });
});
