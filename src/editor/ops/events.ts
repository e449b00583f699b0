import { SESSION_STREAM_PREFIX } from '../../../streams/editor.js';
import { fail } from '../errors.js';
import { operationStatus, wholeNumber } from './info.js';
import type { OpContext, OpGroup, OpOutcome } from './types.js';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

/**
 * `events`: the answers of mutations after a cursor, oldest first, read from the event log (every
 * editor session of the store, so a client's cursor survives a restart of the editor). `sequence` is
 * the answer's global log position and the next `after`. `resync` is true when the cursor is ahead of
 * the log — it came from another log (a store that was replaced), so the client must read state afresh.
 */
async function events(ctx: OpContext): Promise<OpOutcome> {
  const log = ctx.log;
  if (!log) throw new Error('dispatcher bug: events needs the event log in its context');
  const after = wholeNumber(ctx.request.after, 'after', 0);
  const limit = wholeNumber(ctx.request.limit, 'limit', DEFAULT_LIMIT);
  if (limit === 0 || limit > MAX_LIMIT)
    fail('invalid_query', `limit must be 1 to ${MAX_LIMIT}, got ${limit}`);
  const head = await log.headPosition();
  if (after > head) return answer({ cursor: head, resync: true, events: [], count: 0 });
  const found: Array<Record<string, unknown>> = [];
  let cursor = after;
  for await (const event of log.readAll({ from: after + 1 })) {
    cursor = event.position;
    if (event.type !== 'OperationAnswered' || !event.stream.startsWith(SESSION_STREAM_PREFIX)) continue;
    const data = event.data as {
      request_id: string;
      op: string;
      document_id: number | null;
      revision: number | null;
      answer: { ok: boolean };
    };
    found.push({
      sequence: event.position,
      request_id: data.request_id,
      op: data.op,
      status: operationStatus(data.answer),
      document_id: data.document_id,
      revision: data.revision,
      at: event.metadata.at,
    });
    if (found.length === limit) break;
  }
  return answer({ cursor, resync: false, events: found, count: found.length });
}

/** The page in `result`, and its fields at the top of the answer too, where a poller reads them. */
const answer = (page: Record<string, unknown>): OpOutcome => ({ events: [], result: page, fields: page });

export const eventOps = {
  events: { kind: 'immediate', document: 'none', run: events },
} satisfies OpGroup;
