/** The history of documents opened from DXF (entities in EntitiesLoaded), saved and closed. */
import { describe, expect, it } from 'vitest';
import { documentAt, readSessionHistory, treeStatus } from '../../../src/editor/history/index.js';
import { withHarnessAndDir } from '../dispatcher/helpers.js';

const LINE = (x: number) => ({ type: 'Line', start: [x, 0], end: [x + 1, 0] });

describe('the history of a session', () => {
  it('keeps opened, saved and closed documents readable at every revision', async () => {
    await withHarnessAndDir(async (h, dir) => {
      const first = await h.newDoc();
      await h.create([LINE(0), LINE(1), LINE(2)], first);
      const path = dir.path('three.dxf');
      await h.ok('save', { document_id: first, path });
      await h.ok('close', { document_id: first });
      const opened = (await h.ok('open', { path })).document_id as number;
      await h.create([LINE(9)], opened);
      const history = await readSessionHistory(h.store, h.session.sessionId);

      const closed = history.documents[String(first)];
      expect(closed?.closed).toMatchObject({ discarded: false });
      expect(closed?.saves).toEqual([expect.objectContaining({ revision: 1, path })]);
      expect(closed?.path).toBe(path);
      // Revision 1 is the document right after the create; the save came after it, as its own operation.
      const atOne = documentAt(closed as NonNullable<typeof closed>, 1);
      expect([atOne.saved_revision, atOne.path]).toEqual([0, null]);

      const doc = history.documents[String(opened)];
      if (!doc) throw new Error('no history of the opened document');
      expect(doc.revisions.map((r) => [r.kind, r.op])).toEqual([
        ['opened', 'open'],
        ['step', 'entities_create'],
      ]);
      const lines = (revision: number) =>
        Object.values(documentAt(doc, revision).model.entities).filter((e) => e.type === 'Line').length;
      // Revision 0 is the file with its entities (loaded after the open event, in the same operation).
      expect(lines(0)).toBe(3);
      expect(lines(1)).toBe(4);
      expect(JSON.parse(JSON.stringify(documentAt(doc, 1)))).toEqual(
        JSON.parse(JSON.stringify(h.session.state.documents[String(opened)])),
      );
      expect(treeStatus(doc)).toMatchObject({ node: 1 });
      expect(() => documentAt(doc, 2)).toThrow(RangeError);
    });
  });
});
