/**
 * Where two JSON values differ, as readable lines (`documents.1.model.entities.2A.layer: "0" -> "A"`),
 * at most `limit` of them: the summary `chronicle replay --verify` prints when a replay and the live
 * read model disagree.
 */
import { dictGet } from '../dict.js';

const show = (value: unknown): string => {
  if (value === undefined) return '(absent)';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function jsonDifferences(
  before: unknown,
  after: unknown,
  limit = 20,
): { lines: string[]; total: number } {
  const lines: string[] = [];
  let total = 0;
  const walk = (a: unknown, b: unknown, path: string) => {
    if (a === b) return;
    if (Array.isArray(a) && Array.isArray(b)) {
      if (a.length !== b.length) {
        total += 1;
        if (lines.length < limit) lines.push(`${path || '(root)'}: ${a.length} items -> ${b.length} items`);
      }
      for (let i = 0; i < Math.min(a.length, b.length); i++) walk(a[i], b[i], `${path}[${i}]`);
      return;
    }
    if (isObject(a) && isObject(b)) {
      for (const key of new Set([...Object.keys(a), ...Object.keys(b)]))
        walk(dictGet(a, key), dictGet(b, key), path === '' ? key : `${path}.${key}`);
      return;
    }
    if (JSON.stringify(a) === JSON.stringify(b)) return;
    total += 1;
    if (lines.length < limit) lines.push(`${path || '(root)'}: ${show(a)} -> ${show(b)}`);
  };
  walk(before, after, '');
  return { lines, total };
}
