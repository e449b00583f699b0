/**
 * ATTDEF, an attribute definition (kept as read, its tags): the Text it is, showing its tag (2) as CAD
 * programs draw a definition in a layout. In a block it is not drawn (its references' ATTRIBs are), so
 * it is drawn and bounded only where it stands in a layout. It moves as Text does, tags written back.
 */
import type { RawEntity, TextEntity } from '../model.js';
import { tagText, transformTextTags } from './attribs.js';
import { standInCommon } from './raw-tags.js';

/** The Text an ATTDEF draws: its tag, with the entity's own layer, colour, linetype and lineweight. */
export function attdefText(e: RawEntity): TextEntity | undefined {
  const read = tagText(e.tags, e.layer, true);
  if (!read) return undefined;
  return { ...read.text, ...standInCommon(e) };
}

/** The ATTDEF moved as its text is moved by `transformText`. */
export function transformAttdef(e: RawEntity, transformText: (t: TextEntity) => TextEntity): RawEntity {
  return { ...e, tags: transformTextTags(e.tags, transformText) };
}
