import { renderSourceNad } from '../render/source-nad.ts';
import type { SriovNetwork } from '../render/sriov-network.ts';
import { type AdmissionFinding, WHOLE_OBJECT, findingOf } from './admission-finding.ts';
import type { AdmissionObject, AdmissionOptions } from './admission-object.ts';

/** The prefix changes only the rendered resourceName annotation, never whether rendering succeeds. */
const ANY_RESOURCE_PREFIX = 'openshift.io';

/**
 * The admission rules of a SriovNetwork: exactly the checks the controller meets when it renders the
 * source NAD (the CRD's limits, spec.networkNamespace only in the operator namespace, capabilities, ipam
 * and metaPlugins as well-formed JSON), so admission refuses what reconciliation would report as
 * NetworkAttachmentDefinitionInvalid. Every fault is a finding of its own.
 */
export function admitSriovNetwork(network: AdmissionObject, options: AdmissionOptions): AdmissionFinding[] {
  // renderSourceNad validates its input with the SriovNetwork schema before reading any field.
  const rendered = renderSourceNad(network as SriovNetwork, { operatorNamespace: options.operatorNamespace, resourcePrefix: ANY_RESOURCE_PREFIX });
  return rendered.ok ? [] : rendered.errors.map((error) => findingOf(error, error.field ?? WHOLE_OBJECT));
}
