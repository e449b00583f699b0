/**
 * The log is the truth: the session's read model rebuilt from the log equals the live one, and a
 * session resumed over a level store (restart) sees the same documents and recorded answers.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editorSessionProjection } from '../../../projections/editor-session.js';
import { rebuildProjection } from '../../../projections/rebuild.js';
import { openStore } from '../../../src/store/open.js';
import { freshId, type Harness, type Reply, scratchDir, startHarness } from './helpers.js';

let scratch: Awaited<ReturnType<typeof scratchDir>>;
beforeAll(async () => {
  scratch = await scratchDir();
});
afterAll(async () => {
  await scratch.remove();
});

const LINE = { type: 'Line', start: [0, 0], end: [10, 0] };

/**
 * A session's worth of work over two documents: most ops, a save, undo and redo, refused requests,
 * a closed document. Returns the answers of the mutations sent with known request ids.
 */
async function work(h: Harness): Promise<Array<{ request: Record<string, unknown>; answer: Reply }>> {
  const sent: Array<{ request: Record<string, unknown>; answer: Reply }> = [];
  const send = async (op: string, fields: Record<string, unknown>) => {
    const request = { protocol: 1, op, request_id: freshId(op), ...fields };
    const answer = await h.raw(request);
    sent.push({ request, answer });
    return answer;
  };
  const first = (await send('new', {})).document_id as number;
  const created = await send('entities_create', {
    document_id: first,
    entities: [
      LINE,
      { type: 'Circle', center: [5, 5], radius: 2, layer: 'C' },
      { type: 'Text', value: 'T', position: [1, 1] },
      {
        type: 'LwPolyline',
        points: [
          [0, 0],
          [1, 1, 0.3],
          [2, 0],
        ],
        closed: true,
      },
    ],
  });
  const [a, b, c, d] = (created.result as { handles: string[] }).handles as [string, string, string, string];
  await send('entities_transform', { document_id: first, handles: [a, d], action: 'rotate', angle: 45 });
  await send('entities_transform', { document_id: first, handles: [b], action: 'copy', vector: [3, 0] });
  await send('set_properties', { document_id: first, handles: [c], properties: { color: 4, layer: 'TXT' } });
  await send('xdata_set', {
    document_id: first,
    handles: [a],
    app: 'ES',
    data: [{ code: 1040, value: 1.5 }],
  });
  await send('block_define', { document_id: first, name: 'B', handles: [b] });
  await send('entities_create', {
    document_id: first,
    entities: [{ type: 'Insert', name: 'B', position: [9, 9] }],
  });
  await send('group_create', { document_id: first, name: 'G', handles: [a, c] });
  await send('selection_set_save', { document_id: first, name: 'S', handles: [c, a] });
  await send('selection_set_load', { document_id: first, name: 'S', select: true });
  await send('layout_create', { document_id: first, name: 'Sheet' });
  await send('page_setup_set', { document_id: first, layout: 'Sheet', paper: 'ANSI B', scale: '1:20' });
  await send('sysvar', { document_id: first, set: { LTSCALE: 2, GRIDMODE: 0 } });
  await send('entities_delete', { document_id: first, handles: [d] });
  await send('undo', { document_id: first });
  await send('undo', { document_id: first });
  await send('redo', { document_id: first });
  await send('save', { document_id: first, path: join(scratch.dir, `${freshId('es')}.dxf`) });
  await send('entities_delete', { document_id: first, handles: ['DEAD'] });
  await send('entities_create', { document_id: first, revision: 0, entities: [LINE] });
  const second = (await send('new', { template: 'imperial' })).document_id as number;
  await send('entities_copy_to', { document_id: second, source_document_id: first, handles: [a, c] });
  await send('file_identity', { document_id: second });
  const third = (await send('new', {})).document_id as number;
  await send('entities_create', { document_id: third, entities: [LINE] });
  await send('close', { document_id: third, discard: true });
  await send('activate', { document_id: first });
  return sent;
}

describe('rebuilding the read model from the log', () => {
  it('gives a state equal to the live one', async () => {
    const h = await startHarness();
    try {
      await work(h);
      const live = JSON.parse(JSON.stringify(h.session.state));
      expect(Object.keys(live.documents).sort()).toEqual(['1', '2']);
      expect(Object.keys(live.operations).length).toBeGreaterThan(25);
      const rebuilt = await rebuildProjection(h.store, editorSessionProjection(h.session.sessionId));
      expect(JSON.parse(JSON.stringify(rebuilt.state))).toEqual(live);
      expect(rebuilt.events).toBe((await h.events()).length);
    } finally {
      await h.close();
    }
  });

  it('gives the live state after an open of a file parsed off the thread (its batches kept as handed over)', async () => {
    const h = await startHarness();
    try {
      const parts: string[] = ['0\nSECTION\n2\nENTITIES\n'];
      for (let i = 0; i < 30_000; i++)
        parts.push(`0\nLINE\n8\nL${i % 7}\n10\n${i}.25\n20\n-0.0\n11\n${i}\n21\n1e-7\n`);
      parts.push('0\nENDSEC\n0\nEOF\n');
      const path = join(scratch.dir, `${freshId('big')}.dxf`);
      await writeFile(path, parts.join(''), 'latin1');
      const opened = await h.raw({ protocol: 1, op: 'open', request_id: freshId('open'), path });
      expect(opened.ok).toBe(true);
      const id = opened.document_id as number;
      await h.raw({
        protocol: 1,
        op: 'entities_delete',
        request_id: freshId('d'),
        document_id: id,
        handles: [h.session.state.documents[String(id)]?.model.order[0]],
      });
      const live = JSON.parse(JSON.stringify(h.session.state));
      expect(live.documents[String(id)].model.order).toHaveLength(29_999);
      const rebuilt = await rebuildProjection(h.store, editorSessionProjection(h.session.sessionId));
      expect(JSON.parse(JSON.stringify(rebuilt.state))).toEqual(live);
    } finally {
      await h.close();
    }
  });

  it('another session in the same store is not mixed in', async () => {
    const store = await openStore('memory:');
    const one = await startHarness({ store, keepStore: true });
    const two = await startHarness({ store, keepStore: true });
    try {
      await work(one);
      await two.newDoc();
      await two.create([LINE, LINE]);
      const rebuiltOne = await rebuildProjection(store, editorSessionProjection(one.session.sessionId));
      const rebuiltTwo = await rebuildProjection(store, editorSessionProjection(two.session.sessionId));
      expect(JSON.parse(JSON.stringify(rebuiltOne.state))).toEqual(
        JSON.parse(JSON.stringify(one.session.state)),
      );
      expect(JSON.parse(JSON.stringify(rebuiltTwo.state))).toEqual(
        JSON.parse(JSON.stringify(two.session.state)),
      );
      expect(Object.keys(rebuiltTwo.state.documents)).toEqual(['1']);
    } finally {
      await one.close();
      await two.close();
      await store.close();
    }
  });
});

describe('a session resumed after a restart (level store)', () => {
  const strip = (answer: Reply) => {
    const { state: _state, ...rest } = answer;
    return rest;
  };

  // Resumed from the log alone, and after a rebuild of the read model (which stores a snapshot of it).
  for (const start of ['replayed', 'rebuilt'] as const) {
    it(`sees the same documents and recorded answers (${start})`, async () => {
      const url = `level:${join(scratch.dir, `events-${start}`)}`;
      const firstStore = await openStore(url);
      const before = await startHarness({ store: firstStore });
      const sessionId = before.session.sessionId;
      const sent = await work(before);
      const stateBefore = (await before.raw({ protocol: 1, op: 'state' })).state;
      const queryBefore = await before.raw({ protocol: 1, op: 'query', detail: 'full' });
      const modelBefore = JSON.parse(JSON.stringify(before.session.state.documents));
      const eventsBefore = (await before.events()).length;
      await before.close();

      const store = await openStore(url);
      if (start === 'rebuilt') {
        const rebuilt = await rebuildProjection(store, editorSessionProjection(sessionId));
        expect(JSON.parse(JSON.stringify(rebuilt.state.documents))).toEqual(modelBefore);
      }
      const after = await startHarness({ store, sessionId });
      try {
        // SessionStarted again, nothing else.
        expect((await after.events()).length).toBe(eventsBefore + 2);
        const stateAfter = (await after.raw({ protocol: 1, op: 'state' })).state;
        expect(stateAfter.session_id).toBe(sessionId);
        expect(stateAfter.documents).toEqual(stateBefore.documents);
        expect(stateAfter.document_id).toBe(stateBefore.document_id);
        expect(stateAfter.selection).toEqual(stateBefore.selection);
        expect(JSON.parse(JSON.stringify(after.session.state.documents))).toEqual(modelBefore);
        expect(strip(await after.raw({ protocol: 1, op: 'query', detail: 'full' }))).toEqual(
          strip(queryBefore),
        );
        // A live session: its read model is not marked ended.
        expect(after.session.state.ended_at).toBeNull();

        // Every recorded answer: by `operation`, and by an idempotent retry that appends nothing.
        const eventsNow = (await after.events()).length;
        for (const { request, answer } of sent) {
          const operation = await after.raw({ protocol: 1, op: 'operation', request_id: request.request_id });
          expect((operation.result as { answer: unknown }).answer).toEqual(strip(answer));
          const retried = await after.raw(request);
          expect(strip(retried)).toEqual(strip(answer));
        }
        expect((await after.events()).length).toBe(eventsNow);
        const firstRequest = sent[0]?.request;
        expect(firstRequest?.op).toBe('new');
        expect((await after.raw({ ...firstRequest, template: 'imperial' })).code).toBe('request_id_reused');

        // And it carries on: new documents get new ids, new steps new revisions.
        const next = await after.ok('new');
        expect(next.document_id).toBe(4);
        await after.ok('activate', { document_id: 1 });
        const revision = stateBefore.documents.find((doc) => doc.id === 1)?.revision as number;
        const more = await after.ok('entities_create', { document_id: 1, revision, entities: [LINE] });
        expect(more.state.revision).toBe(revision + 1);
        const handles = (await after.raw({ protocol: 1, op: 'query', detail: 'summary' })).entities as Array<{
          handle: string;
        }>;
        expect(new Set(handles.map((e) => e.handle)).size).toBe(handles.length);
      } finally {
        await after.close();
      }
    });
  }
});
