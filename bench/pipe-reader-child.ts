/**
 * The raw limit of `npm run bench -- deploys`: this Node process runs the bench compose program and reads
 * its stdout through a plain pipe, split into lines, with nothing else in the way. Prints one JSON line:
 * {lines, firstEmitMs, lastReceivedMs, outOfOrder, latencies p50/p99 in ms}.
 * argv: <compose program> ; the environment carries BENCH_LINES and the BENCH_SECRET_* values.
 */
import { spawn } from 'node:child_process';
import { percentile } from './report.js';

const program = process.argv[2] as string;
const child = spawn(process.execPath, [program, '--project-name', 'raw', '--file', 'compose.yaml', 'up'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const now = () => performance.timeOrigin + performance.now();
let rest = '';
let lines = 0;
let outOfOrder = 0;
let firstEmitMs = Number.NaN;
let lastReceivedMs = 0;
const latencies: number[] = [];
child.stdout.setEncoding('latin1').on('data', (chunk: string) => {
  const at = now();
  const parts = (rest + chunk).split('\n');
  rest = parts.pop() ?? '';
  for (const line of parts) {
    const space = line.indexOf(' ');
    const seq = Number(line.slice(0, space));
    const stamp = Number(line.slice(space + 1, line.indexOf(' ', space + 1)));
    if (seq !== lines) outOfOrder++;
    if (lines === 0) firstEmitMs = stamp;
    latencies.push(at - stamp);
    lines++;
  }
  lastReceivedMs = at;
});
child.on('close', (code) => {
  latencies.sort((a, b) => a - b);
  process.stdout.write(
    `${JSON.stringify({
      code,
      lines,
      outOfOrder,
      firstEmitMs,
      lastReceivedMs,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
    })}\n`,
  );
});
