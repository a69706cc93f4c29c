import { type RenderedShadowConfig, buildShadowNad, normalizePciAddress, renderShadowConfig } from '@sriov-dra/cni-render';
import { BINDING_ANNOTATION_VERSION, IDENTITY_PROTOCOL_VERSION, type Result, buildBindingIdentity, ok } from '@sriov-dra/contract';
import type { SourceTemplate } from './source-template.ts';

/** Everything one shadow is derived from; every value comes from a verified object or trusted discovery. */
export interface ShadowPlanInput {
  readonly node: { readonly name: string; readonly uid: string };
  readonly pod: { readonly namespace: string; readonly name: string; readonly uid: string };
  readonly claimUID: string;
  readonly driver: string;
  readonly pool: string;
  readonly device: string;
  /** From discovery of the allocated device, never from an attribute (§5.1). */
  readonly pciAddress: string;
  readonly interface: string;
  readonly source: SourceTemplate;
}

export interface PlannedShadow {
  /** Full SHA-256 of the binding identity (§6.2). */
  readonly attachmentID: string;
  readonly shadowName: string;
  /** The PCI address in canonical form, as injected into the configuration. */
  readonly pciAddress: string;
  readonly rendered: RenderedShadowConfig;
  /** The NAD to Create: no UID yet, which only the API server assigns. */
  readonly shadowNad: Record<string, unknown>;
}

/**
 * One device's shadow (§6.2, §6.4, §7): its identity, its configuration rendered from the source with
 * the allocated VF's PCI address, and the NAD carrying both. Pure; the first refusal is returned.
 */
export function planShadow(input: ShadowPlanInput): Result<PlannedShadow> {
  const { node, pod, source } = input;
  const identity = buildBindingIdentity({
    protocolVersion: IDENTITY_PROTOCOL_VERSION,
    nodeUID: node.uid,
    podUID: pod.uid,
    claimUID: input.claimUID,
    driver: input.driver,
    pool: input.pool,
    device: input.device,
  });
  if (!identity.ok) return identity;
  const pci = normalizePciAddress(input.pciAddress);
  if (!pci.ok) return pci;
  const rendered = renderShadowConfig({ metadata: { name: source.name, namespace: source.namespace }, spec: { config: source.config } }, pci.value);
  if (!rendered.ok) return rendered;
  const shadowNad = buildShadowNad(
    {
      version: BINDING_ANNOTATION_VERSION,
      attachmentID: identity.value.attachmentID,
      podUID: pod.uid,
      claimUID: input.claimUID,
      nodeName: node.name,
      nodeUID: node.uid,
      source: { namespace: source.namespace, name: source.name, uid: source.uid, resourceVersion: source.resourceVersion },
      pciAddress: pci.value,
      interface: input.interface,
      configSHA256: rendered.value.sha256,
    },
    pod,
    rendered.value,
  );
  if (!shadowNad.ok) return shadowNad;
  return ok({ ...identity.value, pciAddress: pci.value, rendered: rendered.value, shadowNad: shadowNad.value });
}
