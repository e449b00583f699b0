import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { followLog, type LogSource, linesOf } from '../../src/stacks/runs/log-reader.js';

/**
 * A log written by hand: `complete` and `changed` are the two signals a recorder (or another instance's
 * file) gives a follower.
 */
function handWrittenLog(path: string) {
  let complete = false;
  let wake: () => void = () => {};
  const source: LogSource = {
    path,
    available: () => undefined,
    complete: () => complete,
    // As a recorder's: a wait that starts after the end does not wait.
    changed: () =>
      complete
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            wake = resolve;
          }),
  };
  return {
    source,
    finish: () => {
      complete = true;
      wake();
    },
  };
}

/** Every line followed, and what the generator returned. */
async function drain(lines: AsyncGenerator<{ bytes: Buffer; at: number }, boolean>) {
  const got: string[] = [];
  for (let next = await lines.next(); ; next = await lines.next()) {
    if (next.done) return { lines: got, readToEnd: next.value };
    got.push(...linesOf(next.value).lines);
  }
}

describe('following a log file', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'chronicle-follow-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('returns true once a complete log is read to its end', async () => {
    const path = join(dir, 'run.log');
    await writeFile(path, 'one\ntwo\n');
    const log = handWrittenLog(path);
    const following = drain(followLog(log.source, 0, new Promise(() => {})));
    await writeFile(path, 'one\ntwo\nthree\n');
    log.finish();
    expect(await following).toEqual({ lines: ['one', 'two', 'three'], readToEnd: true });
  });

  it('a stop ends the wait for lines not yet written: false, after the lines there were', async () => {
    const path = join(dir, 'run.log');
    await writeFile(path, 'one\ntwo\n');
    const log = handWrittenLog(path);
    let stop: () => void = () => {};
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    const lines = followLog(log.source, 0, stopped);
    const first = await lines.next();
    expect(first.done).toBe(false);
    const rest = drain(lines);
    stop();
    expect(await rest).toEqual({ lines: [], readToEnd: false });
  });

  it('a stop as the log becomes complete still reads it to its end', async () => {
    const path = join(dir, 'run.log');
    await writeFile(path, 'one\n');
    const log = handWrittenLog(path);
    // Stopped from the start: the server stops as the run ends, and the follower still has the rest.
    const lines = followLog(log.source, 0, Promise.resolve());
    const first = await lines.next();
    expect(first.done === false && linesOf(first.value).lines).toEqual(['one']);
    await writeFile(path, 'one\ntwo\nlast without a break');
    log.finish();
    const got = await drain(lines);
    expect(got.readToEnd).toBe(true);
    expect(got.lines).toEqual(['two', 'last without a break']);
  });
});
