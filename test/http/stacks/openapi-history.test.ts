/**
 * A scripted deploy-history session (the deploy history's routes, checked against the served document): deploy twice, read what each
 * run deployed, diff, redeploy, history settings, audit (a page and the ndjson export), a retention run,
 * a notification test and the deliveries, and a log's range, search and download, with the failures a
 * client meets on the way. Every answer is checked against the schema its route documents in the served
 * OpenAPI document, for its status and media type.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { header } from '../editor/helpers.js';
import {
  composeText,
  createStackDone,
  deployDone,
  describeStacks,
  objectOf,
  q,
  StacksClient,
  type StacksServer,
  saveCompose,
  stacksConfig,
  startStacks,
  waitRun,
} from './helpers.js';
import { AnswerChecker, type Endpoint } from './openapi-helpers.js';

const at = (method: string, url: string): Endpoint => ({ method, url });
const COMPOSE = at('GET', '/api/stacks/:name/deploys/:runId/compose');
const VARIABLES = at('GET', '/api/stacks/:name/deploys/:runId/variables');
const IMAGES = at('GET', '/api/stacks/:name/deploys/:runId/images');
const DIFF = at('GET', '/api/stacks/:name/deploys/:runId/diff');
const REDEPLOY = at('POST', '/api/stacks/:name/deploys/:runId/redeploy');
const GET_SETTINGS = at('GET', '/api/stacks/:name/history-settings');
const PUT_SETTINGS = at('PUT', '/api/stacks/:name/history-settings');
const AUDIT = at('GET', '/api/audit');
const RETENTION = at('POST', '/api/schedules/deploy_run_retention/run');
const TEST = at('POST', '/api/notifications/:name/test');
const DELIVERIES = at('GET', '/api/notifications/deliveries');

const SECRET_1 = 'history-session-secret-1';
const SECRET_2 = 'history-session-secret-2';

describeStacks('a scripted history session, every answer as the OpenAPI document says', () => {
  let receiver: Server;
  let server: StacksServer;
  let admin: StacksClient;
  let viewer: StacksClient;
  let c: AnswerChecker;

  beforeAll(async () => {
    receiver = createServer((_request, response) => response.writeHead(200).end());
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = (receiver.address() as AddressInfo).port;
    server = await startStacks({
      config: stacksConfig({
        notifications: [
          { name: 'hook', type: 'webhook', url: `http://127.0.0.1:${port}/hook`, events: ['run.failed'] },
        ],
      }),
    });
    admin = server.as('admin');
    viewer = server.as('viewer');
    const served = await admin.get('/api/openapi.json');
    c = await AnswerChecker.of(objectOf(served));
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('deploys twice, reads, diffs, redeploys; settings, audit, retention, notifications, logs', async () => {
    const created = await createStackDone(admin, 'hist', null, {
      compose: composeText({ lines: ['version one', 'alpha', 'beta'] }),
      variables: [
        { name: 'DB_PASSWORD', value: SECRET_1, secret: true },
        { name: 'MODE', value: 'blue', secret: false },
      ],
    });
    const run1 = created.runId as number;
    await saveCompose(admin, 'hist', null, composeText({ lines: ['version two'] }, ['web', 'worker']));
    c.check(
      'setVariables',
      await admin.put(`/api/stacks/hist/variables${q(null)}`, {
        variables: [
          { name: 'DB_PASSWORD', value: SECRET_2, secret: true },
          { name: 'MODE', value: 'green', secret: false },
        ],
      }),
    );
    const run2 = (await deployDone(admin, 'hist', null, { pull: true })).runId as number;
    await waitRun(admin, 'hist', run2);

    // What each run deployed.
    const compose = objectOf(c.check(COMPOSE, await admin.get(`/api/stacks/hist/deploys/${run1}/compose`)));
    expect(compose.runId).toBe(run1);
    const variables = objectOf(
      c.check(VARIABLES, await admin.get(`/api/stacks/hist/deploys/${run2}/variables`)),
    );
    expect(variables.variables).toEqual([
      { name: 'DB_PASSWORD', secret: true },
      { name: 'MODE', secret: false, value: 'green' },
    ]);
    // The fake compose makes no container: the engine shows no image of the run.
    const images = objectOf(c.check(IMAGES, await admin.get(`/api/stacks/hist/deploys/${run1}/images`)));
    expect(images).toEqual({ runId: run1, images: [] });
    expect(c.check(IMAGES, await admin.get('/api/stacks/hist/deploys/999/images')).status).toBe(404);
    c.check(VARIABLES, await admin.get('/api/stacks/hist/deploys/abc/variables'));
    c.check(COMPOSE, await admin.get('/api/stacks/hist/deploys/999/compose'));
    c.check(
      COMPOSE,
      await new StacksClient(server.port, null).get(`/api/stacks/hist/deploys/${run1}/compose`),
    );

    // The diff, and its failures.
    const diff = objectOf(c.check(DIFF, await admin.get(`/api/stacks/hist/deploys/${run1}/diff?to=${run2}`)));
    expect(diff.options).toEqual([{ name: 'pull', from: false, to: true }]);
    c.check(DIFF, await admin.get(`/api/stacks/hist/deploys/${run1}/diff?to=${run1}`));
    expect(c.check(DIFF, await admin.get(`/api/stacks/hist/deploys/${run1}/diff`)).status).toBe(400);

    // A redeploy: at once (202, followed by the job) and waited for (200).
    const accepted = objectOf(
      c.check(REDEPLOY, await admin.post(`/api/stacks/hist/deploys/${run1}/redeploy`)),
    );
    for (;;) {
      const job = objectOf(c.check('getJob', await admin.get(`/api/jobs/${accepted.jobId as string}`)));
      if (job.status === 'done') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const waited = c.check(REDEPLOY, await admin.postJson(`/api/stacks/hist/deploys/${run1}/redeploy`));
    expect(waited.status).toBe(200);
    c.check(REDEPLOY, await viewer.post(`/api/stacks/hist/deploys/${run1}/redeploy`));

    // History settings.
    c.check(GET_SETTINGS, await admin.get(`/api/stacks/hist/history-settings${q(null)}`));
    const set = c.check(
      PUT_SETTINGS,
      await admin.put(`/api/stacks/hist/history-settings${q(null)}`, { autoRollback: true, keepRuns: 5 }),
    );
    expect(objectOf(set)).toEqual({ autoRollback: true, keepRuns: 5, keepDays: null });
    expect(
      c.check(PUT_SETTINGS, await admin.put(`/api/stacks/hist/history-settings${q(null)}`, { other: 1 }))
        .status,
    ).toBe(400);
    expect(
      c.check(PUT_SETTINGS, await admin.put(`/api/stacks/hist/history-settings${q(null)}`, [1])).status,
    ).toBe(400);
    expect(
      c.check(PUT_SETTINGS, await viewer.put(`/api/stacks/hist/history-settings${q(null)}`, {})).status,
    ).toBe(403);
    expect(c.check(GET_SETTINGS, await admin.get(`/api/stacks/none/history-settings${q(null)}`)).status).toBe(
      404,
    );

    // The audit trail: a page, the export, the refusals.
    const page = objectOf(c.check(AUDIT, await admin.get('/api/audit?stack=hist&limit=5')));
    expect((page.entries as unknown[]).length).toBe(5);
    const exported = c.check(AUDIT, await admin.get('/api/audit?format=ndjson&stack=hist'));
    expect(header(exported, 'content-type')).toContain('application/x-ndjson');
    const lines = exported.text.trim().split('\n');
    expect(lines.length).toBe(page.total);
    for (const line of lines) c.checkComponent('AuditEntry', JSON.parse(line));
    expect(exported.text).not.toContain(SECRET_1);
    c.check(AUDIT, await admin.get('/api/audit?since=yesterday'));
    c.check(AUDIT, await viewer.get('/api/audit'));

    // A retention run.
    const row = objectOf(c.check(RETENTION, await admin.post('/api/schedules/deploy_run_retention/run', {})));
    expect(row.status).toBe('success');
    expect(c.check(RETENTION, await viewer.post('/api/schedules/deploy_run_retention/run', {})).status).toBe(
      403,
    );

    // Notifications: a test message, the deliveries.
    const outcome = objectOf(c.check(TEST, await admin.post('/api/notifications/hook/test', {})));
    expect(outcome).toMatchObject({ ok: true, status: 200, error: null });
    expect(c.check(TEST, await admin.post('/api/notifications/nope/test', {})).status).toBe(404);
    const deliveries = objectOf(
      c.check(DELIVERIES, await admin.get('/api/notifications/deliveries?limit=10')),
    );
    expect(deliveries.total).toBe(1);
    c.check(DELIVERIES, await admin.get('/api/notifications/deliveries?limit=0'));
    c.check(DELIVERIES, await viewer.get('/api/notifications/deliveries'));

    // A log: range, search, download, refusals.
    const log = `/api/stacks/hist/deploys/${run1}/log`;
    const range = objectOf(c.check('getRunLog', await admin.get(`${log}?fromLine=2&limit=2`)));
    expect((range.lines as unknown[]).length).toBe(2);
    const found = objectOf(c.check('getRunLog', await admin.get(`${log}?q=ALPHA`)));
    expect(found.matches).toBe(1);
    const download = c.check('getRunLog', await admin.get(`${log}?download=true`));
    expect(header(download, 'content-disposition')).toBe(`attachment; filename="hist-run-${run1}.log"`);
    expect(c.check('getRunLog', await admin.get(`${log}?limit=0`)).status).toBe(400);

    // Every route of the session was seen with a success.
    for (const route of [
      COMPOSE,
      VARIABLES,
      IMAGES,
      DIFF,
      GET_SETTINGS,
      PUT_SETTINGS,
      AUDIT,
      RETENTION,
      TEST,
      DELIVERIES,
    ])
      expect(c.seen.has(`${route.method} ${route.url} 200`)).toBe(true);
  }, 120_000);
});
