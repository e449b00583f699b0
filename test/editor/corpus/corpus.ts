/**
 * The corpus of real DXF files (test/fixtures/dxf-corpus, sources in its SOURCES.md) and what ezdxf
 * sees in each (facts.json, written by scripts/dxf-corpus-facts.py). The tests read the committed
 * facts, so they compare with ezdxf without running it for that.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PYTHON } from '../dispatcher/helpers.js';

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

/** Every file of the corpus with what ezdxf sees in it, by file name. */
export const corpus: ReadonlyArray<[string, FileFacts | Unreadable]> = Object.entries(facts.files);

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
