/** A benchmark's result: rows for the table, and the same numbers as JSON for machines. */
export interface BenchReport {
  name: string;
  rows: Array<Record<string, string | number>>;
  /**
   * Ratios and limits against their targets; `max` means the value must stay below the target. A
   * figure measured over several runs gives their median as `value`, and `spread` (lowest, highest)
   * and `runs`.
   */
  ratios: Record<string, Ratio>;
  extra?: Record<string, unknown>;
}

const cell = (v: string | number) =>
  typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : v;

export interface Ratio {
  value: number;
  target: number;
  ok: boolean;
  max?: boolean;
  spread?: [number, number];
  runs?: number;
}

/** How many times each measured pair runs (chronicle and its limit alternating); BENCH_ROUNDS to change. */
export const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/**
 * A figure measured once per round, against its target: the median of the rounds decides, the spread
 * is printed beside it, so one run on a loaded machine neither passes nor fails a target alone.
 */
export function ratioOf(values: readonly number[], target: number, options: { max?: boolean } = {}): Ratio {
  const value = median(values);
  return {
    value,
    target,
    ok: options.max ? value < target : value >= target,
    ...(options.max ? { max: true } : {}),
    spread: [Math.min(...values), Math.max(...values)],
    runs: values.length,
  };
}

/**
 * Runs `ours` and `limit` in turn, `rounds` times, alternating which goes first (ours, limit, limit,
 * ours, ...), so load that comes and goes on a shared machine falls on both alike; each round's pair is
 * compared with itself. `warmup` rounds go first, unmeasured.
 */
export async function interleaved<A, B>(
  rounds: number,
  ours: () => Promise<A>,
  limit: () => Promise<B>,
  warmup = 0,
): Promise<Array<{ ours: A; limit: B }>> {
  for (let i = 0; i < warmup; i++) {
    await ours();
    await limit();
  }
  const out: Array<{ ours: A; limit: B }> = [];
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      const a = await ours();
      out.push({ ours: a, limit: await limit() });
    } else {
      const b = await limit();
      out.push({ ours: await ours(), limit: b });
    }
  }
  return out;
}

/** `median [lowest–highest]` of a figure over runs, for a table cell. */
export function spreadCell(values: readonly number[], digits = 0): string {
  const f = (v: number) => v.toFixed(digits);
  return values.length === 1
    ? f(values[0] as number)
    : `${f(median(values))} [${f(Math.min(...values))}–${f(Math.max(...values))}]`;
}

/** Every target missed by the reports printed so far, as `<report name>: <ratio line>`. */
export const missedTargets: string[] = [];

export function printReport(report: BenchReport): void {
  const columns = [...new Set(report.rows.flatMap((row) => Object.keys(row)))];
  const table = [columns, ...report.rows.map((row) => columns.map((c) => cell(row[c] ?? '')))];
  const widths = columns.map((_, i) => Math.max(...table.map((line) => String(line[i]).length)));
  const line = (cells: readonly (string | number)[]) =>
    cells.map((c, i) => String(c).padStart(widths[i] ?? 0)).join('  ');
  console.log(`\n${report.name}`);
  console.log(line(columns));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of table.slice(1)) console.log(line(row));
  console.log('\nratios (target):');
  for (const [key, r] of Object.entries(report.ratios)) {
    const spread = r.spread
      ? `  median of ${r.runs} runs, spread ${r.spread[0].toFixed(2)}–${r.spread[1].toFixed(2)}`
      : '';
    const text = `${key}: ${r.value.toFixed(2)} (${r.max ? '<' : '>='} ${r.target}) ${r.ok ? 'ok' : 'MISSES TARGET'}${spread}`;
    console.log(`  ${text}`);
    if (!r.ok) missedTargets.push(`${report.name.split(':')[0]}: ${text}`);
  }
  console.log(`\nJSON ${JSON.stringify(report)}`);
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}
