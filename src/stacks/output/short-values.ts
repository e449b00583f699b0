/**
 * Variables whose values are too short to replace safely (5 characters or fewer): the
 * redactor withholds every output line that holds one, secret or not, as the spec requires — `TAG=1`
 * withholds every line with a `1` in it (on v2 every container line: `web-app-1`). A save of such a
 * variable is answered with a warning saying how many lines of the stack's last run it would withhold.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { StackVariable } from '../contracts.js';
import { MAX_SHORT_VALUE } from './redaction.js';

export interface ShortValueWarning {
  variable: string;
  secret: boolean;
  /** Lines of the last run's log holding the value (null: no run, or its log is gone). */
  withheldLines: number | null;
  /** Lines of that log. */
  loggedLines: number | null;
  message: string;
}

/** The variables whose value the redactor cannot replace (1 to MAX_SHORT_VALUE characters). Pure. */
export const shortValued = (variables: readonly StackVariable[]): StackVariable[] =>
  variables.filter((v) => v.value.length > 0 && v.value.length <= MAX_SHORT_VALUE);

/**
 * The warnings of these variables, with counts of `log` (the last run's lines, when there is one). The
 * message never shows a value, secret or not. Pure.
 */
export function shortValueWarnings(
  variables: readonly StackVariable[],
  counts: { lines: number; holding: ReadonlyMap<string, number> } | undefined,
): ShortValueWarning[] {
  return shortValued(variables).map((v) => {
    const withheld = counts === undefined ? null : (counts.holding.get(v.value) ?? 0);
    const tail =
      counts === undefined
        ? ''
        : ` (${withheld} of the ${counts.lines} lines of the stack's last run hold it)`;
    return {
      variable: v.name,
      secret: v.secret,
      withheldLines: withheld,
      loggedLines: counts?.lines ?? null,
      message: `${v.name}'s value has ${v.value.length} character${v.value.length === 1 ? '' : 's'}, too few to replace with ***: every output line holding it is withheld from the job, the log and errors${tail}`,
    };
  });
}

/** How many lines of a log file hold each value (read as a stream: a log may be large). */
export async function countHolding(
  file: string,
  values: readonly string[],
): Promise<{ lines: number; holding: Map<string, number> } | undefined> {
  const holding = new Map(values.map((v) => [v, 0]));
  let lines = 0;
  try {
    const input = createReadStream(file, { encoding: 'utf8' });
    const reader = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of reader) {
      lines++;
      for (const value of values) if (line.includes(value)) holding.set(value, (holding.get(value) ?? 0) + 1);
    }
  } catch {
    return undefined;
  }
  return { lines, holding };
}
