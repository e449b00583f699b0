/**
 * The dispatcher's checks, in the order the protocol lists them, and the queue: mutations one at a time in
 * arrival order, `state` / `capabilities` / `operation` answered without waiting behind them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editorOps } from '../../../src/editor/ops/index.js';
import type { OpTable } from '../../../src/editor/ops/types.js';
import {
  dxfText,
  freshId,
  type Harness,
  type Reply,
  resultOf,
  scratchDir,
  startHarness,
  writeText,
} from './helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const line = (x: number) => ({ type: 'Line', start: [x, 0], end: [x + 1, 1] });

describe('protocol_mismatch', () => {
  it('refuses a request without protocol, with another protocol, and a non-object', async () => {
    for (const request of [
      { op: 'state' },
      { op: 'state', protocol: 2 },
      { op: 'state', protocol: '1' },
      { op: 'new', protocol: 0, request_id: freshId() },
      'not an object',
      null,
    ]) {
      const answer = await h.raw(request);
      expect(answer.ok, JSON.stringify(request)).toBe(false);
      expect(answer.code).toBe('protocol_mismatch');
      expect(answer.error).toMatch(/protocol/);
      expect(answer.state.session_id).toBe(h.session.sessionId);
    }
  });

  it('comes before every other check (a bad session, no request id, an unknown op)', async () => {
    const answer = await h.raw({ protocol: 3, session_id: 'other', op: 'no_such_op' });
    expect(answer.code).toBe('protocol_mismatch');
  });

  it('records nothing', async () => {
    const before = (await h.events()).length;
    await h.raw({ op: 'new', request_id: freshId() });
    expect((await h.events()).length).toBe(before);
  });
});

describe('session_changed', () => {
  it("refuses a session_id that is not this session's, before the request id check", async () => {
    const answer = await h.raw({ protocol: 1, op: 'new', session_id: 'someone-else' });
    expect(answer.code).toBe('session_changed');
    expect(answer.state.session_id).toBe(h.session.sessionId);
  });

  it("accepts this session's id and an absent one", async () => {
    const mine = await h.raw({
      protocol: 1,
      op: 'new',
      request_id: freshId(),
      session_id: h.session.sessionId,
    });
    expect(mine.ok).toBe(true);
    const absent = await h.raw({ protocol: 1, op: 'state' });
    expect(absent.ok).toBe(true);
    expect(absent.state.session_id).toBe(h.session.sessionId);
    expect(absent.state.version).toBe('9.9.9-test');
  });
});

describe('answered from read models, without waiting in the queue', () => {
  it('state, capabilities and operation answer while a mutation holds the queue', async () => {
    // An op that waits for the test to let it go: the only way to hold the queue for as long as the
    // test needs, deterministically. Everything else is the real dispatcher and store.
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const ops: OpTable = {
      ...editorOps,
      hold: {
        kind: 'mutation',
        document: 'none',
        run: async () => {
          await gate;
          return { events: [] };
        },
      },
    };
    const held = await startHarness({ ops });
    try {
      const earlier = await held.ok('new');
      let holdDone = false;
      const holdId = freshId('hold');
      const holding = held.raw({ protocol: 1, op: 'hold', request_id: holdId }).then((a) => {
        holdDone = true;
        return a;
      });
      let queuedDone = false;
      const queuedId = freshId('queued');
      const queued = held.raw({ protocol: 1, op: 'new', request_id: queuedId }).then((a) => {
        queuedDone = true;
        return a;
      });
      await new Promise((resolve) => setTimeout(resolve, 20));

      const state = await held.raw({ protocol: 1, op: 'state' });
      expect(state.ok).toBe(true);
      expect(state.state.operation).toEqual({ request_id: holdId, op: 'hold', status: 'running' });
      expect(state.state.documents.map((d) => d.id)).toEqual([1]);
      const caps = await held.raw({ protocol: 1, op: 'capabilities' });
      expect(caps.ok).toBe(true);
      const operation = await held.raw({ protocol: 1, op: 'operation', request_id: earlier.request_id });
      expect(operation.ok).toBe(true);
      expect(resultOf<{ op: string }>(operation).op).toBe('new');
      expect(holdDone).toBe(false);
      expect(queuedDone).toBe(false);
      // `operation` knows the running and the queued mutation by their request ids.
      const running = await held.raw({ protocol: 1, op: 'operation', request_id: holdId });
      expect(running.ok).toBe(true);
      expect(resultOf<{ status: string; op: string }>(running)).toMatchObject({
        status: 'running',
        op: 'hold',
      });
      const waiting = await held.raw({ protocol: 1, op: 'operation', request_id: queuedId });
      expect(resultOf<{ status: string; op: string }>(waiting)).toMatchObject({
        status: 'queued',
        op: 'new',
      });

      // A read op goes through the queue: it sees every earlier mutation, so it waits too.
      let readDone = false;
      const read = held.raw({ protocol: 1, op: 'layers', document_id: 1 }).then((a) => {
        readDone = true;
        return a;
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(readDone).toBe(false);

      release();
      expect((await holding).ok).toBe(true);
      expect((await queued).document_id).toBe(2);
      // The layers read was sent after the second `new`, which made document 2 active.
      expect((await read).code).toBe('document_not_active');
      expect((await held.raw({ protocol: 1, op: 'state' })).state.operation).toBeNull();
    } finally {
      release();
      await held.close();
    }
  });

  it('state resolves before a queued open of a big file completes', async () => {
    const scratch = await scratchDir();
    try {
      const pairs: Array<[number, string | number]> = [
        [0, 'SECTION'],
        [2, 'ENTITIES'],
      ];
      for (let i = 0; i < 40_000; i++) {
        pairs.push([0, 'LINE'], [8, '0'], [10, i], [20, 0], [30, 0], [11, i + 1], [21, 1], [31, 0]);
      }
      pairs.push([0, 'ENDSEC'], [0, 'EOF']);
      const path = await writeText(scratch.path('big.dxf'), dxfText(pairs));

      const order: string[] = [];
      const opening = h.call('open', { path }).then((a) => {
        order.push('open');
        return a;
      });
      const state = await h.raw({ protocol: 1, op: 'state' }).then((a) => {
        order.push('state');
        return a;
      });
      expect(state.state.documents).toEqual([]);
      const opened = await opening;
      expect(opened.ok).toBe(true);
      expect(order).toEqual(['state', 'open']);
      const count = await h.raw({ protocol: 1, op: 'query', limit: 1 });
      expect(count.count).toBe(40_000);
    } finally {
      await scratch.remove();
    }
  });
});

describe('request_id_required', () => {
  it('refuses a mutation without a request id, with an empty one, or one over 128 bytes', async () => {
    for (const request_id of [undefined, '', 42, 'x'.repeat(129), 'é'.repeat(65)]) {
      const answer = await h.raw({ protocol: 1, op: 'new', request_id });
      expect(answer.code, JSON.stringify(request_id)).toBe('request_id_required');
    }
    expect(h.session.state.tabs).toEqual([]);
  });

  it('accepts a request id of exactly 128 bytes (multi-byte characters counted as bytes)', async () => {
    const ascii = await h.raw({ protocol: 1, op: 'new', request_id: 'a'.repeat(128) });
    expect(ascii.ok).toBe(true);
    expect(ascii.request_id).toBe('a'.repeat(128));
    const wide = await h.raw({ protocol: 1, op: 'new', request_id: 'é'.repeat(64) });
    expect(wide.ok).toBe(true);
  });

  it('is not needed by reads', async () => {
    await h.newDoc();
    const answer = await h.raw({ protocol: 1, op: 'layers' });
    expect(answer.ok).toBe(true);
  });

  it('comes before the document checks', async () => {
    const answer = await h.raw({ protocol: 1, op: 'entities_create', document_id: 99 });
    expect(answer.code).toBe('request_id_required');
  });
});

describe('idempotent retry and request_id_reused', () => {
  it('the same request id and body return the identical answer and append nothing', async () => {
    const id = await h.newDoc();
    const request = {
      protocol: 1,
      op: 'entities_create',
      request_id: freshId(),
      document_id: id,
      entities: [line(0), line(5)],
    };
    const first = await h.raw(request);
    expect(first.ok).toBe(true);
    const events = (await h.events()).length;
    // The same body with its keys in another order is the same body.
    const { entities, ...rest } = request;
    const second = await h.raw({ entities, ...rest });
    expect(second).toEqual(first);
    expect((await h.events()).length).toBe(events);
    const count = await h.raw({ protocol: 1, op: 'query', limit: 0 });
    expect(count.count).toBe(2);
  });

  it('a failed mutation is recorded too: its retry gets the same failure', async () => {
    await h.newDoc();
    const request = {
      protocol: 1,
      op: 'entities_delete',
      request_id: freshId(),
      document_id: 1,
      handles: ['FFF'],
    };
    const first = await h.raw(request);
    expect(first.code).toBe('entity_absent');
    const events = (await h.events()).length;
    expect(await h.raw(request)).toEqual(first);
    expect((await h.events()).length).toBe(events);
  });

  it('a retry sent while the first is still running shares its answer', async () => {
    const id = await h.newDoc();
    const request = {
      protocol: 1,
      op: 'entities_create',
      request_id: freshId(),
      document_id: id,
      entities: [line(1)],
    };
    const before = (await h.events()).length;
    const [a, b] = await Promise.all([h.raw(request), h.raw(request)]);
    expect(a.ok).toBe(true);
    expect(b).toEqual(a);
    // One EntitiesCreated and one OperationAnswered.
    expect((await h.events()).length).toBe(before + 2);
  });

  it('the same request id with another body is request_id_reused, and nothing changes', async () => {
    const id = await h.newDoc();
    const requestId = freshId();
    const first = await h.raw({
      protocol: 1,
      op: 'entities_create',
      request_id: requestId,
      document_id: id,
      entities: [line(0)],
    });
    expect(first.ok).toBe(true);
    const events = (await h.events()).length;
    const reused = await h.raw({
      protocol: 1,
      op: 'entities_create',
      request_id: requestId,
      document_id: id,
      entities: [line(7)],
    });
    expect(reused.code).toBe('request_id_reused');
    expect((await h.events()).length).toBe(events);
    // Also for another op under the same id.
    const otherOp = await h.raw({ protocol: 1, op: 'new', request_id: requestId });
    expect(otherOp.code).toBe('request_id_reused');
  });

  it('request_id_reused comes before the document checks', async () => {
    await h.newDoc();
    const requestId = freshId();
    await h.raw({ protocol: 1, op: 'new', request_id: requestId });
    const answer = await h.raw({
      protocol: 1,
      op: 'entities_create',
      request_id: requestId,
      document_id: 99,
    });
    expect(answer.code).toBe('request_id_reused');
  });
});

describe('document checks', () => {
  it('document_closed: an unknown or malformed document_id, for mutations and reads', async () => {
    await h.newDoc();
    for (const document_id of [99, '1', 0, null]) {
      const mutation = await h.call('entities_create', { document_id, entities: [line(0)] });
      expect(mutation.code, JSON.stringify(document_id)).toBe('document_closed');
      const read = await h.raw({ protocol: 1, op: 'query', document_id });
      expect(read.code).toBe('document_closed');
    }
    // A closed document is closed too.
    await h.ok('close', { document_id: 1 });
    expect((await h.call('save', { document_id: 1, path: '/tmp/x.dxf' })).code).toBe('document_closed');
  });

  it('document_not_active: a document that is open but not active, except activate, close and entities_copy_to', async () => {
    const first = await h.newDoc();
    const second = await h.newDoc();
    expect((await h.raw({ protocol: 1, op: 'state' })).state.document_id).toBe(second);
    const [handle] = await h.create([line(0)], second);

    for (const [op, fields] of [
      ['entities_create', { entities: [line(0)] }],
      ['save', { path: '/tmp/never.dxf' }],
      ['undo', {}],
    ] as const) {
      const answer = await h.call(op, { document_id: first, ...fields });
      expect(answer.code, op).toBe('document_not_active');
    }
    expect((await h.raw({ protocol: 1, op: 'query', document_id: first })).code).toBe('document_not_active');

    const copied = await h.call('entities_copy_to', { document_id: first, handles: [handle] });
    expect(copied.ok).toBe(true);
    expect(resultOf<{ count: number }>(copied).count).toBe(1);
    const activated = await h.call('activate', { document_id: first });
    expect(activated.ok).toBe(true);
    expect(activated.state.document_id).toBe(first);
    const closed = await h.call('close', { document_id: second, discard: true });
    expect(closed.ok).toBe(true);
    expect(closed.state.documents.map((d) => d.id)).toEqual([first]);
  });

  it('document_required: a mutation without document_id, except new and open; a read with no document', async () => {
    const noDoc = await h.raw({ protocol: 1, op: 'query' });
    expect(noDoc.code).toBe('document_required');
    await h.newDoc();
    for (const op of ['entities_create', 'sysvar', 'close', 'activate', 'entities_copy_to']) {
      const answer = await h.call(op, { entities: [line(0)] });
      expect(answer.code, op).toBe('document_required');
    }
    // undo, redo and save act on the active document: the REST surface runs them without the wrapper.
    expect((await h.call('undo')).code).toBe('nothing_to_undo');
    expect((await h.call('redo')).code).toBe('nothing_to_redo');
    expect((await h.call('save')).code).toBe('path_required');
    // A read without document_id uses the active document.
    expect((await h.raw({ protocol: 1, op: 'query' })).ok).toBe(true);
    expect((await h.call('new')).ok).toBe(true);
  });

  it('open does not need a document_id', async () => {
    const scratch = await scratchDir();
    try {
      const path = await writeText(
        scratch.path('a.dxf'),
        dxfText([
          [0, 'SECTION'],
          [2, 'ENTITIES'],
          [0, 'ENDSEC'],
          [0, 'EOF'],
        ]),
      );
      expect((await h.call('open', { path })).ok).toBe(true);
    } finally {
      await scratch.remove();
    }
  });
});

describe('stale_state', () => {
  it("refuses a revision that is not the document's, with the current state in the answer", async () => {
    const id = await h.newDoc();
    await h.create([line(0)]);
    await h.create([line(1)]);
    const revision = await h.revision();
    expect(revision).toBe(2);
    const before = (await h.events()).length;
    const stale = await h.call('entities_create', { document_id: id, revision: 1, entities: [line(2)] });
    expect(stale.code).toBe('stale_state');
    expect(stale.error).toMatch(/revision 2/);
    expect(stale.state.revision).toBe(2);
    expect(stale.state.documents).toEqual([
      { id, title: 'Drawing1.dxf', path: null, dirty: true, revision: 2 },
    ]);
    // Only its answer was recorded; no step.
    const appended = (await h.events()).slice(before).map((e) => e.type);
    expect(appended).toEqual(['OperationAnswered']);
    const current = await h.call('entities_create', { document_id: id, revision: 2, entities: [line(2)] });
    expect(current.ok).toBe(true);
    expect(current.state.revision).toBe(3);
    const staleRead = await h.raw({ protocol: 1, op: 'query', revision: 0 });
    expect(staleRead.code).toBe('stale_state');
  });

  it('comes after the document checks', async () => {
    await h.newDoc();
    const answer = await h.call('entities_create', { revision: 99, entities: [line(0)] });
    expect(answer.code).toBe('document_required');
  });
});

describe('unknown_operation', () => {
  it('refuses an unknown or missing op, after the request id and document checks', async () => {
    const missingId = await h.raw({ protocol: 1, op: 'fly' });
    expect(missingId.code).toBe('request_id_required');
    const unknown = await h.call('fly');
    expect(unknown.code).toBe('unknown_operation');
    expect(unknown.error).toMatch(/fly/);
    const noOp = await h.raw({ protocol: 1, request_id: freshId() });
    expect(noOp.code).toBe('unknown_operation');
    const badDoc = await h.call('fly', { document_id: 5 });
    expect(badDoc.code).toBe('document_closed');
    await h.newDoc();
    const stale = await h.call('fly', { document_id: 1, revision: 7 });
    expect(stale.code).toBe('stale_state');
  });
});

describe('mutations run one at a time in arrival order', () => {
  it('many requests fired at once get revisions and handles in the order they were sent', async () => {
    const id = await h.newDoc();
    const ids = Array.from({ length: 25 }, () => freshId('burst'));
    const answers = await Promise.all(
      ids.map((request_id, i) =>
        h.raw({ protocol: 1, op: 'entities_create', request_id, document_id: id, entities: [line(i)] }),
      ),
    );
    const revisions = answers.map((a) => a.state.revision);
    expect(revisions).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    const handles = answers.map((a) =>
      Number.parseInt(resultOf<{ handles: string[] }>(a).handles[0] ?? '', 16),
    );
    for (let i = 1; i < handles.length; i++) expect(handles[i]).toBeGreaterThan(handles[i - 1] as number);
    // The log holds their answers in the same order.
    const answered = (await h.events())
      .filter((e) => e.type === 'OperationAnswered')
      .map((e) => (e.data as { request_id: string }).request_id);
    expect(answered.slice(-25)).toEqual(ids);
    // Each entity sits at its x in the drawing order.
    const query = await h.raw({ protocol: 1, op: 'query', detail: 'geometry' });
    const xs = (query.entities as Array<{ start: number[] }>).map((e) => e.start[0]);
    expect(xs).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it('a read sent between mutations sees exactly the mutations sent before it', async () => {
    const id = await h.newDoc();
    const sent: Array<Promise<Reply>> = [];
    for (let i = 0; i < 6; i++) {
      sent.push(h.call('entities_create', { document_id: id, entities: [line(i)] }));
      if (i === 2) sent.push(h.raw({ protocol: 1, op: 'query', limit: 0 }));
    }
    const answers = await Promise.all(sent);
    expect(answers[3]?.count).toBe(3);
    expect(answers.at(-1)?.state.revision).toBe(6);
  });
});
