import { serializeJson } from '@sriov-dra/contract';
import type { NetworkSelection } from './parse.ts';

/**
 * The annotation value for a list of selections: a JSON array whose entries keep the exact text they
 * were parsed from (every field, its order, even its formatting) and new entries in compact form.
 * Comma notation comes back as the equivalent objects.
 */
export function serializeNetworkSelections(selections: readonly NetworkSelection[]): string {
  return `[${selections.map((selection) => selection.text ?? serializeJson(selection.raw)).join(',')}]`;
}
