import type { Entity } from '../src/editor/model.js';

/**
 * One string for each name the editor's read model repeats. JSON.parse makes a string of its own for
 * every value longer than 10 characters, so each event's copy of `*Model_Space`, of a layer or linetype
 * name, of an op name (`entities_transform`) stayed in the state for as long as the entity, undo step
 * or answered operation holding it: 17 MB of a 127 MB session part in the editor-models rebuild (4 of
 * its 34 MB of strings were distinct). Replacing a string by an equal one changes no content.
 */
const names = new Map<string, string>();
/** Names kept at most; past it the table starts again (a name met again is shared from then on). */
const MAX_NAMES = 4_096;
/** Longer strings are not names (a text's contents, a path): never worth keeping here. */
const MAX_NAME_LENGTH = 64;

/** `name`, or the equal string met first. */
export function sharedName(name: string): string {
  if (name.length > MAX_NAME_LENGTH) return name;
  const known = names.get(name);
  if (known !== undefined) return known;
  if (names.size >= MAX_NAMES) names.clear();
  names.set(name, name);
  return name;
}

/** Shares an entity's block, layer and linetype names (set in place: equal strings, same entity). */
export function shareEntityNames(entity: Entity): void {
  if (typeof entity.space === 'string') entity.space = sharedName(entity.space);
  if (typeof entity.layer === 'string') entity.layer = sharedName(entity.layer);
  if (typeof entity.linetype === 'string') entity.linetype = sharedName(entity.linetype);
}
