import { createHash } from 'node:crypto';
import { type BindingAnnotationV1, type ObjectRef, type Result, fail, ok } from '@sriov-dra/contract';

/** The shadow fields the config check reads. */
export interface ShadowConfigSource {
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly spec?: { readonly config?: unknown };
}

/**
 * Verifies that a shadow still carries the configuration its binding was rendered with (§6.4, §10.3): the
 * lowercase hex SHA-256 of the exact spec.config text, as UTF-8, equals the binding's configSHA256. Any
 * edit — even whitespace — is a mismatch; the guard never executes a configuration the driver did not
 * freeze. Returns the configuration to execute.
 */
export function checkShadowConfig(nad: ShadowConfigSource, binding: BindingAnnotationV1): Result<string> {
  const object: ObjectRef = { kind: 'NetworkAttachmentDefinition', namespace: nad.metadata.namespace, name: nad.metadata.name };
  const config = nad.spec?.config;
  if (typeof config !== 'string' || config === '') return fail('ManagedShadowMismatch', 'has no inline spec.config', { object });
  const digest = createHash('sha256').update(config, 'utf8').digest('hex');
  if (digest !== binding.configSHA256) {
    return fail('ManagedShadowMismatch', `spec.config hashes to ${digest}, not the bound configSHA256 ${binding.configSHA256}`, { object });
  }
  return ok(config);
}
