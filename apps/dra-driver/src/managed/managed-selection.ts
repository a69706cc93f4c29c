import type { ManagedSelection } from '@sriov-dra/cni-render';
import type { PlannedBinding } from './planned-binding.ts';

/**
 * The Pod selection and registry entry of a binding (§6.4, §9). The registry records the shadow's UID,
 * which exists only once the shadow is created; until then the plan checks the merge with a stand-in.
 */
export function managedSelectionFor(binding: PlannedBinding, shadowUID: string): ManagedSelection {
  return {
    entry: {
      attachmentID: binding.attachmentID,
      claimUID: binding.claimUID,
      namespace: binding.shadow.namespace,
      name: binding.shadow.name,
      uid: shadowUID,
      interface: binding.interface,
      configSHA256: binding.configSHA256,
    },
    source: { namespace: binding.source.namespace, name: binding.source.name },
  };
}
