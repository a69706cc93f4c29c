import { createHash } from 'node:crypto';
import {
  ATTACHMENT_PROTECTION_FINALIZER,
  type BindingAnnotationV1,
  MANAGED_BY_VALUE,
  type Result,
  annotations,
  fail,
  isJsonObject,
  labels,
  ok,
  parseStrictJson,
  serializeBindingAnnotation,
  shadowNameFor,
  validateBindingAnnotation,
} from '@sriov-dra/contract';
import type { RenderedShadowConfig } from './shadow-config.ts';

/** The deviceID the rendered bytes carry at the sriov entry, read back from the bytes themselves. */
function renderedDeviceID(rendered: RenderedShadowConfig): string | undefined {
  const parsed = parseStrictJson(rendered.bytes);
  if (!parsed.ok || !isJsonObject(parsed.value)) return undefined;
  const plugins = parsed.value.get('plugins');
  const entry = rendered.pluginIndex === null ? parsed.value : Array.isArray(plugins) ? plugins[rendered.pluginIndex] : undefined;
  const deviceID = isJsonObject(entry) ? entry.get('deviceID') : undefined;
  return typeof deviceID === 'string' ? deviceID : undefined;
}

/** The verified consuming Pod. */
export interface ShadowOwner {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
}

/**
 * A fresh shadow NAD (§6.2, §7 step 10), built from scratch: nothing is copied from the source — no
 * labels, annotations, finalizers or owner marker — and in particular the resourceName annotation key
 * is absent, because Multus enters its device-plugin lookup when the key merely exists. The Pod owner
 * reference (no controller, blockOwnerDeletion false) and the protection finalizer are part of the one
 * Create, so the object is never visible unprotected. The binding must be valid, must name this Pod,
 * and must describe exactly these bytes: their hash, and the VF the sriov entry is handed.
 */
export function buildShadowNad(binding: BindingAnnotationV1, owner: ShadowOwner, rendered: RenderedShadowConfig): Result<Record<string, unknown>> {
  const valid = validateBindingAnnotation(binding, { kind: 'Pod', namespace: owner.namespace, name: owner.name, field: 'shadow binding' });
  if (!valid.ok) return valid;
  const object = { kind: 'NetworkAttachmentDefinition', namespace: owner.namespace, name: shadowNameFor(binding.attachmentID) };
  if (binding.podUID !== owner.uid) return fail('ConsumerMismatch', `binding is for Pod UID ${binding.podUID}, not ${owner.uid}`, { object });
  const sha256 = createHash('sha256').update(rendered.bytes).digest('hex');
  if (binding.configSHA256 !== rendered.sha256 || sha256 !== rendered.sha256) {
    return fail(
      'ShadowConflict',
      `binding records config hash ${binding.configSHA256}, the render reports ${rendered.sha256} and its bytes hash to ${sha256}`,
      {
        object,
      },
    );
  }
  const deviceID = renderedDeviceID(rendered);
  if (deviceID !== binding.pciAddress) {
    return fail(
      'ShadowConflict',
      `binding is for VF ${binding.pciAddress} but the rendered config hands ${JSON.stringify(deviceID ?? null)} to the sriov plugin`,
      {
        object,
      },
    );
  }
  return ok({
    apiVersion: 'k8s.cni.cncf.io/v1',
    kind: 'NetworkAttachmentDefinition',
    metadata: {
      name: object.name,
      namespace: owner.namespace,
      labels: {
        [labels.managedBy]: MANAGED_BY_VALUE,
        [labels.podUID]: binding.podUID,
        [labels.claimUID]: binding.claimUID,
        [labels.nodeUID]: binding.nodeUID,
      },
      annotations: { [annotations.binding]: serializeBindingAnnotation(binding) },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: owner.name, uid: owner.uid, blockOwnerDeletion: false }],
      finalizers: [ATTACHMENT_PROTECTION_FINALIZER],
    },
    spec: { config: rendered.bytes },
  });
}
