/**
 * The corpus of real DXF files (test/fixtures/dxf-corpus, sources in its SOURCES.md) and what ezdxf
 * sees in each (facts.json, written by scripts/dxf-corpus-facts.py). The file list is the directory's
 * own, so a file added there is checked whether or not facts.json has caught up (the counts test then
 * fails and says to run the script). The checks that need ezdxf at run time (transforms, its raster)
 * ask one Python process kept for the whole test file (scripts/dxf-corpus-oracle.py).
 */
import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, type TestContext } from 'vitest';
import { type Harness, needEzdxf, PYTHON, python, scratchDir, startHarness } from '../dispatcher/helpers.js';

export const CORPUS_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/dxf-corpus');

export interface FileFacts {
  version: string;
  /** How ezdxf read it: `readfile`, or `recover` for a file readfile refuses. */
  read: 'readfile' | 'recover';
  recover_fixes: string[];
  /** How many entities a plain query lists: every layout's, and the blocks they insert, each once. */
  listed: number;
  by_type: Record<string, number>;
  by_layer: Record<string, number>;
  model_space: number;
  model_bounds: [number[], number[]] | null;
  /** Handles ezdxf cannot bound. */
  unbounded: string[];
  audit_errors?: string[];
  audit_fixes?: string[];
  audit_failed?: string;
}

interface FactsFile {
  ezdxf: string;
  files: Record<string, FileFacts | { error: string }>;
}

const facts = JSON.parse(readFileSync(join(CORPUS_DIR, 'facts.json'), 'utf8')) as FactsFile;

/** What ezdxf (the version facts.json names) raises on a corpus file it cannot read at all. */
export interface Unreadable {
  error: string;
}

/** Every DXF file of the corpus directory, sorted as the facts script sorts them. */
export const corpusFiles: readonly string[] = readdirSync(CORPUS_DIR)
  .filter((name) => name.toLowerCase().endsWith('.dxf'))
  .sort();

/** What facts.json holds about a file of the directory; undefined until the script is run again. */
export const factsOf = (name: string): FileFacts | Unreadable | undefined => facts.files[name];

/** Every file of the corpus with what facts.json says ezdxf sees in it, by file name. */
export const corpus: ReadonlyArray<[string, FileFacts | Unreadable]> = corpusFiles.flatMap((name) => {
  const f = factsOf(name);
  return f ? [[name, f] as [string, FileFacts | Unreadable]] : [];
});

/** Files of the directory facts.json does not know (the facts script was not run after they came). */
export const withoutFacts: readonly string[] = corpusFiles.filter((name) => !factsOf(name));

/** The ezdxf version the facts come from. */
export const ezdxfVersion = facts.ezdxf;

export const readable = (f: FileFacts | Unreadable): f is FileFacts => !('error' in f);

export const corpusPath = (name: string) => join(CORPUS_DIR, name);

/** What ezdxf reads in a saved file: the facts, or the error it raised. */
export type SavedView = Partial<FileFacts> & { error?: string };

const SCRIPT = join(CORPUS_DIR, '../../../scripts/dxf-corpus-facts.py');

/** The facts of each file by path, from one run of the facts script (`--read`). */
export async function readWithEzdxf(paths: string[]): Promise<Record<string, SavedView>> {
  const { stdout } = await promisify(execFile)(PYTHON, [SCRIPT, '--read', ...paths], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as Record<string, SavedView>;
}

const ORACLE = join(CORPUS_DIR, '../../../scripts/dxf-corpus-oracle.py');

/**
 * The oracle process (scripts/dxf-corpus-oracle.py): one JSON line per request, answered in order.
 * Started on the first request, ended by `close`.
 */
export class EzdxfOracle {
  private child: ChildProcessWithoutNullStreams | undefined;
  private pending: Array<{ resolve(v: Record<string, unknown>): void; reject(e: Error): void }> = [];
  private buffered = '';
  private stderr = '';

  private start(): ChildProcessWithoutNullStreams {
    const child = spawn(PYTHON, [ORACLE], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      this.buffered += chunk;
      for (let at = this.buffered.indexOf('\n'); at >= 0; at = this.buffered.indexOf('\n')) {
        const line = this.buffered.slice(0, at);
        this.buffered = this.buffered.slice(at + 1);
        this.pending.shift()?.resolve(JSON.parse(line) as Record<string, unknown>);
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-4000);
    });
    child.on('exit', (code) => {
      for (const p of this.pending.splice(0))
        p.reject(new Error(`the ezdxf oracle ended (${code}): ${this.stderr}`));
      this.child = undefined;
    });
    return child;
  }

  /** The answer to one request; fails when the oracle answers `ok: false`. */
  async ask<T>(request: Record<string, unknown>): Promise<T> {
    this.child ??= this.start();
    const child = this.child;
    const answer = await new Promise<Record<string, unknown>>((resolve, reject) => {
      this.pending.push({ resolve, reject });
      child.stdin.write(`${JSON.stringify(request)}\n`);
    });
    if (answer.ok !== true) throw new Error(`ezdxf: ${String(answer.error)}`);
    return answer as T;
  }

  close(): void {
    this.child?.stdin.end();
  }
}

/** The move, rotation, scale by −0.5 and mirror every type test puts a file's entities through. */
export const STEPS = [
  { action: 'move', vector: [12.5, -3.25, 0] },
  { action: 'rotate', center: [1, 2], angle: 30 },
  { action: 'scale', center: [3, 4, 0], factor: -0.5 },
  {
    action: 'mirror',
    axis: [
      [0, 0],
      [1, 2],
    ],
  },
];

const TRANSFORM_ORACLE = join(CORPUS_DIR, '../../../scripts/dxf-transform-oracle.py');

/** Each model-space entity of a file before and after `steps`, as ezdxf's transform(Matrix44) makes it. */
export async function transformedByEzdxf(
  path: string,
  steps: readonly unknown[],
): Promise<Array<{ before: Record<string, unknown>; after: Record<string, unknown> }>> {
  const { stdout } = await promisify(execFile)(PYTHON, [TRANSFORM_ORACLE, path, JSON.stringify(steps)], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as Array<{ before: Record<string, unknown>; after: Record<string, unknown> }>;
}

/** What a type test works with: its harness, its scratch folder, files ezdxf writes there, opened. */
export interface TypeBench {
  /** The editor harness of the test file (there from its beforeAll on). */
  readonly h: Harness;
  /** A file in the test file's scratch folder. */
  path(name: string): string;
  /** ezdxf runs `script` (its sys.argv[1] the file) to write the scratch file `name`; a test skips without ezdxf. */
  write(ctx: TestContext, script: string, name: string): Promise<string>;
  /** The document id of `path`, opened. */
  open(path: string): Promise<number>;
  /** The entities of a DXF type, as `query` answers them at detail=full. */
  ofType<T>(doc: number, type: string): Promise<T[]>;
}

/**
 * The set-up the corpus's type tests share (MESH; MLINE, WIPEOUT and HELIX; MULTILEADER; TOLERANCE and
 * SHAPE; ACAD_TABLE): one harness and one scratch folder for the test file, started and removed by the
 * beforeAll and afterAll this registers (call it once, at the top of the test file).
 */
export function typeBench(): TypeBench {
  let harness: Harness | undefined;
  let scratch: Awaited<ReturnType<typeof scratchDir>> | undefined;
  beforeAll(async () => {
    harness = await startHarness();
    scratch = await scratchDir();
  });
  afterAll(async () => {
    await harness?.close();
    await scratch?.remove();
  });
  const bench: TypeBench = {
    get h(): Harness {
      if (!harness) throw new Error('the harness starts in beforeAll');
      return harness;
    },
    path(name) {
      if (!scratch) throw new Error('the scratch folder is made in beforeAll');
      return scratch.path(name);
    },
    async write(ctx, script, name) {
      needEzdxf(ctx);
      const path = bench.path(name);
      await python(script, [path]);
      return path;
    },
    async open(path) {
      return (await bench.h.ok('open', { path })).document_id as number;
    },
    async ofType<T>(doc: number, type: string) {
      return (await bench.h.ok('query', { document_id: doc, detail: 'full', type })).entities as T[];
    },
  };
  return bench;
}
