/** A benchmark's result: rows for the table, and the same numbers as JSON for machines. */
export interface BenchReport {
  name: string;
  rows: Array<Record<string, string | number>>;
  /** Ratios and limits against their targets; `max` means the value must stay below the target. */
  ratios: Record<string, { value: number; target: number; ok: boolean; max?: boolean }>;
  extra?: Record<string, unknown>;
}

const cell = (v: string | number) =>
  typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : v;

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
    console.log(
      `  ${key}: ${r.value.toFixed(2)} (${r.max ? '<' : '>='} ${r.target}) ${r.ok ? 'ok' : 'MISSES TARGET'}`,
    );
  }
  console.log(`\nJSON ${JSON.stringify(report)}`);
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}
