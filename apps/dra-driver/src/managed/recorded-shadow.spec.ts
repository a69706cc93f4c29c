import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import type { ManagedBinding } from '../checkpoint/checkpoint-record.ts';
import { planManagedBindings } from './binding-plan.ts';
import { recordedShadow } from './recorded-shadow.ts';

const NODE = { name: 'worker-a', uid: '6b0d4a5e-8f3c-4e1a-9d2b-7c5f1e3a9b40' };
const POD = { namespace: 'ai-workloads', name: 'trainer-0', uid: '11111111-2222-3333-4444-555555555555' };
const CLAIM = { uid: 'a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f607', namespace: 'ai-workloads', name: 'trainer-0-nics', aliases: ['nics'] };
const SOURCE = {
  namespace: 'ai-workloads',
  name: 'rail-a-net',
  uid: '5f0c9a52-3d1e-4b7a-9c08-2e6f4d1b7a93',
  resourceVersion: '4711',
  config: '{"cniVersion":"1.0.0","plugins":[{"type":"sriov","ipam":{"type":"whereabouts","range":"192.0.2.0/24"}},{"type":"tuning","mtu":9000}]}',
};

/** One planned binding and the shadow NAD the plan made from the live source, recorded Ready. */
function planned(): { binding: ManagedBinding; shadowNad: Record<string, unknown> } {
  const plan = planManagedBindings({
    node: NODE,
    pod: POD,
    allocations: [
      {
        claim: CLAIM,
        request: 'nics',
        driver: 'sriovnetwork.k8snetworkplumbingwg.io',
        pool: 'worker-a',
        device: '0000-03-00-1',
        pciAddress: '0000:03:00.1',
        ifName: '',
        source: SOURCE,
      },
    ],
  });
  if (!plan.ok) throw plan.error;
  const [first] = plan.value.bindings;
  if (first === undefined) throw new Error('no binding planned');
  return {
    binding: { ...first.binding, phase: 'Ready', shadow: { ...first.binding.shadow, uid: '0c6f5d0e-1a7b-4c3d-8e9f-0a1b2c3d4e5f' } },
    shadowNad: first.shadowNad,
  };
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

describe('recordedShadow', () => {
  it('rebuilds from the record alone exactly the shadow the plan created from the source', () => {
    const { binding, shadowNad } = planned();
    const rebuilt = recordedShadow(binding);
    expect(rebuilt).toEqual({ ok: true, value: shadowNad });
  });

  it('refuses frozen bytes that are not a render’s own output, even with a matching hash', () => {
    const { binding } = planned();
    // The same configuration with a space after the first colon: valid JSON, but no render writes it.
    const edited = binding.renderedConfig.replace('"cniVersion":', '"cniVersion": ');
    const rebuilt = recordedShadow({ ...binding, renderedConfig: edited, configSHA256: sha256(edited) });
    expect(rebuilt.ok ? 'accepted' : rebuilt.error.code).toBe('CheckpointCorrupt');
  });

  it('refuses a record whose shadow name is not the one its identity gives', () => {
    const { binding } = planned();
    const rebuilt = recordedShadow({ ...binding, shadow: { ...binding.shadow, name: `dra-sriov-${'0'.repeat(32)}` } });
    expect(rebuilt.ok ? 'accepted' : rebuilt.error.code).toBe('CheckpointCorrupt');
  });

  it('refuses a record whose VF is not the one its bytes hand to the sriov plugin', () => {
    const { binding } = planned();
    const rebuilt = recordedShadow({ ...binding, pciAddress: '0000:03:00.2' });
    expect(rebuilt.ok ? 'accepted' : rebuilt.error.code).toBe('CheckpointCorrupt');
  });
});

describe('recordedShadow: what a refusal says', () => {
  const claim = { kind: 'ResourceClaim', namespace: CLAIM.namespace, name: CLAIM.name, uid: CLAIM.uid };

  it('names the attachment, the VF and the claim of bytes no render wrote, and how to recover', () => {
    const { binding } = planned();
    const rebuilt = recordedShadow({ ...binding, pciAddress: '0000:03:00.2' });
    expect(rebuilt.ok ? rebuilt : rebuilt.error.toJSON()).toEqual({
      code: 'CheckpointCorrupt',
      detail: `the frozen configuration of attachment ${binding.attachmentID} is not a rendered shadow configuration for VF 0000:03:00.2`,
      object: claim,
      remedy: 'the checkpoint was edited by hand; restore it from a backup, or drain the node and remove the claim record after releasing its shadow',
    });
  });

  it('names the shadow a record gives that its identity does not, in either namespace or name', () => {
    const { binding } = planned();
    const wrongName = `dra-sriov-${'0'.repeat(32)}`;
    const byName = recordedShadow({ ...binding, shadow: { ...binding.shadow, name: wrongName } });
    expect(byName.ok ? byName : [byName.error.detail, byName.error.object]).toEqual([
      `attachment ${binding.attachmentID} records shadow ${binding.shadow.namespace}/${wrongName}, not the name its identity gives`,
      claim,
    ]);
    const byNamespace = recordedShadow({ ...binding, shadow: { ...binding.shadow, namespace: 'elsewhere' } });
    expect(byNamespace.ok ? 'accepted' : byNamespace.error.code).toBe('CheckpointCorrupt');
  });

  it('passes on the refusal of a record whose interface name no binding annotation allows', () => {
    const { binding } = planned();
    const rebuilt = recordedShadow({ ...binding, interface: 'not an interface name' });
    expect(rebuilt.ok ? 'accepted' : rebuilt.error.code).toBe('InvalidBindingAnnotation');
  });
});
