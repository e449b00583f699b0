/**
 * Arguments per compose generation (docs/stacks.md#on-a-real-docker-engine) over the real CLI with the fake compose, which
 * answers `version` as FAKE_COMPOSE_VERSION says: v1 gets `pull` before `up` (it has no `up --pull`), v2
 * `up --pull always` (and `--wait`, which v1 lacks too); a step that prints compose's usage fails its run even with exit code 0; a failed
 * `pull` leaves `up` unrun and the run says so. The real v1 is driven in docker-engine.test.ts.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  argvCalls,
  composeText,
  createStackDone,
  deployDone,
  describeStacks,
  FAKE_COMPOSE,
  logLines,
  type StacksClient,
  type StacksServer,
  saveCompose,
  stackDir,
  startStacks,
  waitRun,
} from './helpers.js';

const V1 = 'docker-compose version 1.29.2, build fake';
/** What v1 1.29.2 printed here for `up --pull always` (test/fixtures/compose-output/v1-up-unknown-flag.txt). */
const V1_UP_USAGE = [
  'Builds, (re)creates, starts, and attaches to containers for a service.',
  '',
  'Usage: up [options] [--scale SERVICE=NUM...] [--] [SERVICE...]',
  '',
  'Options:',
  '    -d, --detach               Detached mode: Run containers in the background,',
];

describeStacks('compose generations (fake compose)', () => {
  let v1: StacksServer;
  let v2: StacksServer;
  beforeAll(async () => {
    [v1, v2] = await Promise.all([startStacks({ env: { FAKE_COMPOSE_VERSION: V1 } }), startStacks()]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([v1?.stop(), v2?.stop()]);
  });

  const callsOf = async (server: StacksServer, name: string) => {
    const file = join(stackDir(server.dataDir, null, name), 'compose.yaml');
    return (await argvCalls(server)).filter((c) => c.argv.includes(file)).map((c) => c.argv.slice(4));
  };

  it('v1: `pull` then `up` without --pull; v2: one `up --pull always`', async () => {
    for (const server of [v1, v2]) {
      const admin = server.as('admin');
      await createStackDone(admin, 'pulled', null, { compose: composeText() });
      const { runId } = await deployDone(admin, 'pulled', null, {
        pull: true,
        build: true,
        forceRecreate: true,
      });
      expect(await waitRun(admin, 'pulled', runId as number)).toMatchObject({ status: 'success' });
    }
    expect(await callsOf(v1, 'pulled')).toEqual([
      ['up', '--detach', '--remove-orphans'],
      // The services with an image and no build (a built image is in no registry).
      ['pull', 'web'],
      ['up', '--detach', '--remove-orphans', '--build', '--force-recreate'],
    ]);
    const wait = ['--wait', '--wait-timeout', expect.stringMatching(/^\d+$/)];
    expect(await callsOf(v2, 'pulled')).toEqual([
      ['up', '--detach', '--remove-orphans', ...wait],
      ['up', '--detach', '--remove-orphans', '--pull', 'always', '--build', '--force-recreate', ...wait],
    ]);
  });

  it("compose's usage text with exit code 0 is a failed run, not a success", async () => {
    const admin = v1.as('admin');
    await createStackDone(admin, 'usage', null, { compose: composeText() });
    await saveCompose(admin, 'usage', null, composeText({ up: { stderr: V1_UP_USAGE, exit: 0 } }));
    const { runId, job } = await deployDone(admin, 'usage', null);
    const run = await waitRun(admin, 'usage', runId as number);
    expect(run).toMatchObject({ status: 'failed', details: { exitCode: 0 } });
    expect(run.errorMessage).toBe(
      `Compose did not accept the arguments of \`up\` (it printed its usage, exit code 0); ${process.execPath} ${FAKE_COMPOSE} 1.29.2 was given v1 arguments`,
    );
    expect(job.result).toMatchObject({ success: false, exitCode: 0 });
    // The usage stays in the log: it is what compose said.
    expect(await logLines(v1.dataDir, null, runId as number)).toEqual(V1_UP_USAGE);
  });

  it('a usage printed by a program of a build step is not compose refusing its arguments', async () => {
    const admin = v1.as('admin');
    await createStackDone(admin, 'npmhelp', null, { compose: composeText() });
    await saveCompose(
      admin,
      'npmhelp',
      null,
      composeText({ up: { lines: ['Usage: npm <command>', ' Container npmhelp-web-1  Started'] } }),
    );
    const { runId } = await deployDone(admin, 'npmhelp', null);
    expect(await waitRun(admin, 'npmhelp', runId as number)).toMatchObject({ status: 'success' });
  });

  it('v1: a failed pull fails the run with its exit code and stderr; `up` is not run, and the run says so', async () => {
    const admin: StacksClient = v1.as('admin');
    await createStackDone(admin, 'nopull', null, { compose: composeText() });
    await saveCompose(
      admin,
      'nopull',
      null,
      composeText({
        pull: {
          stderr: ['Pulling web ... error', 'ERROR: for web  pull access denied for nothing'],
          exit: 1,
        },
      }),
    );
    const { runId } = await deployDone(admin, 'nopull', null, { pull: true });
    const run = await waitRun(admin, 'nopull', runId as number);
    expect(run).toMatchObject({ status: 'failed', details: { exitCode: 1, summary: { imagesPulled: 0 } } });
    expect(run.errorMessage).toBe(
      [
        "Compose exited with code 1 (compose pull; up was not run: the stack's containers are as they were before this deploy):",
        'Pulling web ... error',
        'ERROR: for web  pull access denied for nothing',
      ].join('\n'),
    );
    expect((await callsOf(v1, 'nopull')).at(-1)).toEqual(['pull', 'web']);
  });

  it("v2: the stored error leaves out compose's progress lines, keeps what went wrong", async () => {
    const admin = v2.as('admin');
    await createStackDone(admin, 'noisy', null, { compose: composeText() });
    const stderr = [
      ' Network noisy_default  Created',
      ' Container noisy-db-1  Started',
      ' Container noisy-web-1  Creating',
      ' Container noisy-web-1  Created',
      ' ✔ Container noisy-cache-1  Started  0.4s',
      'Error response from daemon: driver failed programming external connectivity',
    ];
    await saveCompose(admin, 'noisy', null, composeText({ up: { stderr, exit: 1 } }));
    const { runId } = await deployDone(admin, 'noisy', null);
    const run = await waitRun(admin, 'noisy', runId as number);
    expect(run.errorMessage).toBe(
      'Compose exited with code 1:\nError response from daemon: driver failed programming external connectivity',
    );
    // The log keeps every line.
    expect(await logLines(v2.dataDir, null, runId as number)).toEqual(stderr);
  });
});
