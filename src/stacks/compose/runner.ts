/**
 * Runs the compose program as a child process (never through a shell) and turns its output into lines.
 *
 * The child is spawned `detached`, so it leads a process group of its own: a time-out or a cancel
 * signals the whole group (`SIGTERM`, then `SIGKILL` after a grace), which also reaches the helpers
 * compose starts (plugins, credential helpers, ssh for a remote DOCKER_HOST) that would otherwise
 * outlive it and keep its pipes open.
 *
 * `lines` is hot and multicast: the child's output is read from the start whether anyone listens or
 * not, until a consumer that cannot keep up calls `pause()` (then the child blocks on a full pipe until
 * `resume()`; the pause never ends the run). Lines that arrive before the FIRST subscriber are buffered
 * and replayed to that subscriber, then it gets live lines; any later subscriber gets only the lines
 * that arrive after it subscribed (plus completion). A subscriber that comes after the end gets the
 * buffered lines if it is the first, and completion in any case. The observable never errors; it
 * completes once both stdout and stderr have ended (or were closed after the child exited, see
 * `DRAIN_MS`). `exit` resolves after `lines` completed, so a consumer that awaits `exit` has seen
 * every line. A spawn failure resolves `exit` with `spawnError` and completes `lines` empty.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { Observable, Subject } from 'rxjs';
import type { ComposeExit, ComposeInvocation, ComposeProcess, OutputLine } from '../contracts.js';
import { LineSplitter, MAX_LINE_BYTES, type SplitLine } from './line-splitter.js';

export interface RunnerOptions {
  /** Time between SIGTERM and SIGKILL of the process group. */
  killGraceMs?: number;
  /**
   * After the child exited, how long its pipes may stay open (held by a descendant that inherited
   * them) before they are closed and the run ends anyway.
   */
  drainMs?: number;
  /**
   * How far past the cut a cut line runs (LineSplitter's `overlapBytes`): the redactor's `longestBytes`,
   * so that a value crossing the cut is redacted whole.
   */
  overlapBytes?: number;
}

const KILL_GRACE_MS = 2000;
const DRAIN_MS = 2000;

export function runCompose(inv: ComposeInvocation, options: RunnerOptions = {}): ComposeProcess {
  const killGraceMs = options.killGraceMs ?? KILL_GRACE_MS;
  const drainMs = options.drainMs ?? DRAIN_MS;

  const live = new Subject<OutputLine>();
  let buffer: OutputLine[] | null = [];
  let completed = false;
  const emit = (stream: OutputLine['stream'], lines: readonly SplitLine[]) => {
    for (const { text, cut } of lines) {
      const item: OutputLine = cut === undefined ? { stream, line: text } : { stream, line: text, cut };
      if (buffer) buffer.push(item);
      else live.next(item);
    }
  };
  const lines = new Observable<OutputLine>((subscriber) => {
    if (buffer) {
      const pending = buffer;
      buffer = null;
      for (const item of pending) subscriber.next(item);
    }
    if (completed) {
      subscriber.complete();
      return;
    }
    return live.subscribe(subscriber);
  });

  let resolveExit!: (e: ComposeExit) => void;
  const exit = new Promise<ComposeExit>((resolve) => {
    resolveExit = resolve;
  });

  let timedOut = false;
  let cancelled = false;
  let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  let spawnError: string | undefined;
  let openStreams = 2;
  let finished = false;
  const timers: NodeJS.Timeout[] = [];

  const finish = () => {
    if (finished || openStreams > 0 || (exited === null && spawnError === undefined)) return;
    finished = true;
    for (const t of timers) clearTimeout(t);
    completed = true;
    live.complete();
    const killed = timedOut || cancelled;
    resolveExit({
      exitCode: killed || spawnError !== undefined ? null : (exited?.code ?? null),
      signal: exited?.signal ?? null,
      timedOut,
      cancelled,
      ...(spawnError !== undefined ? { spawnError } : {}),
    });
  };

  let child: ChildProcess;
  try {
    const [program, ...args] = inv.argv;
    if (program === undefined) throw new Error('empty compose command');
    child = spawn(program, args, {
      cwd: inv.cwd,
      env: inv.env,
      shell: false,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    spawnError = (err as Error).message;
    openStreams = 0;
    finish();
    return { lines, exit, cancel: () => {}, pid: undefined };
  }

  const resume = () => {
    child.stdout?.resume();
    child.stderr?.resume();
  };
  const killTree = () => {
    const pid = child.pid;
    if (pid === undefined) return;
    // A stopped run reads what is left in its pipes, paused or not, so that it ends.
    resume();
    signalGroup(pid, 'SIGTERM');
    // Always escalate: a descendant may ignore SIGTERM even after the leader is gone.
    // Not cleared when the run ends: the leader may be gone and its pipes closed while a descendant
    // that ignores SIGTERM lives on.
    setTimeout(() => signalGroup(pid, 'SIGKILL'), killGraceMs);
  };

  for (const [name, stream] of [
    ['stdout', child.stdout],
    ['stderr', child.stderr],
  ] as const) {
    if (!stream) {
      openStreams--;
      continue;
    }
    const splitter = new LineSplitter(MAX_LINE_BYTES, options.overlapBytes ?? 0);
    stream.on('data', (chunk: Buffer) => emit(name, splitter.push(chunk)));
    stream.on('error', () => {}); // a destroyed pipe; its close follows
    stream.once('close', () => {
      emit(name, splitter.end());
      openStreams--;
      finish();
    });
  }

  child.on('error', (err: NodeJS.ErrnoException) => {
    // 'error' without a pid: the program never started. Later errors (a failed kill) change nothing.
    if (child.pid === undefined && spawnError === undefined) {
      spawnError = err.message;
      child.stdout?.destroy();
      child.stderr?.destroy();
      finish();
    }
  });
  child.on('exit', (code, signal) => {
    exited = { code, signal };
    // A descendant holding the pipes open must not keep the run alive forever. (Output paused by the
    // consumer is not lost here: Node resumes a child's stdio when it exits, and reads it to its end.)
    const t = setTimeout(() => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    }, drainMs);
    timers.push(t);
    finish();
  });

  if (inv.timeoutMs > 0 && Number.isFinite(inv.timeoutMs)) {
    const t = setTimeout(() => {
      if (exited !== null || finished) return;
      timedOut = true;
      killTree();
    }, inv.timeoutMs);
    timers.push(t);
  }

  return {
    lines,
    exit,
    pid: child.pid,
    cancel: () => {
      if (finished || exited !== null || cancelled || timedOut) return;
      cancelled = true;
      killTree();
    },
    pause: () => {
      if (cancelled || timedOut) return;
      child.stdout?.pause();
      child.stderr?.pause();
    },
    resume,
  };
}

/** Signals a process group led by `pid` (a child spawned `detached`); a group already gone is fine. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}
