/**
 * Reading compose text as YAML to check it (a mapping at the top), with bounds so that no text costs
 * more than its size: the text itself is bounded by the body limit (and a fetched file by its own limit).
 *
 * - Aliases: an alias bomb ("billion laughs": anchors of lists of aliases of anchors...) is a few hundred
 *   bytes that stand for billions of nodes. The yaml library counts alias uses (weighted by the aliases
 *   each one holds) while it builds the value and throws past `maxAliasCount`; its default of 100 also
 *   refused ordinary files (a `<<: *defaults` in each of 100 services), so the bound is set here.
 * - Depth: the parser recurses once per level of flow nesting (`[[[[...`) and fails with the engine's
 *   stack overflow past some hundreds; compose files are a handful of levels deep. Deeper than
 *   MAX_COMPOSE_DEPTH is refused with one message, whichever way it is nested.
 */
import { isCollection, isPair, parseDocument } from 'yaml';
import { StacksError } from '../errors.js';

/** Alias uses (weighted as the yaml library counts them) one compose file may make. */
export const MAX_COMPOSE_ALIASES = 10_000;
/** Levels of nested mappings and lists. */
const MAX_COMPOSE_DEPTH = 100;

const tooDeep = () =>
  new StacksError('invalid_compose', `Compose file is nested more than ${MAX_COMPOSE_DEPTH} levels deep`);

/** Whether a node holds collections nested more than `limit` levels (walked without recursion). */
function deeperThan(root: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[root, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, depth] = next;
    if (isPair(node)) {
      pending.push([node.key, depth], [node.value, depth]);
    } else if (isCollection(node)) {
      if (depth > limit) return true;
      for (const item of node.items) pending.push([item, depth + 1]);
    }
  }
  return false;
}

/**
 * The value of compose text, or a 400 naming the problem: not YAML (with its line and column), nested
 * too deeply, or aliases that expand too far.
 */
export function composeYamlValue(text: string): unknown {
  // Merge keys (`<<: *defaults`) as compose reads them: the value is the one compose gets.
  const doc = parseDocument(text, { merge: true });
  const error = doc.errors[0];
  if (error) {
    // The parser's recursion ran out of stack: only a very deep nesting gets there.
    if (error.message.includes('Maximum call stack size exceeded')) throw tooDeep();
    // The first line of the parser's message names the problem and its line and column.
    const summary = (error.message.split('\n')[0] ?? error.code).replace(/:$/, '');
    throw new StacksError('invalid_compose', `Compose file is not valid YAML: ${summary}`);
  }
  if (deeperThan(doc.contents, MAX_COMPOSE_DEPTH)) throw tooDeep();
  try {
    return doc.toJS({ maxAliasCount: MAX_COMPOSE_ALIASES });
  } catch (failure) {
    if (failure instanceof ReferenceError && /alias/i.test(failure.message))
      throw new StacksError(
        'invalid_compose',
        `Compose file uses its YAML aliases too often (more than ${MAX_COMPOSE_ALIASES} uses, counting the aliases each one holds): an alias bomb is refused`,
      );
    throw new StacksError('invalid_compose', `Compose file is not valid YAML: ${(failure as Error).message}`);
  }
}
