import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type EventStore,
  type ExpectedRevision,
  STREAM_DELETED,
  StreamDeletedError,
  SYSTEM_STREAM,
} from '../../../src/store/index.js';
import { caught, readAll, readStream } from '../helpers.js';
import { levelFileContents } from '../level-files.js';
import { type Harness, requireCapability, requireDurable } from './harness.js';

const secret = (n: number) => ({ type: 'Secret', data: { secret: `run-output-${n}` } });
const kept = (n: number) => ({ type: 'Kept', data: { n } });

/**
 * The files of `dir` that contain `text`: in their bytes, or in what LevelDB reads from them (tables
 * uncompressed, log records whole), where a raw search could miss a copy (see level-files.ts).
 */
function filesContaining(dir: string, text: string): string[] {
  const needle = Buffer.from(text);
  return readdirSync(dir).filter((name) =>
    levelFileContents(join(dir, name)).some((part) => part.includes(needle)),
  );
}

/** a: 5 events over three appends, interleaved with b and c. */
async function seed(store: EventStore) {
  await store.append('a', [secret(0), secret(1)]);
  await store.append('b', [kept(0), kept(1)]);
  await store.append('a', [secret(2), secret(3)]);
  await store.append('c', [kept(2)]);
  await store.append('a', [secret(4)]);
}

/** Everything a deleted stream must answer: reads, appends whatever is expected, a second delete. */
async function expectTombstone(store: EventStore, stream: string) {
  const headBefore = await store.headPosition();
  for (const read of [
    () => readStream(store, stream),
    () => readStream(store, stream, { direction: 'backwards' }),
    () => readStream(store, stream, { from: 2, maxCount: 1 }),
    () => store.streamRevision(stream),
  ]) {
    const error = await caught(read, StreamDeletedError);
    expect(error.stream).toBe(stream);
    expect(error.code).toBe('stream_deleted');
  }
  const expectations: Array<ExpectedRevision | undefined> = [
    undefined,
    'any',
    'no_stream',
    'stream_exists',
    4,
    5,
  ];
  for (const expectedRevision of expectations) {
    const options = expectedRevision === undefined ? undefined : { expectedRevision };
    await caught(store.append(stream, [secret(99)], options), StreamDeletedError);
  }
  await caught(store.deleteStream(stream), StreamDeletedError);
  expect(await store.headPosition()).toBe(headBefore);
}

export function deleteContract(h: Harness) {
  describe('deleteStream', () => {
    it('removes the stream’s events for good, leaves the others alone and records StreamDeleted', async () => {
      const store = await h.open();
      await seed(store);
      const before = await readAll(store);
      expect(before).toHaveLength(8);

      await store.deleteStream('a');

      const after = await readAll(store);
      expect(after.filter((e) => e.stream === 'a')).toEqual([]);
      expect(JSON.stringify(after)).not.toContain('run-output-');
      const others = before.filter((e) => e.stream !== 'a');
      expect(after.slice(0, -1)).toEqual(others);
      expect(after.at(-1)).toMatchObject({
        stream: SYSTEM_STREAM,
        revision: 0,
        position: 9,
        type: STREAM_DELETED,
        data: { stream: 'a', lastRevision: 4 },
      });
      expect(await store.headPosition()).toBe(9);
      expect(await readStream(store, 'b')).toEqual(before.filter((e) => e.stream === 'b'));
      expect(await readStream(store, 'c')).toEqual(before.filter((e) => e.stream === 'c'));

      await expectTombstone(store, 'a');

      // Other streams go on as before.
      expect(await store.append('b', [kept(3)], { expectedRevision: 1 })).toEqual({
        nextRevision: 3,
        position: 10,
      });
      // Subscribers replaying the log do not get the deleted events either.
      const replay: string[] = [];
      const subscription = store.subscribe({ from: 'start' }).subscribe((e) => replay.push(e.stream));
      await new Promise((resolve) => setTimeout(resolve, 20));
      subscription.unsubscribe();
      expect(replay).toEqual(['b', 'b', 'c', SYSTEM_STREAM, 'b']);
    });

    it('deleting a stream waits for the appends made before it and refuses the ones after', async () => {
      const store = await h.open();
      await store.append('x', [kept(0)]);
      const before = store.append('a', [secret(0)]);
      const deletion = store.deleteStream('a');
      const after = store.append('a', [secret(1)], { expectedRevision: 'no_stream' });
      expect(await before).toEqual({ nextRevision: 1, position: 2 });
      await deletion;
      await caught(after, StreamDeletedError);
      const all = await readAll(store);
      expect(all.map((e) => e.stream)).toEqual(['x', SYSTEM_STREAM]);
      expect(all.at(-1)?.data).toEqual({ stream: 'a', lastRevision: 0 });
    });

    it('the tombstone survives reopen', async (ctx) => {
      requireDurable(h, ctx, 'close');
      const first = await h.open();
      await seed(first);
      await first.deleteStream('a');
      const expected = await readAll(first);
      const store = await h.reopen(first);
      expect(await readAll(store)).toEqual(expected);
      await expectTombstone(store, 'a');
      expect(await store.append('c', [kept(5)], { expectedRevision: 0 })).toEqual({
        nextRevision: 2,
        position: 10,
      });
      expect(await store.streamRevision('b')).toBe(1);
    });

    // Deleting a run's stream leaves no copy of its output anywhere (docs/security.md#deleted-runs-crypto-shredding) — on disk included.
    // LevelDB's tables are searched uncompressed: Snappy may write the start of a token that follows
    // the same `"value":"` as another as a reference to it, and a raw search would then miss that copy.
    it('leaves no byte of the deleted events in the data directory', async (ctx) => {
      requireDurable(h, ctx, 'close');
      requireCapability(h, ctx, 'directory');
      const store = await h.open();
      const token = () => randomBytes(16).toString('hex');
      const secrets = Array.from({ length: 6 }, token);
      const keptToken = token();
      await store.append('keep', [{ type: 'Kept', data: { token: keptToken } }]);
      for (const [i, value] of secrets.entries()) {
        await store.append('run-9', [{ type: 'Line', data: { value } }]);
        await store.append('keep', [kept(i)]);
      }
      const dir = h.directoryOf(store);
      expect(filesContaining(dir, secrets[0] as string).length).toBeGreaterThan(0);
      await store.deleteStream('run-9');
      for (const value of secrets) expect(filesContaining(dir, value)).toEqual([]);
      expect(filesContaining(dir, keptToken).length).toBeGreaterThan(0);
      const reopened = await h.reopen(store);
      for (const value of secrets) expect(filesContaining(h.directoryOf(reopened), value)).toEqual([]);
      expect((await readStream(reopened, 'keep')).length).toBe(7);
    });
  });
}
