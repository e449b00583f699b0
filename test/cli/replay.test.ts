/**
 * `chronicle replay` over a data directory an editor left behind: a document at a revision as DXF,
 * `--verify` against the live read model's snapshot (and a tampered one), a crashed session, bad input,
 * and the LevelDB lock while a server holds the store.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type EditorSessionState, editorSessionProjection } from '../../projections/editor-session.js';
import { readDxf } from '../../src/editor/dxf/index.js';
import { DIGEST_FORMAT, type VerificationDigest } from '../../src/editor/history/index.js';
import { liveSnapshotName } from '../../src/editor/session.js';
import type { EventStore, Snapshot } from '../../src/store/types.js';
import { sessionStream } from '../../streams/editor.js';
import { body, Client, startEditor } from '../http/editor/helpers.js';
import { assertBuilt, runCli, tempDir, withDataStore } from './helpers.js';

vi.setConfig({ testTimeout: 30_000, hookTimeout: 60_000 });

let data: string;
let ended: string;
let crashed: string;
const LINE = (x: number) => ({ type: 'Line', start: [x, 0], end: [x + 10, 0] });

beforeAll(async () => {
  assertBuilt();
  data = await tempDir();
  // One session that ends cleanly: document 1 with three steps and an undo, then document 2 (active at the end).
  const editor = await startEditor(['--data', data]);
  const client = new Client(editor.port);
  ended = body(await client.get('/api/v1/ready')).session_id as string;
  // Document 1 is the blank drawing the editor starts with.
  await client.post('/api/v1/entities', { entities: [LINE(0)] });
  await client.post('/api/v1/entities', { entities: [LINE(20), LINE(40)] });
  await client.post('/api/v1/undo');
  await client.post('/api/v1/documents', {});
  await client.post('/api/v1/entities', { entities: [LINE(60)] });
  await editor.stop();
  // One that crashes.
  const second = await startEditor(['--data', data]);
  const secondClient = new Client(second.port);
  crashed = body(await secondClient.get('/api/v1/ready')).session_id as string;
  second.child.kill('SIGKILL');
  await second.done;
});

afterAll(async () => {
  if (data) await rm(data, { recursive: true, force: true });
});

const replay = (...args: string[]) => runCli(['replay', ...args, '--data', data], { timeoutMs: 30_000 });

describe('chronicle replay', () => {
  it('rebuilds a document at a revision and saves it as DXF with the DXF writer', async () => {
    const out = join(data, 'at-2.dxf');
    const result = await replay(ended, '--document', '1', '--to', '2', '--out', out);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(`^session ${ended} document 1 \\(Drawing1\\.dxf\\) at revision 2 of 3: `),
    );
    const model = readDxf(await readFile(out, 'latin1'));
    const lines = Object.values(model.entities).filter((e) => e.type === 'Line');
    const xs = lines.map((e) => (e as { start: [number, number, number] }).start[0]);
    expect(xs.sort((a, b) => a - b)).toEqual([0, 20, 40]);
    // After the undo (revision 3) the two lines of the second step are gone.
    const undone = join(data, 'at-3.dxf');
    expect((await replay(ended, '--document', '1', '--out', undone)).code).toBe(0);
    const after = readDxf(await readFile(undone, 'latin1'));
    expect(Object.values(after.entities).filter((e) => e.type === 'Line')).toHaveLength(1);
  });

  it('takes the document active at the end of the session by default', async () => {
    const result = await replay(ended);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/ document 2 \(Drawing2\.dxf\) at revision 1 of 1: /);
  });

  it('--verify: the whole session replayed equals the live read model snapshot', async () => {
    const result = await replay(ended, '--verify');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^verified: \d+ events replayed equal the live read model's snapshot$/m);
  });

  it('--verify passes after a save and a selection, which are no revision of their own', async () => {
    const own = await tempDir();
    try {
      const editor = await startEditor(['--data', own]);
      const client = new Client(editor.port);
      const session = body(await client.get('/api/v1/ready')).session_id as string;
      expect((await client.post('/api/v1/entities', { entities: [LINE(0)] })).status).toBe(201);
      const saved = await client.post('/api/v1/save', { path: join(own, 'saved.dxf') });
      expect(saved.status, saved.text).toBe(200);
      const selected = await client.post('/api/v1/commands', { cmd: 'SELECT ALL' });
      expect(selected.status, selected.text).toBe(200);
      await editor.stop();
      const result = await runCli(['replay', session, '--verify', '--data', own], { timeoutMs: 30_000 });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/ document 1 \(saved\.dxf\) at revision 1 of 1: /);
    } finally {
      await rm(own, { recursive: true, force: true });
    }
  });

  /** A copy of the data directory (the log as it is) whose live snapshot of `ended` is `tamper`'s. */
  async function withTamperedSnapshot(tamper: (source: EventStore) => Promise<Snapshot>): Promise<string> {
    const copy = await tempDir();
    await withDataStore(data, async (source) => {
      await withDataStore(copy, async (target) => {
        for await (const event of source.readAll())
          await target.append(event.stream, [
            { type: event.type, data: event.data, metadata: event.metadata },
          ]);
        await target.saveSnapshot(await tamper(source));
      });
    });
    return copy;
  }

  /** The session's read model, replayed from the log by its projection. */
  async function replayedState(source: EventStore): Promise<EditorSessionState> {
    const projection = editorSessionProjection(ended);
    let state = projection.initial();
    for await (const event of source.readStream(sessionStream(ended)))
      state = projection.evolve(state, event);
    return state;
  }

  /** The handle of document 1's line (one is left after the undo). */
  function lineOf(state: EditorSessionState): string {
    const lines = Object.values(state.documents['1']?.model.entities ?? {}).filter((e) => e.type === 'Line');
    expect(lines).toHaveLength(1);
    return (lines[0] as { handle: string }).handle;
  }

  it('the live snapshot is the digest of the read model: entities by digest, the rest in full', async () => {
    await withDataStore(data, async (store) => {
      const snapshot = await store.loadSnapshot<VerificationDigest>(liveSnapshotName(ended));
      expect(snapshot?.state.digest).toBe(DIGEST_FORMAT);
      const doc = snapshot?.state.documents['1'];
      expect(doc?.title).toBe('Drawing1.dxf');
      const digests = Object.values(doc?.model.entities ?? {});
      expect(digests.length).toBeGreaterThan(0);
      for (const digest of digests) expect(digest).toMatch(/^[\w-]{16}$/);
    });
  });

  it('--verify fails with a summary naming what differs, the entity by its handle', async () => {
    let handle = '';
    const copy = await withTamperedSnapshot(async (source) => {
      const snapshot = await source.loadSnapshot<VerificationDigest>(liveSnapshotName(ended));
      if (!snapshot) throw new Error('the ended session left no live snapshot');
      const doc = snapshot.state.documents['1'];
      if (!doc) throw new Error('no document 1 in the snapshot');
      doc.title = 'Tampered.dxf';
      // The one line left after the undo: its digest as if it were another entity.
      handle = lineOf(await replayedState(source));
      expect(doc.model.entities[handle]).toMatch(/^[\w-]{16}$/);
      doc.model.entities[handle] = 'AAAAAAAAAAAAAAAA';
      return snapshot;
    });
    try {
      const result = await runCli(['replay', ended, '--verify', '--data', copy]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/verify failed/);
      expect(result.stderr).toContain('documents.1.title: "Tampered.dxf" -> "Drawing1.dxf"');
      expect(result.stderr).toMatch(
        new RegExp(`documents\\.1\\.model\\.entities\\.${handle}: "AAAAAAAAAAAAAAAA" -> "[\\w-]{16}"`),
      );
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });

  it('--verify of a snapshot of the whole state (older sessions) compares it whole', async () => {
    let handle = '';
    const whole = async (source: EventStore, change?: (state: EditorSessionState) => void) => {
      const live = await source.loadSnapshot<VerificationDigest>(liveSnapshotName(ended));
      if (!live) throw new Error('the ended session left no live snapshot');
      const state = await replayedState(source);
      change?.(state);
      return { ...live, state } as Snapshot;
    };
    const same = await withTamperedSnapshot((source) => whole(source));
    const moved = await withTamperedSnapshot((source) =>
      whole(source, (state) => {
        handle = lineOf(state);
        const line = state.documents['1']?.model.entities[handle];
        if (line?.type !== 'Line') throw new Error('no line in document 1');
        line.start = [5, 5, 0];
      }),
    );
    try {
      const verified = await runCli(['replay', ended, '--verify', '--data', same]);
      expect(verified.stderr).toBe('');
      expect(verified.code).toBe(0);
      const failed = await runCli(['replay', ended, '--verify', '--data', moved]);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain(`documents.1.model.entities.${handle}.start[0]: 5 -> 0`);
    } finally {
      await rm(same, { recursive: true, force: true });
      await rm(moved, { recursive: true, force: true });
    }
  });

  it('--verify of a crashed session says there is no live snapshot to compare with', async () => {
    const result = await replay(crashed, '--verify');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cannot verify session .*: no snapshot of its live read model/);
    // Without --verify the crashed session replays.
    expect((await replay(crashed)).code).toBe(0);
  });

  it.each([
    [['no-such-session'], /no editor session no-such-session in level:/],
    [['ENDED', '--document', '7'], /has no document 7; its documents: 1, 2/],
    [['ENDED', '--document', '1', '--to', '9'], /document 1 has revisions 0 to 3; --to 9 is not one of them/],
    [['ENDED', '--out', '/no/such/dir/x.dxf'], /save_failed|cannot|no such/i],
  ])('fails with exit 1 and a clear message: %j', async (args, message) => {
    const result = await replay(...args.map((a) => (a === 'ENDED' ? ended : a)));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
  });

  it.each([
    [[], /missing required argument 'session-id'/],
    [['x', '--to', 'abc'], /a revision is a whole number/],
    [['x', '--to', '-1'], /a revision is a whole number|unknown option/],
    [['x', '--document', '1.5'], /a document id is a whole number/],
    [['x', '--bogus'], /unknown option '--bogus'/],
  ])('bad input %j: usage on stderr, exit 2', async (args, message) => {
    const result = await replay(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/Usage: chronicle replay/);
  });

  it('refuses, with a clear message, while a server holds the LevelDB store', async () => {
    const server = await startEditor(['--data', data]);
    try {
      const result = await replay(ended);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^chronicle replay: the store in .* is held by another process — LevelDB allows one process at a time/,
      );
    } finally {
      await server.stop();
    }
  });
});
