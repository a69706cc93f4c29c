// buildShadowNad's refusals with their exact detail and object, and how it reads the deviceID back from
// rendered bytes of either shape. Render results are written out here, hashed with node:crypto.
import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import type { BindingAnnotationV1 } from '@sriov-dra/contract';
import type { RenderedShadowConfig } from './shadow-config.ts';
import { buildShadowNad } from './shadow-nad.ts';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
const rendered = (bytes: string, pluginIndex: number | null = null): RenderedShadowConfig => ({
  bytes,
  sha256: sha256(bytes),
  effectiveName: 'rail-a-net',
  pluginIndex,
  pluginType: 'sriov',
});
const binding = (render: RenderedShadowConfig, pciAddress = '0000:03:00.1'): BindingAnnotationV1 => ({
  version: 1,
  attachmentID: '71179501bb6cd083245331b0ff5857fa31e1b3479ee5e9985da63f7c301d31cc',
  podUID: '11111111-2222-3333-4444-555555555555',
  claimUID: 'a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607',
  nodeName: 'worker-a',
  nodeUID: '6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40',
  source: { namespace: 'ai-workloads', name: 'rail-a-net', uid: '9e8d7c6b-5a49-4382-a716-0f1e2d3c4b5a', resourceVersion: '48213' },
  pciAddress,
  interface: 'dra0',
  configSHA256: render.sha256,
});
const owner = { name: 'gpu-sriov-pairs-demo', namespace: 'ai-workloads', uid: '11111111-2222-3333-4444-555555555555' };
const SHADOW = { kind: 'NetworkAttachmentDefinition', namespace: 'ai-workloads', name: 'dra-sriov-71179501bb6cd083245331b0ff5857fa' };

const single = rendered('{"cniVersion":"1.0.0","name":"rail-a-net","type":"sriov","ipam":{"note":"é"},"deviceID":"0000:03:00.1"}');
const conflist = rendered('{"cniVersion":"1.0.0","name":"rail-a-net","plugins":[{"type":"sriov","deviceID":"0000:03:00.1"},{"type":"tuning"}]}', 0);

function refusal(b: BindingAnnotationV1, r: RenderedShadowConfig, o = owner) {
  const result = buildShadowNad(b, o, r);
  return result.ok ? 'built' : { code: result.error.code, detail: result.error.detail, object: result.error.object };
}

describe('buildShadowNad', () => {
  it.each([
    ['a single plugin, with non-ASCII bytes hashed as UTF-8', single],
    ['a conflist, at its sriov entry', conflist],
  ])('builds from %s', (_case, render) => {
    const result = buildShadowNad(binding(render), owner, render);
    expect(result.ok && (result.value['spec'] as { config: string }).config).toBe(render.bytes);
  });

  it('names the Pod and the binding field when the binding is invalid', () => {
    const result = buildShadowNad({ ...binding(single), attachmentID: 'not-hex' }, owner, single);
    expect(result.ok ? 'built' : result.error.object).toEqual({
      kind: 'Pod',
      namespace: 'ai-workloads',
      name: 'gpu-sriov-pairs-demo',
      field: 'shadow binding',
    });
  });

  it('refuses a binding for another Pod, naming the shadow', () => {
    expect(refusal(binding(single), single, { ...owner, uid: '99999999-2222-3333-4444-555555555555' })).toEqual({
      code: 'ConsumerMismatch',
      detail: 'binding is for Pod UID 11111111-2222-3333-4444-555555555555, not 99999999-2222-3333-4444-555555555555',
      object: SHADOW,
    });
  });

  it('refuses a render whose reported hash is not the hash of its bytes, even when the binding agrees with the report', () => {
    const misreported = { ...single, sha256: 'a'.repeat(64) };
    expect(refusal(binding(misreported), misreported)).toEqual({
      code: 'ShadowConflict',
      detail: `binding records config hash ${'a'.repeat(64)}, the render reports ${'a'.repeat(64)} and its bytes hash to ${single.sha256}`,
      object: SHADOW,
    });
  });

  it.each([
    ['another VF', binding(single, '0000:03:00.2'), single, '"0000:03:00.1"'],
    ['bytes that are not JSON', binding(rendered('{"type":')), rendered('{"type":'), 'null'],
    ['bytes that are not an object', binding(rendered('["0000:03:00.1"]')), rendered('["0000:03:00.1"]'), 'null'],
    ['a deviceID that is not a string', binding(rendered('{"type":"sriov","deviceID":301}')), rendered('{"type":"sriov","deviceID":301}'), 'null'],
    ['a conflist read as a single plugin', binding(rendered(conflist.bytes)), rendered(conflist.bytes), 'null'],
    [
      'a conflist whose plugins are not a list',
      binding(rendered('{"plugins":{"0":{"deviceID":"0000:03:00.1"}}}', 0)),
      rendered('{"plugins":{"0":{"deviceID":"0000:03:00.1"}}}', 0),
      'null',
    ],
  ])('refuses a binding that does not describe the rendered bytes: %s', (_case, b, r, handed) => {
    const vf = _case === 'another VF' ? '0000:03:00.2' : '0000:03:00.1';
    expect(refusal(b, r)).toEqual({
      code: 'ShadowConflict',
      detail: `binding is for VF ${vf} but the rendered config hands ${handed} to the sriov plugin`,
      object: SHADOW,
    });
  });
});
