/**
 * The real-engine line of `npm run bench -- deploys` (issue 17): wall time of create-and-start of a
 * one-service stack through chronicle against the same compose file brought up by hand, on the same
 * Docker engine, with the same compose program, in the same run.
 *
 *  - by hand: `<compose> --project-name P --file compose.yaml up --detach` in a folder holding the file,
 *    timed from spawn to exit;
 *  - through chronicle: `POST /api/stacks` with `Accept: application/json` (the answer comes when the
 *    job has ended and its run is recorded) to `chronicle stacks` without compose.command (it finds the
 *    compose itself, as a new user's would), timed from request to answer;
 *  - each is followed, untimed, by a `down` of the project (and chronicle's stack is deleted), so every
 *    round starts from nothing: the network and the container are made each time;
 *  - ROUNDS rounds, the two alternating; medians compared. Target: chronicle within 1.2x.
 *
 * Without an engine (or a compose) the line says why and has no ratio.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ComposeResolver } from '../src/stacks/compose-program.js';
import { ensureBusyboxImage } from './docker-image.js';
import type { BenchReport } from './report.js';

const ROUNDS = Number(process.env.BENCH_ENGINE_ROUNDS ?? 5);
const TARGET_RATIO = 1.2;
const IMAGE = 'chronicle-bench/busybox:1';
const COMPOSE = `services:\n  web:\n    image: ${IMAGE}\n    command: ["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"]\n`;

export interface EngineServer {
  port: number;
  /** One JSON request; status and body text. */
  call(
    method: string,
    path: string,
    body?: unknown,
    accept?: string,
  ): Promise<{ status: number; text: string }>;
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/** Runs a command to its end; rejects on a non-zero exit. */
function exec(argv: readonly string[], cwd: string): Promise<void> {
  const [program, ...args] = argv;
  return new Promise((resolve, reject) => {
    const child = spawn(program as string, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${argv.join(' ')} exited ${code}: ${stderr.slice(-500)}`)),
    );
  });
}

/** Why the engine line cannot run here, or undefined. */
function engineMissing(): string | undefined {
  const info = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (info.status !== 0) return `no Docker engine (\`docker info\` failed)`;
  return undefined;
}

/**
 * The rows and ratio of the engine line. `startServer` starts `chronicle stacks` without compose.command
 * on a fresh data folder; `stop` stops it.
 */
export async function measureEngine(
  startServer: () => Promise<{ server: EngineServer; stop: () => Promise<void> }>,
): Promise<Pick<BenchReport, 'rows' | 'ratios' | 'extra'>> {
  const missing = engineMissing();
  let program: Awaited<ReturnType<ComposeResolver['resolve']>> | undefined;
  let reason = missing;
  if (!reason) {
    try {
      program = await new ComposeResolver(null).resolve();
      await ensureBusyboxImage(IMAGE);
    } catch (error) {
      reason = (error as Error).message;
    }
  }
  if (reason !== undefined || program === undefined)
    return {
      rows: [{ case: 'real engine: skipped', note: reason ?? 'no compose' }],
      ratios: {},
      extra: { engineSkipped: reason },
    };

  const dir = await mkdtemp(join(tmpdir(), 'chronicle-bench-engine-'));
  const { server, stop } = await startServer();
  const byHand: number[] = [];
  const through: number[] = [];
  const compose = [...program.command];
  try {
    await writeFile(join(dir, 'compose.yaml'), COMPOSE);
    for (let round = 0; round < ROUNDS; round++) {
      const project = `chronicle-bench-hand-${process.pid}-${round}`;
      const base = [...compose, '--project-name', project, '--file', 'compose.yaml'];
      let t = performance.now();
      await exec([...base, 'up', '--detach'], dir);
      byHand.push(performance.now() - t);
      await exec([...base, 'down', '--timeout', '0'], dir);

      const name = `chronicle-bench-${process.pid}-${round}`;
      t = performance.now();
      const created = await server.call(
        'POST',
        '/api/stacks',
        { name, compose: COMPOSE, variables: [] },
        'application/json',
      );
      through.push(performance.now() - t);
      const result = JSON.parse(created.text) as { success?: boolean; error?: string };
      if (created.status !== 200 || result.success !== true)
        throw new Error(`create-and-start through chronicle failed: ${created.status} ${created.text}`);
      const down = await server.call('POST', `/api/stacks/${name}/down`, {}, 'application/json');
      if (down.status !== 200) throw new Error(`down answered ${down.status}: ${down.text}`);
      await server.call('DELETE', `/api/stacks/${name}`);
    }
  } finally {
    await stop();
    await rm(dir, { recursive: true, force: true });
  }
  const hand = median(byHand);
  const chronicle = median(through);
  const which = `${program.command.join(' ')} ${program.version} (${program.generation})`;
  return {
    rows: [
      {
        case: `real engine: create-and-start through chronicle (median of ${ROUNDS})`,
        seconds: chronicle / 1000,
      },
      {
        case: `real engine: ${program.command.join(' ')} up -d by hand (median of ${ROUNDS})`,
        seconds: hand / 1000,
      },
    ],
    ratios: {
      'real engine: chronicle / compose by hand': {
        value: chronicle / hand,
        target: TARGET_RATIO,
        ok: chronicle / hand <= TARGET_RATIO,
        max: true,
      },
    },
    extra: { engineCompose: which, engineByHandMs: byHand, engineThroughChronicleMs: through },
  };
}
