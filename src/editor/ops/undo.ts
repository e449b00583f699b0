import type { Change } from '../../../streams/editor.js';
import { editorEvent } from '../../../streams/editor.js';
import { fail } from '../errors.js';
import { docOf, type OpContext, type OpOutcome, type OpTable } from './types.js';

const inverted = (changes: readonly Change[]) =>
  [...changes].reverse().map((c) => ({ ...c, before: c.after, after: c.before }) as Change);

/** Undo is an event of its own: the undone step stays in the log, and redo can bring it back. */
function undo(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  const step = doc.undo.at(-1);
  if (!step) return fail('nothing_to_undo', `document ${doc.id} has nothing to undo`);
  const event = editorEvent('StepUndone', {
    document_id: doc.id,
    revision: doc.revision + 1,
    step_revision: step.revision,
  });
  return {
    events: [event],
    result: { undone: step.op, step_revision: step.revision },
    changes: inverted(step.changes),
  };
}

function redo(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  const step = doc.redo.at(-1);
  if (!step) return fail('nothing_to_redo', `document ${doc.id} has nothing to redo`);
  const event = editorEvent('StepRedone', {
    document_id: doc.id,
    revision: doc.revision + 1,
    step_revision: step.revision,
  });
  return {
    events: [event],
    result: { redone: step.op, step_revision: step.revision },
    changes: step.changes,
  };
}

export const undoOps: OpTable = {
  undo: { kind: 'mutation', document: 'active', run: undo },
  redo: { kind: 'mutation', document: 'active', run: redo },
};
