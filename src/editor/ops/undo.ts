import type { Change } from '../../../streams/editor.js';
import { editorEvent } from '../../../streams/editor.js';
import { fail } from '../errors.js';
import { docOf, type OpContext, type OpGroup, type OpOutcome } from './types.js';

const inverted = (changes: readonly Change[]) =>
  [...changes].reverse().map((c) => ({ ...c, before: c.after, after: c.before }) as Change);

/** What tells undo from redo: the stack the step comes from, the event and answer, which way it runs. */
const DIRECTIONS = {
  undo: { event: 'StepUndone', done: 'undone', changes: inverted },
  redo: { event: 'StepRedone', done: 'redone', changes: (changes: Change[]) => changes },
} as const;

/** Undo is an event of its own: the undone step stays in the log, and redo can bring it back. */
function move(direction: keyof typeof DIRECTIONS, ctx: OpContext): OpOutcome {
  const { event, done, changes } = DIRECTIONS[direction];
  const doc = docOf(ctx);
  const step = doc[direction].at(-1);
  if (!step)
    return fail(
      direction === 'undo' ? 'nothing_to_undo' : 'nothing_to_redo',
      `document ${doc.id} has nothing to ${direction}`,
    );
  return {
    events: [
      editorEvent(event, { document_id: doc.id, revision: doc.revision + 1, step_revision: step.revision }),
    ],
    result: { [done]: step.op, step_revision: step.revision },
    changes: changes(step.changes),
  };
}

export const undoOps = {
  undo: { kind: 'mutation', document: 'active', run: (ctx) => move('undo', ctx) },
  redo: { kind: 'mutation', document: 'active', run: (ctx) => move('redo', ctx) },
} satisfies OpGroup;
