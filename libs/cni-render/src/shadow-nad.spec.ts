import { describe, expect, it } from '@jest/globals';
import { ATTACHMENT_PROTECTION_FINALIZER, annotations, labels, parseBindingAnnotation } from '@sriov-dra/contract';
import { loadFixtures, rawInput } from '@sriov-dra/contract/fixtures';
import { renderShadowConfig } from './shadow-config.ts';
import { buildShadowNad } from './shadow-nad.ts';

const bindingFixture = loadFixtures('binding-annotation').find((fixture) => fixture.id === 'binding-annotation/rail-a');
const parsed = parseBindingAnnotation(bindingFixture === undefined ? '' : rawInput(bindingFixture));
if (!parsed.ok) throw parsed.error;
const rendered = renderShadowConfig(
  {
    metadata: { name: 'rail-a-net', namespace: 'ai-workloads' },
    spec: { config: '{"cniVersion":"1.0.0","type":"sriov","ipam":{}}' },
  },
  '0000:03:00.1',
);
if (!rendered.ok) throw rendered.error;
const binding = { ...parsed.value, configSHA256: rendered.value.sha256 };
const owner = { name: 'gpu-sriov-pairs-demo', namespace: 'ai-workloads', uid: binding.podUID };

describe('buildShadowNad', () => {
  it('builds owned metadata only, with owner reference and finalizer in the same object', () => {
    const nad = buildShadowNad(binding, owner, rendered.value);
    if (!nad.ok) throw nad.error;
    expect(nad.value).toEqual({
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: {
        name: `dra-sriov-${binding.attachmentID.slice(0, 32)}`,
        namespace: 'ai-workloads',
        labels: { [labels.managedBy]: 'sriov-dra', [labels.podUID]: binding.podUID, [labels.claimUID]: binding.claimUID, [labels.nodeUID]: binding.nodeUID },
        annotations: { [annotations.binding]: expect.any(String) as unknown },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'gpu-sriov-pairs-demo', uid: binding.podUID, blockOwnerDeletion: false }],
        finalizers: [ATTACHMENT_PROTECTION_FINALIZER],
      },
      spec: { config: rendered.value.bytes },
    });
    const metadata = (nad.value as { metadata: { annotations: Record<string, string>; ownerReferences: Record<string, unknown>[] } }).metadata;
    expect(Object.hasOwn(metadata.annotations, annotations.resourceName)).toBe(false);
    expect(Object.hasOwn(metadata.ownerReferences[0] ?? {}, 'controller')).toBe(false);
    expect(parseBindingAnnotation(metadata.annotations[annotations.binding] ?? '')).toEqual({ ok: true, value: binding });
  });

  it('refuses a binding for another Pod or another config', () => {
    const otherPod = buildShadowNad(binding, { ...owner, uid: '99999999-2222-3333-4444-555555555555' }, rendered.value);
    expect(otherPod.ok ? 'built' : otherPod.error.code).toBe('ConsumerMismatch');
    const otherConfig = buildShadowNad({ ...binding, configSHA256: '0'.repeat(64) }, owner, rendered.value);
    expect(otherConfig.ok ? 'built' : otherConfig.error.code).toBe('ShadowConflict');
  });

  it('refuses a binding that does not describe the rendered bytes', () => {
    const otherVf = buildShadowNad({ ...binding, pciAddress: '0000:99:00.1' }, owner, rendered.value);
    expect(otherVf.ok ? 'built' : otherVf.error.code).toBe('ShadowConflict');
    // A render result whose bytes were swapped after hashing: same hash field, other device.
    const swapped = { ...rendered.value, bytes: rendered.value.bytes.replace('0000:03:00.1', '0000:99:00.1') };
    const tampered = buildShadowNad(binding, owner, swapped);
    expect(tampered.ok ? 'built' : tampered.error.code).toBe('ShadowConflict');
  });

  it('refuses an invalid binding instead of writing it', () => {
    const invalid = buildShadowNad({ ...binding, attachmentID: 'not-hex' }, owner, rendered.value);
    expect(invalid.ok ? 'built' : invalid.error.code).toBe('InvalidBindingAnnotation');
    expect(invalid.ok ? '' : invalid.error.message).toContain('Pod ai-workloads/gpu-sriov-pairs-demo');
  });
});
