/**
 * The real-engine lines of `npm run bench -- deploys`: wall time of create-and-start of a one-service
 * stack through chronicle against the same compose file brought up by hand, on the same Docker engine,
 * with the same compose program, in the same run — once per Compose generation found here (v2's
 * `docker compose`, v1's `docker-compose`).
 *
 *  - by hand: `<compose> --project-name P --file compose.yaml up --detach` in a folder holding the file,
 *    timed from spawn to exit; and, as the peer that does the same work, the compose steps chronicle
 *    takes typed by hand: `config --quiet` (every saved file is checked by its compose), then `up` with
 *    chronicle's flags (v2's `--wait`, which waits until the services run: chronicle reports a service
 *    that crashed or stays unhealthy as a failed run, `up --detach` alone does not look);
 *  - through chronicle: `POST /api/stacks` with `Accept: application/json` (the answer comes when the
 *    job has ended and its run is recorded) to `chronicle stacks` with `compose.command` set to that
 *    generation, timed from request to answer;
 *  - both spawn compose through the same small shell script, which runs it and appends the wall-clock
 *    start and end of each call to a file: so chronicle's own share is measured, not guessed — the time
 *    from the request to the spawn of its `up` (the stack saved, compose's `config` check, the run
 *    recorded) and from the end of `up` to the answer (v1's engine check, the images recorded, the run
 *    completed), with what its other compose calls took;
 *  - each is followed, untimed, by a `down` of the project (and chronicle's stack is deleted), so every
 *    round starts from nothing: the network and the container are made each time;
 *  - ROUNDS rounds, the two alternating which goes first; each round's pair compared with itself, the
 *    median of the rounds held to the target: chronicle within 1.2x.
 *
 * Without an engine (or a compose) the line says why and has no ratio.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DETECTED_COMMANDS, probeCompose } from '../src/stacks/compose/program.js';
import { ensureBusyboxImage } from './docker-image.js';
import { type BenchReport, median, ratioOf, spreadCell } from './report.js';

const ROUNDS = Number(process.env.BENCH_ENGINE_ROUNDS ?? 5);
const TARGET_RATIO = 1.2;
const IMAGE = 'chronicle-bench/busybox:1';
/**
 * The `up` chronicle runs for a create-and-start (src/stacks/compose/args.ts): v2 waits until the
 * services run (`--wait`, its time-out the job's time left; a job has 600 s by default), v1 has no such
 * flag and chronicle asks the engine after it instead.
 */
const SAME_UP = {
  v2: ['up', '--detach', '--remove-orphans', '--wait', '--wait-timeout', '600'],
  v1: ['up', '--detach', '--remove-orphans'],
} as const;
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

/** Starts `chronicle stacks` on a fresh data folder with this `compose.command`; `stop` stops it. */
export type StartEngineServer = (
  composeCommand: readonly string[],
) => Promise<{ server: EngineServer; stop: () => Promise<void> }>;

/** Wall-clock milliseconds since the epoch, to the microsecond (what the timing script's `date` gives). */
const nowMs = () => performance.timeOrigin + performance.now();

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

interface Generation {
  generation: 'v1' | 'v2';
  /** As a config names it (`docker compose`). */
  command: readonly string[];
  /** Its program as an absolute path. */
  argv: readonly string[];
  version: string;
}

/** The Compose generations that answer here: `docker compose` as v2, `docker-compose` as v1. */
async function generationsHere(): Promise<{ found: Generation[]; missing: string[] }> {
  const found: Generation[] = [];
  const missing: string[] = [];
  for (const [i, command] of DETECTED_COMMANDS.entries()) {
    const wanted = i === 0 ? 'v2' : 'v1';
    const probed = await probeCompose(command, process.env, false);
    if ('program' in probed && probed.program.generation === wanted)
      found.push({
        generation: wanted,
        command,
        argv: probed.program.argv,
        version: probed.program.version ?? '',
      });
    else
      missing.push(
        `${wanted} (\`${command.join(' ')}\`: ${'failure' in probed ? probed.failure : 'another generation'})`,
      );
  }
  return { found, missing };
}

const quoted = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * A shell script that runs the compose program with its arguments and appends `<start ns> <end ns>
 * <arguments>` to `log` when it ends: the same few milliseconds of `sh` and `date` on both sides.
 */
async function timingScript(dir: string, generation: Generation, log: string): Promise<string> {
  const file = join(dir, `compose-${generation.generation}.sh`);
  await writeFile(
    file,
    [
      '#!/bin/sh',
      's=$(date +%s%N)',
      `${generation.argv.map(quoted).join(' ')} "$@"`,
      'rc=$?',
      `printf '%s %s %s\\n' "$s" "$(date +%s%N)" "$*" >> ${quoted(log)}`,
      'exit $rc',
      '',
    ].join('\n'),
  );
  await chmod(file, 0o755);
  return file;
}

interface ComposeCall {
  startMs: number;
  endMs: number;
  args: string;
}

async function callsIn(log: string, fromMs: number, toMs: number): Promise<ComposeCall[]> {
  const text = await readFile(log, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => {
      const [start = '0', end = '0', ...args] = line.split(' ');
      return { startMs: Number(BigInt(start)) / 1e6, endMs: Number(BigInt(end)) / 1e6, args: args.join(' ') };
    })
    .filter((c) => c.startMs >= fromMs && c.endMs <= toMs);
}

/** One round's times through chronicle: the whole, and its parts around compose's `up`. */
interface ThroughChronicle {
  totalMs: number;
  beforeUpMs: number;
  upMs: number;
  afterUpMs: number;
  /** The other compose calls within the request (the `config` check). */
  otherComposeMs: number;
}

/** The rounds of one generation: by hand and through chronicle, alternating which goes first. */
async function measureGeneration(
  generation: Generation,
  startServer: StartEngineServer,
): Promise<{ byHand: number[]; sameSteps: number[]; through: ThroughChronicle[] }> {
  const dir = await mkdtemp(join(tmpdir(), `chronicle-bench-engine-${generation.generation}-`));
  const log = join(dir, 'compose-calls.log');
  const script = await timingScript(dir, generation, log);
  const { server, stop } = await startServer([script]);
  const byHand: number[] = [];
  const sameSteps: number[] = [];
  const through: ThroughChronicle[] = [];
  try {
    await writeFile(join(dir, 'compose.yaml'), COMPOSE);
    const hand = async (round: number) => {
      const project = `chronicle-bench-hand-${generation.generation}-${process.pid}-${round}`;
      const base = [script, '--project-name', project, '--file', 'compose.yaml'];
      let t = performance.now();
      await exec([...base, 'up', '--detach'], dir);
      byHand.push(performance.now() - t);
      await exec([...base, 'down', '--timeout', '0'], dir);
      // The steps chronicle's create-and-start gives compose, typed by hand.
      t = performance.now();
      await exec([...base, 'config', '--quiet'], dir);
      await exec([...base, ...SAME_UP[generation.generation]], dir);
      sameSteps.push(performance.now() - t);
      await exec([...base, 'down', '--timeout', '0'], dir);
    };
    const chronicle = async (round: number) => {
      const name = `chronicle-bench-${generation.generation}-${process.pid}-${round}`;
      const t0 = nowMs();
      const created = await server.call(
        'POST',
        '/api/stacks',
        { name, compose: COMPOSE, variables: [] },
        'application/json',
      );
      const t1 = nowMs();
      const result = JSON.parse(created.text) as { success?: boolean };
      if (created.status !== 200 || result.success !== true)
        throw new Error(`create-and-start through chronicle failed: ${created.status} ${created.text}`);
      const calls = await callsIn(log, t0, t1);
      const up = calls.find((c) => / up( |$)/.test(` ${c.args}`));
      if (up === undefined) throw new Error(`no compose up was timed: ${JSON.stringify(calls)}`);
      through.push({
        totalMs: t1 - t0,
        beforeUpMs: up.startMs - t0,
        upMs: up.endMs - up.startMs,
        afterUpMs: t1 - up.endMs,
        otherComposeMs: calls.filter((c) => c !== up).reduce((sum, c) => sum + (c.endMs - c.startMs), 0),
      });
      const down = await server.call('POST', `/api/stacks/${name}/down`, {}, 'application/json');
      if (down.status !== 200) throw new Error(`down answered ${down.status}: ${down.text}`);
      await server.call('DELETE', `/api/stacks/${name}`);
    };
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        await chronicle(round);
        await hand(round);
      } else {
        await hand(round);
        await chronicle(round);
      }
    }
  } finally {
    await stop();
    await rm(dir, { recursive: true, force: true });
  }
  return { byHand, sameSteps, through };
}

/** The rows, ratios and raw figures of the engine lines, one set per generation found. */
export async function measureEngine(
  startServer: StartEngineServer,
): Promise<Pick<BenchReport, 'rows' | 'ratios' | 'extra'>> {
  let reason = engineMissing();
  let generations: Awaited<ReturnType<typeof generationsHere>> = { found: [], missing: [] };
  if (!reason) {
    try {
      generations = await generationsHere();
      if (generations.found.length === 0) reason = `no compose: ${generations.missing.join(', ')}`;
      else await ensureBusyboxImage(IMAGE);
    } catch (error) {
      reason = (error as Error).message;
    }
  }
  if (reason !== undefined)
    return {
      rows: [{ case: 'real engine: skipped', note: reason }],
      ratios: {},
      extra: { engineSkipped: reason },
    };

  const rows: BenchReport['rows'] = [];
  const ratios: BenchReport['ratios'] = {};
  const extra: Record<string, unknown> = {};
  for (const missing of generations.missing)
    rows.push({ case: `real engine ${missing.slice(0, 2)}: skipped`, note: missing });
  for (const generation of generations.found) {
    const { byHand, sameSteps, through } = await measureGeneration(generation, startServer);
    const g = generation.generation;
    const seconds = (values: readonly number[]) =>
      spreadCell(
        values.map((v) => v / 1000),
        2,
      );
    const ms = (values: readonly number[]) => spreadCell(values);
    const command = generation.command.join(' ');
    rows.push(
      {
        case: `real engine ${g}: create-and-start through chronicle (${ROUNDS} rounds)`,
        seconds: seconds(through.map((t) => t.totalMs)),
      },
      { case: `real engine ${g}: ${command} up -d by hand`, seconds: seconds(byHand) },
      {
        case: `real engine ${g}: chronicle's compose steps by hand (config --quiet, then ${SAME_UP[g].join(' ')})`,
        seconds: seconds(sameSteps),
      },
      {
        case: `real engine ${g}: chronicle's own share before its up`,
        ms: ms(through.map((t) => t.beforeUpMs - t.otherComposeMs)),
        note: `request to the spawn of up, less its other compose calls (${ms(through.map((t) => t.otherComposeMs))} ms: the config check)`,
      },
      {
        case: `real engine ${g}: compose's up within chronicle`,
        seconds: seconds(through.map((t) => t.upMs)),
        note: g === 'v2' ? 'up --detach --wait: until every service runs' : 'up --detach',
      },
      {
        case: `real engine ${g}: chronicle's own share after its up`,
        ms: ms(through.map((t) => t.afterUpMs)),
        note:
          g === 'v1'
            ? 'end of up to the answer: the engine asked until the services run, images, the run recorded'
            : 'end of up to the answer: images and the run recorded',
      },
    );
    ratios[`real engine ${g}: chronicle / compose by hand`] = ratioOf(
      through.map((t, i) => t.totalMs / (byHand[i] as number)),
      TARGET_RATIO,
      { max: true },
    );
    ratios[`real engine ${g}: chronicle / its compose steps by hand`] = ratioOf(
      through.map((t, i) => t.totalMs / (sameSteps[i] as number)),
      TARGET_RATIO,
      { max: true },
    );
    extra[`engine${g}`] = {
      compose: `${command} ${generation.version}`,
      byHandMs: byHand,
      sameStepsByHandMs: sameSteps,
      throughChronicle: through,
      medianOwnShareMs: median(through.map((t) => t.beforeUpMs - t.otherComposeMs + t.afterUpMs)),
    };
  }
  return { rows, ratios, extra };
}
