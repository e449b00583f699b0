import { type Change, editorEvent, type NewEditorEvent } from '../../../streams/editor.js';
import { BATCH_MAX_STEPS } from '../capabilities.js';
import { dictGet } from '../dict.js';
import { EditorError, fail } from '../errors.js';
import { isObject } from '../request.js';
import { answerChanges } from '../session.js';
import { checkCombinable, combineSteps, outcomeChanges, type Ran, Scratch } from './scratch.js';
import type { OpContext, OpGroup, OpOutcome, OpTable } from './types.js';

/** Ops that wait for a person at the viewer, or end such a wait: a batch cannot hold them up. */
const INTERACTIVE = new Set(['getpoint', 'user_select', 'cancel']);
/**
 * Ops that write files or open, close or switch documents, or move the undo stack: they cannot be
 * taken back, or cannot be part of one undo step, so an atomic batch refuses them before running them.
 */
const NOT_ATOMIC = new Set(['new', 'open', 'close', 'activate', 'save', 'wblock', 'plot', 'undo', 'redo']);

const MOVES_ACTIVE = new Set(['DocumentCreated', 'DocumentOpened', 'DocumentActivated', 'DocumentClosed']);

/** One step's answer, as the dispatcher would give it (without `state`). */
function stepAnswer(
  request: Record<string, unknown>,
  ran: Ran,
  active: number | null,
): Record<string, unknown> {
  const { outcome } = ran;
  const documentId = outcome.document_id !== undefined ? outcome.document_id : (ran.doc?.id ?? active);
  return {
    ok: true,
    status: 'completed',
    op: ran.opName,
    ...(typeof request.request_id === 'string' ? { request_id: request.request_id } : {}),
    ...(documentId !== null ? { document_id: documentId } : {}),
    result: outcome.result ?? {},
    changes: answerChanges(outcomeChanges(outcome)),
    ...outcome.fields,
  };
}

/** Checks a step before it runs; the code says why it cannot be one. */
function checkStep(step: unknown, index: number, atomic: boolean): Record<string, unknown> {
  if (!isObject(step))
    return fail(
      'invalid_request',
      `steps[${index}] must be an object { op, ...fields }, got ${JSON.stringify(step)}`,
    );
  const op = step.op;
  if (typeof op !== 'string' || op === '') return fail('invalid_request', `steps[${index}] needs an op name`);
  if (step.protocol !== undefined && step.protocol !== 1)
    fail('protocol_mismatch', `steps[${index}]: protocol must be 1, got ${JSON.stringify(step.protocol)}`);
  if (op === 'batch') fail('nested_batch', `steps[${index}]: a batch cannot hold another batch`);
  if (INTERACTIVE.has(op))
    fail(
      'not_batchable',
      `steps[${index}]: ${op} waits for a person at the viewer and cannot run in a batch`,
    );
  if (atomic && NOT_ATOMIC.has(op)) {
    fail(
      'not_atomic',
      `steps[${index}]: ${op} cannot be part of an atomic batch (it opens, saves, closes or switches documents, writes a file, or moves the undo stack)`,
    );
  }
  return step;
}

/**
 * `batch`: up to 64 protocol-1 requests run in order in this session, each against the state the
 * earlier ones left (ops/scratch.ts). It stops at the first failure. Plain: every step is its own
 * undo step and the steps before a failure stay (the answer fails with `completed_steps` and
 * `next_step`). `atomic: true`: all or nothing — on success the steps' changes are one undo step per
 * document (BatchApplied); on failure nothing is recorded but the answer.
 *
 * A step without `document_id` acts on the document active at that point of the batch (a REST client
 * sends the batch, not its steps, through the wrapper that adds the document).
 */
async function batch(ctx: OpContext): Promise<OpOutcome> {
  const steps = ctx.request.steps;
  const atomic = ctx.request.atomic === true;
  if (ctx.request.atomic !== undefined && typeof ctx.request.atomic !== 'boolean')
    fail('invalid_request', `atomic must be true or false, got ${JSON.stringify(ctx.request.atomic)}`);
  if (!Array.isArray(steps) || steps.length === 0)
    fail('invalid_request', `steps must be an array of 1 to ${BATCH_MAX_STEPS} requests { op, ...fields }`);
  if ((steps as unknown[]).length > BATCH_MAX_STEPS) {
    fail(
      'batch_too_large',
      `a batch holds at most ${BATCH_MAX_STEPS} steps, got ${(steps as unknown[]).length}`,
    );
  }
  const ops = ctx.ops ?? {};
  const scratch = new Scratch(ctx);
  const events: NewEditorEvent[] = [];
  const changes: Change[] = [];
  const results: Array<Record<string, unknown>> = [];
  // Only these events move the active document: without them it is the session's, and reading the
  // scratch state (which copies the documents the steps changed) is not needed for it.
  const activeNow = () =>
    events.some((e) => MOVES_ACTIVE.has(e.type)) ? scratch.state.active : ctx.session.active;
  for (const [index, raw] of (steps as unknown[]).entries()) {
    try {
      const step = checkStep(raw, index, atomic);
      const op = dictGet(ops, step.op as string);
      const needsDoc = op && (op.document === 'required' || op.document === 'active');
      const request =
        step.document_id === undefined && needsDoc && activeNow() !== null
          ? { ...step, document_id: activeNow() }
          : step;
      const ran = await scratch.run(request);
      if (atomic) checkCombinable(ran.outcome.events);
      events.push(...ran.outcome.events);
      changes.push(...outcomeChanges(ran.outcome));
      results.push(stepAnswer(request, ran, activeNow()));
    } catch (error) {
      if (!(error instanceof EditorError)) throw error;
      const op = isObject(raw) && typeof raw.op === 'string' ? raw.op : null;
      const details = {
        failed_op: op,
        completed_steps: index,
        next_step: index,
        results,
        atomic,
        ...error.details,
      };
      // Atomic: nothing of the batch is recorded. Plain: the steps before stay, and the answer fails.
      if (atomic) throw new EditorError(error.code, `steps[${index}] (${op}): ${error.message}`, details);
      return {
        events,
        changes,
        failed: { code: error.code, error: `steps[${index}] (${op}): ${error.message}` },
        fields: details,
        document_id: activeNow(),
      };
    }
  }
  const ran = results.map((r) => r.op as string);
  const recorded = atomic
    ? combineSteps(ctx.session, scratch.state, events, (data) =>
        editorEvent('BatchApplied', { ...data, op: 'batch', result: { steps: ran.length }, ops: ran }),
      )
    : events;
  return {
    events: recorded,
    changes,
    result: { completed_steps: results.length, atomic },
    fields: { completed_steps: results.length, next_step: null, results },
    document_id: activeNow(),
  };
}

/** Whether a step of the batch reads or writes a file (a batch holds no batch, so one level is all). */
function stepsTouchFiles(request: Record<string, unknown>, ops: OpTable): boolean {
  const steps = request.steps;
  if (!Array.isArray(steps)) return false;
  return steps.some(
    (step) =>
      isObject(step) && typeof step.op === 'string' && dictGet(ops, step.op)?.files?.(step, ops) === true,
  );
}

export const batchOps = {
  batch: { kind: 'mutation', document: 'none', run: batch, files: stepsTouchFiles },
} satisfies OpGroup;
