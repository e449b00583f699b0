import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Subject } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import {
  consumeLines,
  PAUSE_BACKLOG_BYTES,
  paceOutput,
  RESUME_BACKLOG_BYTES,
} from '../../src/stacks/compose/line-consumer.js';
import { runCompose } from '../../src/stacks/compose/runner.js';
import type { ComposeExit, ComposeProcess, OutputLine } from '../../src/stacks/contracts.js';
import { collectUnhandledRxjsErrors } from '../rxjs-unhandled.js';

const dir = mkdtempSync(join(tmpdir(), 'chronicle-line-consumer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A program printing numbered lines for a long while: it runs until something stops it. */
const printer = join(dir, 'printer.mjs');
writeFileSync(
  printer,
  `let i = 0;
   const timer = setInterval(() => process.stdout.write('line ' + i++ + '\\n'), 5);
   setTimeout(() => clearInterval(timer), 60_000);`,
);
const run = () =>
  runCompose({
    argv: [process.execPath, printer],
    cwd: dir,
    env: { PATH: process.env.PATH ?? '' },
    timeoutMs: 60_000,
  });

// Anything RxJS would rethrow from a timer (and so end the process) is collected here instead.
const unhandled = collectUnhandledRxjsErrors();

describe('consumeLines', () => {
  it('hands every line over while the handler works', async () => {
    const process_ = run();
    const seen: OutputLine[] = [];
    const feed = consumeLines(process_, (line) => {
      seen.push(line);
      if (seen.length === 3) process_.cancel();
    });
    const exit = await process_.exit;
    expect(exit.cancelled).toBe(true);
    expect(feed.faulted).toBe(false);
    expect(seen.slice(0, 3).map((l) => l.line)).toEqual(['line 0', 'line 1', 'line 2']);
    expect(feed.fed).toBe(seen.length);
    expect(unhandled.errors).toEqual([]);
  }, 30_000);

  it('a throw in the handler stops compose, keeps what was thrown, and hands over no later line', async () => {
    const process_ = run();
    const seen: string[] = [];
    const boom = new Error('no state named constructor');
    const feed = consumeLines(process_, (line) => {
      seen.push(line.line);
      if (line.line === 'line 2') throw boom;
    });
    const exit = await process_.exit;
    // Stopped by the consumer: the printer would have gone on for a minute.
    expect(exit).toMatchObject({ cancelled: true, exitCode: null });
    expect(feed).toMatchObject({ faulted: true, fault: boom, fed: 3 });
    expect(seen).toEqual(['line 0', 'line 1', 'line 2']);
    // Nothing reached RxJS's unhandled-error path, where the process would have ended.
    expect(unhandled.errors).toEqual([]);
  }, 30_000);
});

describe('paceOutput', () => {
  it('pauses compose while its consumers hold too much unrecorded output, and resumes it once that drained', async () => {
    const lines = new Subject<OutputLine>();
    const calls: string[] = [];
    const process_: ComposeProcess = {
      lines,
      exit: new Promise<ComposeExit>(() => {}),
      cancel: () => {},
      pid: undefined,
      pause: () => calls.push('pause'),
      resume: () => calls.push('resume'),
    };
    let backlog = 0;
    paceOutput(process_, () => backlog);
    backlog = PAUSE_BACKLOG_BYTES;
    lines.next({ stream: 'stdout', line: 'at the bound' });
    expect(calls).toEqual([]);
    backlog = PAUSE_BACKLOG_BYTES + 1;
    lines.next({ stream: 'stdout', line: 'past it' });
    lines.next({ stream: 'stdout', line: 'one more while paused' });
    expect(calls).toEqual(['pause']);
    // Still above the resume mark: it stays paused.
    backlog = RESUME_BACKLOG_BYTES + 1;
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toEqual(['pause']);
    backlog = RESUME_BACKLOG_BYTES;
    for (let i = 0; i < 100 && calls.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(calls).toEqual(['pause', 'resume']);
    lines.complete();
  });
});
