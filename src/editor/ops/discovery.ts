import { dictGet, dictSet } from '../dict.js';
/**
 * Reads a client makes to learn what is there, as the reference editor answers them: `commands` (the
 * command line's commands, and how to run one), `entities` (how many entities of each type) and
 * `history` (what was done in this session, newest last).
 */

import { COMMAND_NAMES } from '../command-line.js';
import { fail } from '../errors.js';
import { insertedContents } from '../query/run.js';
import { operationStatus, paging } from './info.js';
import { docOf, type OpContext, type OpGroup, type OpOutcome } from './types.js';

/** What each command of the command line is for, and lines that run it (ops/run.ts executes them). */
const COMMANDS: Readonly<Record<string, { category: string; examples: string[] }>> = {
  LINE: { category: 'create', examples: ['LINE 0,0 10,10', 'LINE 0,0 10,0 @0,10 C'] },
  CIRCLE: { category: 'create', examples: ['CIRCLE 5,5 3'] },
  ARC: { category: 'create', examples: ['ARC 0,0 5 0 90', 'ARC 5,0 0,5 -5,0'] },
  TEXT: { category: 'create', examples: ['TEXT 0,0 2.5 0 PAGE-01'] },
  ERASE: { category: 'modify', examples: ['ERASE L'] },
  MOVE: { category: 'modify', examples: ['MOVE L 0,0 100,0'] },
  COPY: { category: 'modify', examples: ['COPY ALL 0,0 @0,-10'] },
  ROTATE: { category: 'modify', examples: ['ROTATE L 0,0 90'] },
  SCALE: { category: 'modify', examples: ['SCALE L 0,0 2'] },
  LAYER: { category: 'other', examples: ['LAYER M Walls', 'LAYER S 0'] },
  SELECT: { category: 'other', examples: ['SELECT W 0,0 100,100'] },
  ZOOM: { category: 'view', examples: ['ZOOM E'] },
  UNDO: { category: 'other', examples: ['UNDO', 'UNDO 2'] },
  REDO: { category: 'other', examples: ['REDO'] },
};

const SYNTAX =
  'Command name followed by its arguments separated by blanks; points as x,y or @dx,dy or @dist<angle; several commands separated by ";".';

/** `commands`: the names (paged, `search` narrows), or with `name` one command's description. */
function commands(ctx: OpContext): OpOutcome {
  const r = ctx.request;
  if (r.name !== undefined) {
    const name = typeof r.name === 'string' ? COMMAND_NAMES[r.name.toUpperCase()] : undefined;
    const known = name === undefined ? undefined : COMMANDS[name === 'ARC3P' ? 'ARC' : name];
    if (!name || !known)
      return fail(
        'unknown_command',
        `unknown command ${JSON.stringify(r.name)}; call commands without name to list them`,
      );
    const aliases = Object.keys(COMMAND_NAMES).filter(
      (alias) => COMMAND_NAMES[alias] === name && alias !== name,
    );
    const command = {
      name,
      aliases,
      category: known.category,
      preconditions: { document: true },
      batch: { op: 'run', syntax: SYNTAX, examples: known.examples },
    };
    return { events: [], result: { command }, fields: { command } };
  }
  const search = typeof r.search === 'string' ? r.search.toUpperCase() : '';
  const names = Object.keys(COMMANDS).filter((n) => n.includes(search));
  const { offset, limit } = paging(r, 200, 1000);
  const page = names.slice(offset, offset + limit);
  const found = {
    count: names.length,
    returned: page.length,
    next_offset: offset + page.length < names.length ? offset + page.length : null,
    commands: page,
    actions: [],
  };
  return { events: [], result: found, fields: found };
}

/** `entities`: how many entities a plain query lists (layouts, inserted blocks), in all and by type. */
function entitySummary(ctx: OpContext): OpOutcome {
  const model = docOf(ctx).model;
  const byType: Record<string, number> = {};
  let total = 0;
  const count = (handle: string) => {
    const e = dictGet(model.entities, handle);
    if (!e) return;
    const type = e.type === 'Raw' ? e.dxf_type : e.type;
    dictSet(byType, type, (dictGet(byType, type) ?? 0) + 1);
    total += 1;
  };
  for (const h of model.order) count(h);
  for (const h of insertedContents(model)) count(h);
  const summary = { total, by_type: byType };
  return { events: [], result: summary, fields: summary };
}

/** `history`: the operations this session answered, oldest first (the last `limit`, default 100). */
function history(ctx: OpContext): OpOutcome {
  const { limit } = paging(ctx.request, 100, 1000);
  const all = Object.values(ctx.session.operations);
  const entries = all.slice(Math.max(0, all.length - limit)).map((o) => {
    const status = operationStatus(o.answer);
    const error = typeof o.answer.error === 'string' ? `: ${o.answer.error}` : '';
    return {
      kind: status === 'failed' ? 'Error' : 'Operation',
      request_id: o.request_id,
      op: o.op,
      status,
      document_id: o.document_id,
      text: `${o.op} ${o.request_id} ${status}${error}`,
    };
  });
  return { events: [], result: { entries, count: all.length }, fields: { entries } };
}

export const discoveryOps = {
  commands: { kind: 'immediate', document: 'none', run: commands },
  entities: { kind: 'read', document: 'required', run: entitySummary },
  history: { kind: 'immediate', document: 'none', run: history },
} satisfies OpGroup;
