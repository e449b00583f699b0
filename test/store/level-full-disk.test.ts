import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreFailedError, WrongExpectedRevisionError } from '../../src/store/errors.js';
import { openStore } from '../../src/store/index.js';
import type { AppendResult } from '../../src/store/types.js';
import { mountSmallDisk, type SmallDisk } from '../small-disk.js';
import { readAll } from './helpers.js';

const disk = await mountSmallDisk(2048);
afterAll(async () => {
  if (!('unavailable' in disk)) await disk.unmount();
});

const event = (i: number) => ({ type: 'Filled', data: { i, pad: 'x'.repeat(3_000) } });

if ('unavailable' in disk) {
  console.log(`skipped: level store on a full disk: ${disk.unavailable}`);
  describe('level store on a full disk', () => {
    it.skip(`skipped: ${disk.unavailable}`, () => undefined);
  });
} else {
  describe('level store on a full disk', () => {
    it('fails the store at the first failed write: nothing more is acknowledged, not even once space is back; every acknowledged event is there after a restart, and no position or stream is handed out twice', async () => {
      const small = disk as SmallDisk;
      const dir = join(small.dir, 'events');
      const filler = await small.fill('filler', 512 * 1024);
      const store = await openStore(`level:${dir}`);
      expect(store.failure).toBeUndefined();
      const acknowledged = new Map<string, AppendResult>();
      const refused: unknown[] = [];
      // Appends in flight together (group commit), as a server makes them, until the disk is full.
      for (let round = 0; refused.length === 0; round++) {
        expect(round).toBeLessThan(10_000);
        await Promise.all(
          Array.from({ length: 8 }, async (_, k) => {
            const stream = `run-${round * 8 + k}`;
            try {
              acknowledged.set(
                stream,
                await store.append(stream, [event(round * 8 + k)], { expectedRevision: 'no_stream' }),
              );
            } catch (error) {
              refused.push(error);
            }
          }),
        );
      }
      expect(acknowledged.size).toBeGreaterThan(0);
      for (const error of refused) expect(error).toBeInstanceOf(StoreFailedError);
      const failure = store.failure;
      expect(failure?.clears).toBe('restart');
      expect(failure?.reason).toMatch(/no space|ENOSPC/i);
      expect((refused[0] as StoreFailedError).reason).toBe(failure?.reason);

      // Space is back: the store still takes nothing (a partial record may lie in its log).
      await rm(filler);
      await expect(store.append('after', [event(-1)])).rejects.toBeInstanceOf(StoreFailedError);
      await expect(store.deleteStream('run-0')).rejects.toBeInstanceOf(StoreFailedError);
      await expect(
        store.saveSnapshot({ name: 'model', version: 1, position: 1, state: {} }),
      ).rejects.toBeInstanceOf(StoreFailedError);
      // Reads go on.
      expect((await readAll(store)).length).toBe(acknowledged.size);
      await store.close();

      const reopened = await openStore(`level:${dir}`);
      try {
        expect(reopened.failure).toBeUndefined();
        const events = await readAll(reopened);
        const byStream = new Map(events.map((e) => [e.stream, e]));
        for (const [stream, result] of acknowledged)
          expect(byStream.get(stream)?.position).toBe(result.position);
        // Nothing refused made it in (positions dense, exactly the acknowledged ones).
        const last = Math.max(...[...acknowledged.values()].map((r) => r.position));
        expect(events.map((e) => e.position)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
        expect(await reopened.headPosition()).toBe(last);
        // An acknowledged stream is never created again; the next append follows the last acknowledged one.
        await expect(
          reopened.append('run-0', [event(0)], { expectedRevision: 'no_stream' }),
        ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        const next = await reopened.append('after', [event(-1)], { expectedRevision: 'no_stream' });
        expect(next.position).toBe(last + 1);
      } finally {
        await reopened.close();
      }
    });
  });
}
