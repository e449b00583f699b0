import { createRedactor, naiveRedact } from '../src/stacks/output/redaction.js';
import { type BenchReport, interleaved, median, printReport, ROUNDS, ratioOf, spreadCell } from './report.js';

const LINES = Number(process.env.BENCH_REDACTION_LINES ?? 200_000);
const SECRETS = 100;

/** A deterministic generator, so runs compare. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/=';

/** 100 secrets of 8-40 characters, and ~100-byte compose-like lines, 1 in 50 holding a secret. */
export function redactionWorkload(lines = LINES) {
  const rand = rng(42);
  const pick = (s: string) => s[Math.floor(rand() * s.length)] as string;
  const secrets = Array.from({ length: SECRETS }, () =>
    Array.from({ length: 8 + Math.floor(rand() * 33) }, () => pick(CHARS)).join(''),
  );
  const templates = [
    (i: number) => ` Container stack-web-${i % 7}-1  Started`,
    (i: number) => ` Container stack-worker-${i % 5}-1  Recreated`,
    (i: number) => `#${i % 40} [build 3/7] RUN npm ci --omit=dev && npm cache clean --force`,
    (i: number) => ` ${(i % 97).toString(16)}a9c3f0e1b2 Downloading [==========>   ]  ${i % 100}.3MB/120MB`,
    (i: number) =>
      `time="2026-11-23T06:00:${String(i % 60).padStart(2, '0')}Z" level=info msg="pulling image"`,
  ];
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    let line = (templates[i % templates.length] as (i: number) => string)(i);
    if (i % 50 === 0) line += ` DB_PASSWORD=${secrets[i % SECRETS]}`;
    out.push(line.padEnd(100, ' '));
  }
  return { secrets, lines: out };
}

/** The other one-pass candidate measured: one RegExp alternation, longest value first. */
function regexRedactor(values: readonly string[]) {
  const esc = (v: string) => v.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  const sorted = [...new Set(values.filter((v) => v.length > 0))].sort((a, b) => b.length - a.length);
  const re = new RegExp(sorted.map(esc).join('|'), 'g');
  return (line: string): string | null => {
    let withheld = false;
    const out = line.replace(re, (m) => {
      if (m.length <= 5) withheld = true;
      return '***';
    });
    return withheld ? null : out;
  };
}

function linesPerSecond(lines: readonly string[], f: (line: string) => string | null): number {
  let sink = 0;
  for (let i = 0; i < Math.min(lines.length, 20_000); i++) sink += f(lines[i] as string)?.length ?? 0; // warm-up
  const t0 = performance.now();
  for (const l of lines) sink += f(l)?.length ?? 0;
  const s = (performance.now() - t0) / 1000;
  if (sink < 0) console.log(sink);
  return lines.length / s;
}

export async function measureRedaction(): Promise<{ compiled: number; regex: number; naive: number }> {
  const { secrets, lines } = redactionWorkload();
  const r = createRedactor(secrets);
  // All three must agree before their speeds mean anything.
  const re = regexRedactor(secrets);
  for (const l of lines.slice(0, 5000)) {
    const a = r.line(l);
    if (a !== naiveRedact(secrets, l) || a !== re(l)) throw new Error(`redactors disagree on ${l}`);
  }
  const compiled = linesPerSecond(lines, (l) => r.line(l));
  const regex = linesPerSecond(lines, re);
  const naive = linesPerSecond(lines, (l) => naiveRedact(secrets, l));
  return { compiled, regex, naive };
}

export async function benchRedaction(): Promise<void> {
  const { secrets, lines } = redactionWorkload();
  // The agreement check of measureRedaction, then the compiled redactor and the naive one in turn.
  await measureRedaction();
  const r = createRedactor(secrets);
  const re = regexRedactor(secrets);
  const rounds = await interleaved(
    ROUNDS,
    async () => ({ compiled: linesPerSecond(lines, (l) => r.line(l)), regex: linesPerSecond(lines, re) }),
    async () => linesPerSecond(lines, (l) => naiveRedact(secrets, l)),
  );
  const perRound = rounds.map((p) => p.ours.compiled / p.limit);
  const report: BenchReport = {
    name:
      `redaction: ${LINES} lines of ~100 bytes, ${SECRETS} secrets of 8-40 chars (1 line in 50 holds one); ` +
      `${ROUNDS} rounds, the redactors in turn, cells median [lowest–highest]`,
    rows: [
      {
        matcher: 'Aho-Corasick, dense table (kept)',
        'lines/s': spreadCell(rounds.map((p) => Math.round(p.ours.compiled))),
      },
      {
        matcher: 'one RegExp alternation',
        'lines/s': spreadCell(rounds.map((p) => Math.round(p.ours.regex))),
      },
      {
        matcher: 'naive replaceAll per secret',
        'lines/s': spreadCell(rounds.map((p) => Math.round(p.limit))),
      },
    ],
    ratios: { 'compiled / naive': ratioOf(perRound, 5) },
    extra: { regexOverNaive: median(rounds.map((p) => p.ours.regex / p.limit)) },
  };
  printReport(report);
}
