/**
 * In-process harness of the protocol-1 dispatcher: a real EditorSession over a real event store
 * (`memory:` unless given one), requests with fresh request ids, and the ezdxf side of the interop tests.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, type TestContext } from 'vitest';
import { editorOps } from '../../../src/editor/ops/index.js';
import type { OpTable } from '../../../src/editor/ops/types.js';
import { EditorSession } from '../../../src/editor/session.js';
import { openStore } from '../../../src/store/open.js';
import type { EventStore, RecordedEvent } from '../../../src/store/types.js';
import { type Answer, sessionStream } from '../../../streams/editor.js';

export const VERSION = '9.9.9-test';

/** The `state` of an answer, as the dispatcher builds it. */
export interface StateView {
  session_id: string;
  version: string;
  document_id: number | null;
  revision: number | null;
  documents: Array<{ id: number; title: string; path: string | null; dirty: boolean; revision: number }>;
  selection: { document_id: number; handles: string[]; count: number } | null;
  operation: { request_id: string; op: string; status: string } | null;
}

/** An answer with its usual fields typed loosely enough to read in tests. */
export type Reply = Answer & {
  code?: string;
  error?: string;
  status?: string;
  request_id?: string;
  document_id?: number;
  result?: Record<string, unknown>;
  changes?: Array<{ handle: string; kind: string }>;
  state: StateView;
};

let serial = 0;
/** A request id no other request of this test run has. */
export const freshId = (prefix = 'req') => `${prefix}-${process.pid}-${++serial}`;

export interface Harness {
  store: EventStore;
  session: EditorSession;
  /** Sends `request` exactly as given (no protocol or request id added). */
  raw(request: unknown): Promise<Reply>;
  /** Sends op with protocol 1 and a fresh request id, plus `fields` (which win). */
  call(op: string, fields?: Record<string, unknown>): Promise<Reply>;
  /** `call`, and fails the test with the answer when it is not ok. */
  ok(op: string, fields?: Record<string, unknown>): Promise<Reply>;
  /** Every event of the session's stream, in order. */
  events(): Promise<RecordedEvent[]>;
  /** A new blank document, made active; its id. */
  newDoc(): Promise<number>;
  /** Creates entities in the active document; their handles. */
  create(entities: Record<string, unknown>[], documentId?: number): Promise<string[]>;
  /** The active document's revision, from a `state` read. */
  revision(): Promise<number>;
  close(): Promise<void>;
}

export async function startHarness(
  options: { store?: EventStore; sessionId?: string; ops?: OpTable; keepStore?: boolean; gui?: boolean } = {},
): Promise<Harness> {
  const store = options.store ?? (await openStore('memory:'));
  const session = await EditorSession.start(store, options.ops ?? editorOps, {
    version: VERSION,
    ...(options.sessionId ? { sessionId: options.sessionId } : {}),
    gui: options.gui === true,
  });
  const raw = async (request: unknown) => (await session.dispatch(request)) as Reply;
  const call = (op: string, fields: Record<string, unknown> = {}) =>
    raw({ protocol: 1, op, request_id: freshId(op), ...fields });
  const ok = async (op: string, fields: Record<string, unknown> = {}) => {
    const answer = await call(op, fields);
    if (!answer.ok) {
      throw new Error(`${op} failed: ${answer.code}: ${answer.error} (request ${JSON.stringify(fields)})`);
    }
    return answer;
  };
  const harness: Harness = {
    store,
    session,
    raw,
    call,
    ok,
    async events() {
      const out: RecordedEvent[] = [];
      for await (const event of store.readStream(sessionStream(session.sessionId))) out.push(event);
      return out;
    },
    async newDoc() {
      const answer = await ok('new');
      return answer.document_id as number;
    },
    async create(entities, documentId) {
      const id = documentId ?? ((await raw({ protocol: 1, op: 'state' })).state.document_id as number);
      const answer = await ok('entities_create', { document_id: id, entities });
      return (answer.result as { handles: string[] }).handles;
    },
    async revision() {
      return (await raw({ protocol: 1, op: 'state' })).state.revision as number;
    },
    async close() {
      await session.close();
      if (!options.keepStore) await store.close();
    },
  };
  return harness;
}

/** `result` of an answer, typed as the test expects it. */
export const resultOf = <T>(answer: Reply): T => answer.result as T;

/** A temporary directory, and how to remove it. */
export async function scratchDir(): Promise<{
  dir: string;
  path(name: string): string;
  remove(): Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), 'chronicle-dispatcher-'));
  return {
    dir,
    path: (name: string) => join(dir, name),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A fresh harness and scratch directory for `work`, both closed and removed afterwards, also on failure. */
export async function withHarnessAndDir<T>(
  work: (h: Harness, dir: Awaited<ReturnType<typeof scratchDir>>) => Promise<T>,
): Promise<T> {
  const dir = await scratchDir();
  const h = await startHarness();
  try {
    return await work(h, dir);
  } finally {
    await h.close();
    await dir.remove();
  }
}

/**
 * One harness and one scratch directory for every test of a file: started before its first test, closed
 * and removed after its last. Read `h` and `dir` inside tests (they are set once `beforeAll` has run).
 */
export function harnessForFile(): {
  readonly h: Harness;
  readonly dir: Awaited<ReturnType<typeof scratchDir>>;
} {
  let h: Harness | undefined;
  let dir: Awaited<ReturnType<typeof scratchDir>> | undefined;
  beforeAll(async () => {
    h = await startHarness();
    dir = await scratchDir();
  });
  afterAll(async () => {
    await h?.close();
    await dir?.remove();
  });
  return {
    get h() {
      if (!h) throw new Error('the harness starts before the first test');
      return h;
    },
    get dir() {
      if (!dir) throw new Error('the scratch directory is made before the first test');
      return dir;
    },
  };
}

/** DXF text from group-code/value pairs (LF line ends, codes right-aligned). */
export function dxfText(pairs: ReadonlyArray<readonly [number, string | number]>): string {
  return `${pairs.map(([code, value]) => `${String(code).padStart(3, ' ')}\n${value}`).join('\n')}\n`;
}

/**
 * A small hand-made R12-style DXF: a LINE, a CIRCLE and a HATCH (a type the engine keeps raw) in
 * ENTITIES, no header. Enough to open, query, and refuse to transform the HATCH.
 */
export function handMadeDxf(): string {
  return dxfText([
    [0, 'SECTION'],
    [2, 'ENTITIES'],
    [0, 'LINE'],
    [5, '2A'],
    [8, 'EDGES'],
    [10, 0],
    [20, 0],
    [30, 0],
    [11, 10],
    [21, 5],
    [31, 0],
    [0, 'CIRCLE'],
    [5, '2B'],
    [8, '0'],
    [10, 3],
    [20, 4],
    [30, 0],
    [40, 2],
    [0, 'HATCH'],
    [5, '2C'],
    [8, '0'],
    [10, 0],
    [20, 0],
    [30, 0],
    [210, 0],
    [220, 0],
    [230, 1],
    [2, 'SOLID'],
    [70, 1],
    [71, 0],
    [91, 1],
    [92, 3],
    [72, 0],
    [73, 1],
    [93, 4],
    [10, 0],
    [20, 0],
    [10, 4],
    [20, 0],
    [10, 4],
    [20, 4],
    [10, 0],
    [20, 4],
    [97, 0],
    [75, 0],
    [76, 1],
    [98, 0],
    [0, 'ENDSEC'],
    [0, 'EOF'],
  ]);
}

export async function writeText(path: string, text: string): Promise<string> {
  await writeFile(path, text);
  return path;
}

// ---- ezdxf (Debian's python3-ezdxf), for the interop and saved-file checks ----

export const PYTHON = '/usr/bin/python3';
const run = promisify(execFile);

function ezdxfMissing(): string | undefined {
  try {
    execFileSync(PYTHON, ['-c', 'import ezdxf'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return `${PYTHON} cannot import ezdxf (install the Debian package python3-ezdxf)`;
  }
}
/** Why the ezdxf checks cannot run here, or undefined when they can. */
export const ezdxfUnavailable = ezdxfMissing();

/** Skips the running test, with the reason printed, when ezdxf is not there. */
export function needEzdxf(ctx: TestContext): void {
  if (!ezdxfUnavailable) return;
  console.log(`skipped: ${ezdxfUnavailable}`);
  ctx.skip(ezdxfUnavailable);
}

/** Runs a Python script (with ezdxf importable) and parses what it prints as JSON. */
export async function python<T>(script: string, args: string[] = []): Promise<T> {
  const { stdout } = await run(PYTHON, ['-c', script, ...args], { maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout) as T;
}

/** `python3 -m ezdxf audit FILE`: its output and exit code. */
export async function ezdxfAudit(path: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(PYTHON, ['-m', 'ezdxf', 'audit', path]);
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}
