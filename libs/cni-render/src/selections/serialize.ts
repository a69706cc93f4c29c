import { serializeJson } from '../strict-json.ts';
import type { NetworkSelection } from './parse.ts';

/**
 * The annotation value for a list of selections: a compact JSON array of the raw objects, so every
 * field a user wrote is kept in its order. Comma notation comes back as the equivalent objects.
 */
export function serializeNetworkSelections(selections: readonly NetworkSelection[]): string {
  return `[${selections.map((selection) => serializeJson(selection.raw)).join(',')}]`;
}
