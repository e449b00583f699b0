/**
 * A deploy whose services do not come up fails, on both Compose generations (v2: `up --wait`; v1: the
 * engine asked after `up`): a service that crashes beside a healthy one, a health check that always
 * fails. One-shot services (`restart: "no"` exiting 0, one depended on with
 * `service_completed_successfully`) are fine. The error names the service, its exit code or health and
 * its last log lines, redacted; what the engine shows is checked. A health check still `starting` when
 * the job's time-out comes fails the run naming the service on both generations.
 */
import { expect, it } from 'vitest';
import { type ComposeUnderTest, DockerRun, describeCompose, TEST_IMAGE } from '../../docker-helpers.js';
import {
  createStackDone,
  type Json,
  objectOf,
  serveEngineStacks,
  USERS,
  waitRun,
  withStacks,
} from './helpers.js';

const SLEEP = `["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"]`;
const SECRET = 'tok-91c4e7-secret';

/** A service of the test image, with more keys (one line each, indented under it). */
const service = (name: string, ...keys: string[]) => [
  `  ${name}:`,
  `    image: ${TEST_IMAGE}`,
  ...keys.map((k) => `    ${k}`),
];
/** A compose file of these services. */
const composeOf = (...services: string[][]) => ['services:', ...services.flat(), ''].join('\n');
/** The sleeping web service most stacks here have. */
const web = (...keys: string[]) => service('web', `command: ${SLEEP}`, ...keys);

describeCompose('deploys whose services do not come up', (compose: ComposeUnderTest) => {
  const docker = new DockerRun(`health${compose.generation}`);
  const suite = serveEngineStacks(compose.command, () => docker.cleanUp());

  const deployOf = async (name: string, text: string) => {
    const admin = suite.admin;
    const created = await createStackDone(admin, name, null, {
      compose: text,
      variables: [{ name: 'TOKEN', value: SECRET, secret: true }],
    });
    const run = await waitRun(admin, name, created.runId as number, 240_000);
    return { run, result: created.job.result as Json };
  };

  it('a service that exits 1 beside a healthy one fails the run: the service, its exit code and its last lines, redacted', async () => {
    const name = docker.stack('crash');
    const { run, result } = await deployOf(
      name,
      composeOf(
        web(),
        service(
          'app',
          'environment:',
          `  TOKEN: \${TOKEN}`,
          `command: ["sh", "-c", "echo starting; echo token is $$TOKEN; echo 'cannot open the database' >&2; exit 3"]`,
        ),
      ),
    );
    expect(run.status, JSON.stringify(run)).toBe('failed');
    const error = run.errorMessage as string;
    const container = compose.generation === 'v2' ? `${name}-app-1` : `${name}_app_1`;
    expect(error).toContain(`Service app (container ${container}) exited with code 3; its last log lines:`);
    expect(error).toContain('  token is ***');
    expect(error).toContain('  cannot open the database');
    expect(error).not.toContain(SECRET);
    expect(error).not.toMatch(/Container .* Started/);
    expect(result).toMatchObject({ success: false });
    // What the engine shows, and what the stack answers of it.
    const states = (await docker.containers(name))
      .map((c) => [c.Labels['com.docker.compose.service'], c.State])
      .sort();
    expect(states).toEqual([
      ['app', 'exited'],
      ['web', 'running'],
    ]);
    const stack = objectOf(await suite.admin.get(`/api/stacks/${name}`));
    expect((stack.containers as Json[]).map((c) => [c.service, c.state, c.exitCode])).toEqual([
      ['app', 'exited', 3],
      ['web', 'running', null],
    ]);
    expect(stack.state).toBe('partial');
  }, 300_000);

  it('a health check that always fails fails the run with the service unhealthy', async () => {
    const name = docker.stack('sick');
    const { run } = await deployOf(
      name,
      composeOf(
        web(
          'healthcheck:',
          '  test: ["CMD", "sh", "-c", "echo not ready; exit 1"]',
          '  interval: 1s',
          '  timeout: 2s',
          '  retries: 2',
        ),
      ),
    );
    expect(run.status, JSON.stringify(run)).toBe('failed');
    const container = compose.generation === 'v2' ? `${name}-web-1` : `${name}_web_1`;
    expect(run.errorMessage).toMatch(new RegExp(`^Service web \\(container ${container}\\) is unhealthy`));
    const stack = objectOf(await suite.admin.get(`/api/stacks/${name}`));
    expect((stack.containers as Json[]).map((c) => [c.service, c.state, c.health])).toEqual([
      ['web', 'running', 'unhealthy'],
    ]);
    expect(stack.state).toBe('unhealthy');
  }, 300_000);

  it('one-shot services that complete, and a healthy one, make a successful run', async () => {
    const name = docker.stack('oneshot');
    const { run, result } = await deployOf(
      name,
      composeOf(
        web(
          'healthcheck:',
          '  test: ["CMD", "true"]',
          '  interval: 1s',
          '  retries: 3',
          'depends_on:',
          '  migrate:',
          '    condition: service_completed_successfully',
        ),
        service('migrate', 'command: ["sh", "-c", "echo migrated; sleep 1"]'),
        service('seed', 'restart: "no"', 'command: ["sh", "-c", "echo seeded"]'),
      ),
    );
    expect(run, JSON.stringify(run)).toMatchObject({
      status: 'success',
      errorMessage: null,
      details: { exitCode: 0 },
    });
    expect(result).toMatchObject({ success: true, exitCode: 0 });
    const states = (await docker.containers(name))
      .map((c) => [c.Labels['com.docker.compose.service'], c.State])
      .sort();
    expect(states).toEqual([
      ['migrate', 'exited'],
      ['seed', 'exited'],
      ['web', 'running'],
    ]);
    // The one-shots that completed do not make the stack partial.
    expect(objectOf(await suite.admin.get(`/api/stacks/${name}`))).toMatchObject({ state: 'running' });
  }, 300_000);

  it("a service whose health stays `starting` past the job's time-out fails the run naming the service", async () => {
    const name = docker.stack('slow');
    const text = composeOf(
      web('healthcheck:', '  test: ["CMD", "true"]', '  interval: 1h', '  start_period: 1h'),
    );
    await withStacks(
      {
        config: {
          users: [USERS.admin],
          compose: { command: [...compose.command] },
          jobs: { timeoutSeconds: 15 },
        },
      },
      async (server) => {
        const admin = server.as('admin');
        const created = await createStackDone(admin, name, null, { compose: text });
        const run = await waitRun(admin, name, created.runId as number, 120_000);
        expect(run.status, JSON.stringify(run)).toBe('failed');
        // v2's `up --wait` and the job end together: the engine is asked who was not ready (as on v1).
        const container = compose.generation === 'v2' ? `${name}-web-1` : `${name}_web_1`;
        expect(run.errorMessage).toBe(
          `Timed out after 15 s waiting for the services:\nService web (container ${container}) is still starting (health: starting)`,
        );
      },
    );
  }, 300_000);
});
