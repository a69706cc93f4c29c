import { buildShadowNad, renderShadowConfig } from '@sriov-dra/cni-render';
import { BINDING_ANNOTATION_VERSION, type Result, fail, ok } from '@sriov-dra/contract';
import type { ManagedBinding } from '../checkpoint/checkpoint-record.ts';
import type { DesiredShadow } from './shadow-verification.ts';

/**
 * The shadow a checkpointed binding owns, rebuilt from the record alone (§8.3: repair from frozen bytes).
 * The source NAD is never read again: its later edits or deletion change nothing for an existing binding.
 * The frozen bytes are a render's own output, so rendering them again with the same VF must give them
 * back unchanged; anything else means the record was not written by a render and is not trusted.
 */
export function recordedShadow(binding: ManagedBinding): Result<DesiredShadow> {
  const object = { kind: 'ResourceClaim', namespace: binding.claimNamespace, name: binding.claimName, uid: binding.claimUID };
  const rendered = renderShadowConfig(
    { metadata: { namespace: binding.source.namespace, name: binding.source.name }, spec: { config: binding.renderedConfig } },
    binding.pciAddress,
  );
  if (!rendered.ok || rendered.value.bytes !== binding.renderedConfig) {
    return fail(
      'CheckpointCorrupt',
      `the frozen configuration of attachment ${binding.attachmentID} is not a rendered shadow configuration for VF ${binding.pciAddress}`,
      {
        object,
        remedy: 'the checkpoint was edited by hand; restore it from a backup, or drain the node and remove the claim record after releasing its shadow',
      },
    );
  }
  const shadow = buildShadowNad(
    {
      version: BINDING_ANNOTATION_VERSION,
      attachmentID: binding.attachmentID,
      podUID: binding.podUID,
      claimUID: binding.claimUID,
      nodeName: binding.nodeName,
      nodeUID: binding.nodeUID,
      source: binding.source,
      pciAddress: binding.pciAddress,
      interface: binding.interface,
      configSHA256: binding.configSHA256,
    },
    { namespace: binding.podNamespace, name: binding.podName, uid: binding.podUID },
    rendered.value,
  );
  if (!shadow.ok) return shadow;
  const desired = shadow.value as unknown as DesiredShadow;
  if (desired.metadata.namespace !== binding.shadow.namespace || desired.metadata.name !== binding.shadow.name) {
    return fail(
      'CheckpointCorrupt',
      `attachment ${binding.attachmentID} records shadow ${binding.shadow.namespace}/${binding.shadow.name}, not the name its identity gives`,
      {
        object,
      },
    );
  }
  return ok(desired);
}
