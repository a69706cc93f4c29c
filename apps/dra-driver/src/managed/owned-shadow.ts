import { type Result, fail, ok } from '@sriov-dra/contract';
import type { ManagedBinding } from '../checkpoint/checkpoint-record.ts';
import { recordedShadow } from './recorded-shadow.ts';
import type { OwnedShadow } from './shadow-release.ts';
import { type ShadowObject, verifyShadow } from './shadow-verification.ts';

/**
 * Whether the object found under a binding's shadow name is the shadow the binding owns, so that a
 * release may delete it and remove its finalizer (§8.4 step 1): the recorded UID when the checkpoint has
 * one (an empty UID, left by a lost Create response, adopts the found object's), and in every case the
 * content the record rebuilds — binding annotation with its config hash, labels, config bytes, and a Pod
 * owner reference to the recorded Pod if any (orphaning deletion may have removed it; a reference to
 * another Pod is a conflict). Deleting or not: a release wants it deleting. Anything else is another
 * object, or this driver's shadow edited by hand: ShadowConflict, and the release waits with its record
 * kept, for an object it cannot prove it owns is never deleted or unprotected, and one it owns is never
 * forgotten while still protected.
 */
export function ownedShadow(binding: ManagedBinding, found: ShadowObject): Result<OwnedShadow> {
  const object = { kind: 'NetworkAttachmentDefinition', namespace: binding.shadow.namespace, name: binding.shadow.name, uid: found.metadata.uid };
  const remedy =
    `the release of claim ${binding.claimNamespace}/${binding.claimName} waits, its checkpoint record kept and its VF still assigned, and the kubelet retries it: ` +
    `compare the object with the record (\`sriov-dra orphans --node-name ${binding.nodeName}\` lists this node's shadows no record accounts for, and why); if it is this driver's shadow edited by hand, ` +
    'put back what differs (a Pod owner reference may be removed, not changed); if it is another object, move it away from the name. ' +
    'Do not remove the protection finalizer to force the release';
  const recorded = binding.shadow.uid;
  if (recorded !== '' && found.metadata.uid !== recorded) {
    return fail('ShadowConflict', `its UID is not ${recorded}, the UID of attachment ${binding.attachmentID}'s shadow: the shadow was replaced`, {
      object,
      remedy,
    });
  }
  const desired = recordedShadow(binding);
  if (!desired.ok) return desired;
  const verified = verifyShadow(found, desired.value, { releasing: true });
  if (!verified.ok) return fail('ShadowConflict', `${verified.error.detail} (attachment ${binding.attachmentID})`, { object, remedy });
  return ok({ ...binding.shadow, uid: found.metadata.uid });
}
