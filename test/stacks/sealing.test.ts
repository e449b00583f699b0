import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutputKeys } from '../../src/stacks/output/keys.js';
import { KEY_BYTES, newKey, open, SealError, seal } from '../../src/stacks/output/sealing.js';
import { StreamDeletedError } from '../../src/store/errors.js';
import { openStore } from '../../src/store/open.js';
import type { EventStore } from '../../src/store/types.js';
import { keyStream, runKeyScope } from '../../streams/stacks.js';

describe('seal / open (AES-256-GCM)', () => {
  it('round-trips any text (property)', () => {
    const key = newKey();
    fc.assert(
      // Well-formed text: texts are sealed as UTF-8 (output lines are decoded from it anyway).
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ minLength: 1 }), (text, scope) => {
        expect(open(key, scope, seal(key, scope, text))).toBe(text);
      }),
      { numRuns: 200 },
    );
  });

  it('hides the text, and seals the same text differently each time (a random IV)', () => {
    const key = newKey();
    const text = 'the password is hunter2-hunter2';
    const a = seal(key, 'run-1', text);
    const b = seal(key, 'run-1', text);
    expect(a).not.toBe(b);
    for (const sealed of [a, b]) {
      expect(sealed).not.toContain('hunter2');
      expect(Buffer.from(sealed, 'base64').toString('latin1')).not.toContain('hunter2');
    }
    expect(key).toHaveLength(KEY_BYTES);
  });

  it('refuses another key, another scope, a changed byte and a cut text with SealError', () => {
    const key = newKey();
    const sealed = seal(key, 'run-1', 'output line');
    expect(() => open(newKey(), 'run-1', sealed)).toThrow(SealError);
    expect(() => open(key, 'run-2', sealed)).toThrow(SealError);
    const bytes = Buffer.from(sealed, 'base64');
    for (const at of [0, 13, bytes.length - 1]) {
      const changed = Buffer.from(bytes);
      changed[at] = (changed[at] as number) ^ 1;
      expect(() => open(key, 'run-1', changed.toString('base64'))).toThrow(SealError);
    }
    expect(() => open(key, 'run-1', bytes.subarray(0, 20).toString('base64'))).toThrow(SealError);
    expect(() => open(key, 'run-1', '')).toThrow(SealError);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => seal(Buffer.alloc(16), 'run-1', 'x')).toThrow(/32 bytes/);
    expect(() => open(Buffer.alloc(31), 'run-1', 'x')).toThrow(/32 bytes/);
  });
});

describe('OutputKeys over a store', () => {
  let store: EventStore;
  beforeEach(async () => {
    store = await openStore('memory:');
  });
  afterEach(async () => {
    await store.close();
  });

  it('makes one key per scope, in its own stream, also for two books racing', async () => {
    const a = new OutputKeys(store);
    const b = new OutputKeys(store);
    const scope = runKeyScope(7);
    const [sa, sb] = await Promise.all([a.ensure(scope), b.ensure(scope)]);
    const events = [];
    for await (const event of store.readStream(keyStream(scope))) events.push(event);
    expect(events.map((e) => e.type)).toEqual(['OutputKeyCreated']);
    const made = events[0]?.data as { key: string } | undefined;
    expect(Buffer.from(made?.key ?? '', 'base64')).toHaveLength(32);
    // Either book opens what the other sealed: they hold the same key.
    expect((await b.opener(scope)).open(sa.seal('from a'))).toBe('from a');
    expect((await a.opener(scope)).open(sb.seal('from b'))).toBe('from b');
    expect(await new OutputKeys(store).sealer(runKeyScope(8))).toBeUndefined();
  });

  it('shreds: the key stream is deleted, sealed texts read as undefined, nothing more can be sealed', async () => {
    const keys = new OutputKeys(store);
    const other = new OutputKeys(store);
    const scope = runKeyScope(3);
    const sealed = (await keys.ensure(scope)).seal('secret output');
    await keys.shred(scope);
    await keys.shred(scope);
    expect((await keys.opener(scope)).open(sealed)).toBeUndefined();
    expect((await other.opener(scope)).open(sealed)).toBeUndefined();
    await expect(keys.ensure(scope)).rejects.toBeInstanceOf(StreamDeletedError);
    expect(await keys.sealer(scope)).toBeUndefined();
  });

  it('keeps a bounded number of keys in memory and reads the others again', async () => {
    const keys = new OutputKeys(store, { cacheSize: 2 });
    const sealed = [];
    for (let i = 1; i <= 5; i++) sealed.push((await keys.ensure(runKeyScope(i))).seal(`run ${i}`));
    for (let i = 1; i <= 5; i++)
      expect((await keys.opener(runKeyScope(i))).open(sealed[i - 1] as string)).toBe(`run ${i}`);
  });
});
