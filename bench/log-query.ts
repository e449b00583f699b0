import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { queryLog } from '../src/stacks/history/log-query.js';
import { redactionWorkload } from './redaction.js';
import { type BenchReport, percentile, printReport } from './report.js';

/**
 * Range and search of a 200,000-line run log (~100 bytes a line, 20 MB), against the
 * peer measured on the same file in the same run: reading it whole and splitting it into lines, the
 * least any answer that looks at every line does. Target: each query under 200 ms (p50).
 */
const LINES = Number(process.env.BENCH_LOG_LINES ?? 200_000);
const ROUNDS = Number(process.env.BENCH_LOG_ROUNDS ?? 15);

async function time(work: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  const ms: number[] = [];
  await work();
  for (let i = 0; i < ROUNDS; i++) {
    const start = process.hrtime.bigint();
    await work();
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p95: percentile(ms, 95) };
}

export async function benchLogQuery(): Promise<BenchReport> {
  const dir = await mkdtemp(join(tmpdir(), 'chronicle-log-query-'));
  const file = join(dir, '1.log');
  try {
    const { lines } = redactionWorkload(LINES);
    await writeFile(file, `${lines.join('\n')}\n`);
    const cases: Array<[string, () => Promise<unknown>]> = [
      ['peer: readFile + split', async () => (await readFile(file, 'utf8')).split('\n').length],
      ['range fromLine=150000 limit=1000', () => queryLog(file, { fromLine: 150_000, limit: 1000 })],
      [
        'search rare (q=worker-3-1 recreated)',
        () => queryLog(file, { fromLine: 1, limit: 1000, q: 'worker-3-1  recreated' }),
      ],
      [
        'search common (q=container), 1000 of 80000',
        () => queryLog(file, { fromLine: 1, limit: 1000, q: 'container' }),
      ],
      ['search none (q=no-such-text)', () => queryLog(file, { fromLine: 1, limit: 1000, q: 'no-such-text' })],
    ];
    const rows: BenchReport['rows'] = [];
    const ratios: BenchReport['ratios'] = {};
    let peer = 0;
    for (const [name, work] of cases) {
      const t = await time(work);
      if (peer === 0) peer = t.p50;
      rows.push({ case: name, 'p50 ms': t.p50, 'p95 ms': t.p95, 'x peer': t.p50 / peer });
      if (name.startsWith('peer')) continue;
      ratios[`${name} p50 ms`] = { value: t.p50, target: 200, ok: t.p50 < 200, max: true };
    }
    return { name: `log range and search, ${LINES} lines`, rows, ratios };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export const runLogQueryBench = async () => printReport(await benchLogQuery());
