/**
 * The ezdxf side of the annotation entity tests (scripts/dxf-annotation-oracle.py): a file's MULTILEADER,
 * TOLERANCE, SHAPE and ACAD_TABLE fields after steps, and a comparison within 1e-9 per coordinate.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PYTHON } from '../dispatcher/helpers.js';
import { CORPUS_DIR, STEPS } from './corpus.js';

const ORACLE = join(CORPUS_DIR, '../../../scripts/dxf-annotation-oracle.py');

export { STEPS };

/** The steps that take STEPS back: the mirror is its own inverse, then the rest undone in reverse. */
export const INVERSE_STEPS = [
  STEPS[3],
  { action: 'scale', center: [3, 4, 0], factor: -2 },
  { action: 'rotate', center: [1, 2], angle: -30 },
  { action: 'move', vector: [-12.5, 3.25, 0] },
];

export type Fields = Record<string, unknown>;

/** What ezdxf reads of the file's annotation entities after `steps` (none: as they are). */
export async function oracle(path: string, steps: readonly unknown[] = []): Promise<Fields[]> {
  const { stdout } = await promisify(execFile)(PYTHON, [ORACLE, path, JSON.stringify(steps)], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as Fields[];
}

/** Where two oracle answers differ by more than 1e-9 (relative past 1), as readable lines. */
export function differences(expected: unknown, actual: unknown, at = ''): string[] {
  if (typeof expected === 'number') {
    const a = actual as number;
    return typeof a === 'number' && Math.abs(a - expected) <= 1e-9 * Math.max(1, Math.abs(expected))
      ? []
      : [`${at}: ezdxf ${expected}, chronicle ${JSON.stringify(actual)}`];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length)
      return [`${at}: ezdxf ${expected.length} items, chronicle ${JSON.stringify(actual)?.slice(0, 200)}`];
    return expected.flatMap((v, i) => differences(v, actual[i], `${at}[${i}]`));
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') return [`${at}: chronicle ${JSON.stringify(actual)}`];
    return Object.entries(expected).flatMap(([k, v]) =>
      differences(v, (actual as Record<string, unknown>)[k], `${at}.${k}`),
    );
  }
  return expected === actual
    ? []
    : [`${at}: ezdxf ${JSON.stringify(expected)}, chronicle ${JSON.stringify(actual)}`];
}
