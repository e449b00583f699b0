/**
 * A scripted session against the real CLI (docs/stacks.md#the-api-document): create, deploy, list, read, log, delete, settings,
 * executions and a git stack, and the failures a client meets on the way (400, 401, 403, 404, 409, 422,
 * a failed job's 500). Every answer is checked against the schema its route documents in the served
 * OpenAPI document, for its status and media type; every event of the event streams against the
 * component its route names. The web page's session (sign-in, who, sign-out) and change feed too.
 * And the docs page is served with its own assets, nothing from elsewhere.
 */
import { beforeAll, expect, it } from 'vitest';
import { type StacksRouteName, stacksRoutes } from '../../../src/http/stacks/api/routes.js';
import { signatureOf } from '../../../src/stacks/git/webhook.js';
import { tempDir } from '../../cli/helpers.js';
import { makeRepo } from '../../stacks/git-repo.js';
import { header } from '../editor/helpers.js';
import {
  ackOf,
  composeText,
  dataOf,
  describeStacks,
  ended,
  eventually,
  objectOf,
  openSse,
  q,
  StacksClient,
  serveStacks,
} from './helpers.js';
import { AnswerChecker, type Json, validateDocument } from './openapi-helpers.js';

const SECRET = 'hook-secret-value';

describeStacks('a scripted session, every answer as the OpenAPI document says', () => {
  const stacks = serveStacks();
  let anonymous: StacksClient;
  let doc: Json;
  let c: AnswerChecker;

  beforeAll(async () => {
    anonymous = new StacksClient(stacks.server.port, null);
    const served = await anonymous.get('/api/openapi.json');
    expect(served.status).toBe(200);
    doc = objectOf(served);
    c = await AnswerChecker.of(doc);
    c.check('openApiDocument', served);
    // The store takes writes (test/http/stacks/store-failure.test.ts checks the 503 on a full disk).
    c.check('health', await anonymous.get('/api/health'));
  }, 60_000);

  /** Polls a job until done, checking every poll. */
  const jobDone = async (jobId: string) => {
    for (;;) {
      const poll = objectOf(c.check('getJob', await stacks.admin.get(`/api/jobs/${jobId}`)));
      if (poll.status === 'done') return poll;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it('serves a valid document without a token', async () => {
    await expect(validateDocument(doc)).resolves.toBeDefined();
    expect(doc.openapi).toBe('3.1.0');
  });

  it('stacks: create, poll, stream, deploy (a success and a failure), save, read, list, operate', async () => {
    const variables = [{ name: 'DB_PASSWORD', value: 's3cret-value', secret: true }];
    const created = c.check(
      'createStack',
      await stacks.admin.post(`/api/stacks${q(null)}`, {
        name: 'web',
        compose: composeText({ lines: ['created web', 'password s3cret-value'] }),
        variables,
      }),
    );
    const ack = ackOf(created);
    const job = await jobDone(ack.jobId);
    expect(job.result).toMatchObject({ success: true });

    const events = await openSse(stacks.server.port, `/api/jobs/${ack.jobId}/events`, 't-admin');
    await ended(events);
    expect([events.status, events.contentType]).toEqual([200, 'text/event-stream; charset=utf-8']);
    expect(events.events.length).toBeGreaterThan(1);
    for (const message of dataOf(events)) c.checkComponent('JobMessage', message);
    c.seen.add('getJobEvents 200');
    // The job has ended: a cancel is 409; a viewer's is 403.
    c.check('cancelJob', await stacks.admin.post(`/api/jobs/${ack.jobId}/cancel`)); // 409
    c.check('cancelJob', await stacks.server.as('viewer').post(`/api/jobs/${ack.jobId}/cancel`)); // 403

    c.check(
      'deployStack',
      await stacks.admin.postJson(`/api/stacks/web/deploy${q(null)}`, { forceRecreate: true }),
    );
    c.check(
      'saveCompose',
      await stacks.admin.put(`/api/stacks/web/compose${q(null)}`, {
        content: composeText({ lines: ['about to fail'], exit: 3 }),
      }),
    );
    const failed = c.check('deployStack', await stacks.admin.postJson(`/api/stacks/web/deploy${q(null)}`));
    expect([failed.status, objectOf(failed).success]).toEqual([500, false]);
    const redeploy = c.check(
      'saveCompose',
      await stacks.admin.put(`/api/stacks/web/compose${q(null)}`, {
        content: composeText({ lines: ['redeployed web'] }),
        restart: true,
      }),
    );
    await jobDone(ackOf(redeploy).jobId);
    c.check(
      'saveCompose',
      await stacks.admin.put(
        `/api/stacks/web/compose${q(null)}`,
        { content: composeText({ lines: ['again'] }), restart: true },
        { headers: { Accept: 'application/json' } },
      ),
    );

    const list = c.check('listStacks', await stacks.admin.get(`/api/stacks${q(null)}`));
    expect(JSON.parse(list.text)).toMatchObject([
      {
        name: 'web',
        environmentId: null,
        secretProvider: null,
        variables: [{ name: 'DB_PASSWORD', secret: true }],
      },
    ]);
    c.check('getStack', await stacks.admin.get(`/api/stacks/web${q(null)}`));
    c.check(
      'setVariables',
      await stacks.admin.put(`/api/stacks/web/variables${q(null)}`, {
        variables: [...variables, { name: 'MODE', value: 'production', secret: false }],
      }),
    );
    for (const operation of ['start', 'stop', 'restart', 'down'] as const) {
      const route = `${operation}Stack` as const;
      const started = c.check(route, await stacks.admin.post(`/api/stacks/web/${operation}${q(null)}`));
      await jobDone(ackOf(started).jobId);
      c.check(route, await stacks.admin.postJson(`/api/stacks/web/${operation}${q(null)}`));
    }
  });

  it('runs: list, read, log, follow the log, delete', async () => {
    const list = c.check('listRuns', await stacks.admin.get(`/api/stacks/web/deploys${q(null)}`));
    const runs = JSON.parse(list.text) as Json[];
    expect(runs.map((r) => r.status)).toEqual(['success', 'success', 'failed', 'success', 'success']);
    const id = runs.at(-1)?.id as number;
    c.check('getRun', await stacks.admin.get(`/api/stacks/web/deploys/${id}`));
    const log = c.check('getRunLog', await stacks.admin.get(`/api/stacks/web/deploys/${id}/log`));
    expect(log.text).toBe('created web\npassword ***\n');
    const follow = await openSse(
      stacks.server.port,
      `/api/stacks/web/deploys/${id}/log?follow=true`,
      't-admin',
    );
    await ended(follow);
    expect(follow.contentType).toBe('text/event-stream; charset=utf-8');
    const followed = dataOf(follow);
    for (const event of followed) c.checkComponent('LogFollowEvent', event);
    expect(followed.at(-1)).toEqual({ type: 'end', status: 'success' });
    c.seen.add('getRunLog 200 follow');
    c.check('deleteRun', await stacks.admin.del(`/api/stacks/web/deploys/${id}`));
    c.check('deleteRun', await stacks.admin.del(`/api/stacks/web/deploys/${id}`)); // 404 Run not found
    c.check('getRunLog', await stacks.admin.get(`/api/stacks/web/deploys/${id}/log`)); // 404
    c.check('getRun', await stacks.admin.get('/api/stacks/web/deploys/0')); // 400 run id
  });

  it('settings, schedules and executions', async () => {
    c.check('getSettings', await stacks.admin.get('/api/settings/general'));
    c.check(
      'changeSettings',
      await stacks.admin.post('/api/settings/general', { deployLogReconcileCron: '30 2 * * *' }),
    );
    c.check(
      'changeSettings',
      await stacks.admin.post('/api/settings/general', { deployLogReconcileCron: '61 * * * *' }),
    );
    c.check('changeSettings', await stacks.server.as('viewer').post('/api/settings/general', {}));
    const executed = c.check(
      'runSchedule',
      await stacks.admin.post('/api/schedules/deploy_log_reconcile/run'),
    );
    expect(objectOf(executed)).toMatchObject({ scheduleType: 'deploy_log_reconcile', status: 'success' });
    c.check('runSchedule', await stacks.admin.post('/api/schedules/nightly/run')); // 404
    c.check('toggleSchedule', await stacks.admin.post('/api/schedules/deploy_log_reconcile/0/toggle')); // 400
    c.check('toggleSchedule', await stacks.admin.post('/api/schedules/nightly/0/toggle')); // 404
    const page = c.check('listExecutions', await stacks.admin.get('/api/schedules/executions?limit=3'));
    expect(objectOf(page).total).toBe(5);
    c.check('listExecutions', await stacks.admin.get('/api/schedules/executions?limit=0')); // 400
  });

  it('a git stack: create, read, list, change, deploy, webhook', async () => {
    const root = await tempDir();
    const repo = await makeRepo(root, { 'compose.yaml': composeText({ lines: ['from git'] }) });
    const body = { name: 'site', repository: repo.bare, webhookSecret: SECRET };
    c.check('createGitStack', await stacks.admin.post(`/api/git-stacks${q(null)}`, body)); // 201
    c.check('createGitStack', await stacks.admin.post(`/api/git-stacks${q(null)}`, body)); // 409
    c.check(
      'createGitStack',
      await stacks.admin.post(`/api/git-stacks${q(null)}`, { ...body, name: 'nobranch', branch: 'absent' }),
    ); // 422
    c.check(
      'createGitStack',
      await stacks.admin.post(`/api/git-stacks${q(null)}`, { ...body, name: 'x', colour: 1 }),
    );
    c.check('listGitStacks', await stacks.admin.get(`/api/git-stacks${q(null)}`));
    c.check('getGitStack', await stacks.admin.get(`/api/git-stacks/site${q(null)}`));
    c.check('getGitStack', await stacks.admin.get(`/api/git-stacks/nowhere${q(null)}`)); // 404
    c.check(
      'configureGitStack',
      await stacks.admin.put(`/api/git-stacks/site${q(null)}`, { autoDeployCron: null }),
    );
    c.check('deployGitStack', await stacks.admin.postJson(`/api/git-stacks/site/deploy${q(null)}`));
    const streamed = c.check(
      'deployGitStack',
      await stacks.admin.post(`/api/git-stacks/site/deploy${q(null)}`, {}),
    );
    await jobDone(ackOf(streamed).jobId);
    const ping = '{"zen": "Keep it logically awesome."}';
    const deliver = (payload: string, signature: string, event: string) =>
      anonymous.call('POST', `/api/git-stacks/site/webhook${q(null)}`, {
        raw: payload,
        headers: {
          'Content-Type': 'application/json',
          'X-Hub-Signature-256': signature,
          'X-GitHub-Event': event,
          'X-GitHub-Delivery': `delivery-${event}`,
        },
      });
    c.check('gitStackWebhook', await deliver(ping, signatureOf(SECRET, Buffer.from(ping)), 'ping')); // ignored
    c.check('gitStackWebhook', await deliver(ping, `sha256=${'0'.repeat(64)}`, 'ping')); // 401
    const push = '{"ref": "refs/heads/main"}';
    const pushed = c.check(
      'gitStackWebhook',
      await deliver(push, signatureOf(SECRET, Buffer.from(push)), 'push'),
    );
    await jobDone(ackOf(pushed).jobId);
  });

  it('the web page session and its change feed: sign in, who, changes, sign out', async () => {
    c.check('signIn', await anonymous.post('/api/session', { token: 'not-a-token' })); // 401
    c.check('signIn', await anonymous.post('/api/session', { token: 5 })); // 400
    const signedIn = c.check('signIn', await anonymous.post('/api/session', { token: 't-admin' }));
    const cookie = /^chronicle_session=[^;]*/.exec(header(signedIn, 'set-cookie') ?? '')?.[0] ?? '';
    expect(cookie).not.toBe('');
    const withCookie = { headers: { Cookie: cookie } };
    expect(objectOf(c.check('getSession', await anonymous.get('/api/session', withCookie))).name).toBe(
      'admin',
    );
    c.check('getSession', await anonymous.get('/api/session')); // 401
    c.check('changeEvents', await anonymous.get('/api/events')); // 401

    const feed = await openSse(stacks.server.port, '/api/events', null, { headers: { Cookie: cookie } });
    expect([feed.status, feed.contentType]).toEqual([200, 'text/event-stream; charset=utf-8']);
    c.seen.add('changeEvents 200');
    // Subscribed once its opening comment arrived; then a stack created with the cookie is a change.
    await eventually(async () => (feed.text().startsWith(': changes') ? true : undefined), 'the feed');
    const created = await anonymous.post(
      `/api/stacks${q(null)}`,
      { name: 'feed', compose: composeText() },
      withCookie,
    );
    await jobDone(ackOf(c.check('createStack', created)).jobId);
    await eventually(
      async () => (dataOf(feed).some((change) => change.kind === 'run') ? true : undefined),
      "the run's changes",
    );
    feed.close();
    for (const change of dataOf(feed)) c.checkComponent('Change', change);
    c.check('deleteStack', await stacks.admin.del(`/api/stacks/feed${q(null)}`));

    const elsewhere = { headers: { Cookie: cookie, Origin: 'http://elsewhere.example' } };
    c.check('signOut', await anonymous.del('/api/session', elsewhere)); // 401
    c.check('signOut', await anonymous.del('/api/session', withCookie));
    c.check('getSession', await anonymous.get('/api/session', withCookie)); // 401: the session is gone
  });

  it('the failures a client meets: 400, 401, 403, 404, 409 with the error body', async () => {
    c.check('listStacks', await anonymous.get('/api/stacks')); // 401
    c.check('listStacks', await stacks.admin.get('/api/stacks?env=abc')); // 400
    c.check('listStacks', await stacks.admin.get('/api/stacks?env=99')); // 404
    // A parameter given twice is read once, its first value (as the routes always did).
    expect(c.check('listStacks', await stacks.admin.get('/api/stacks?env=null&env=abc')).status).toBe(200);
    expect(c.check('listStacks', await stacks.admin.get('/api/stacks?env=abc&env=null')).status).toBe(400);
    c.check('getStack', await stacks.admin.get('/api/stacks/Bad%20Name')); // 400
    c.check('getStack', await stacks.admin.get('/api/stacks/absent')); // 404
    c.check('deleteStack', await stacks.server.as('viewer').del('/api/stacks/web')); // 403
    c.check('createStack', await stacks.admin.post('/api/stacks', { name: 'web', compose: composeText() })); // 409
    c.check('createStack', await stacks.admin.post('/api/stacks', { name: 'other', compose: 5 })); // 400
    c.check('deployStack', await stacks.admin.post('/api/stacks/web/deploy', { pull: 'yes' })); // 400
    c.check('getJob', await stacks.admin.get('/api/jobs/no-such-job')); // 404
    c.check('getJobEvents', await stacks.admin.get('/api/jobs/no-such-job/events')); // 404
    c.check('cancelJob', await stacks.admin.post('/api/jobs/no-such-job/cancel')); // 404
    c.check('listRuns', await stacks.server.as('viewer1').get(`/api/stacks/web/deploys${q(null)}`)); // 403
    c.check('deleteStack', await stacks.admin.del(`/api/stacks/web${q(null)}`)); // 200
  });

  it('went through every route of the document', () => {
    const reached = new Set([...c.seen].map((key) => key.split(' ')[0] as StacksRouteName));
    expect(Object.keys(stacksRoutes).filter((route) => !reached.has(route as StacksRouteName))).toEqual([]);
    for (const status of [200, 201, 202, 400, 401, 403, 404, 409, 422, 500])
      expect(
        [...c.seen].some((key) => key.endsWith(` ${status}`)),
        String(status),
      ).toBe(true);
  });

  it('serves the docs page and every asset it loads from this server, without a token', async () => {
    const page = await anonymous.get('/api/docs');
    expect(page.status).toBe(200);
    expect(header(page, 'content-type')).toMatch(/^text\/html/);
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(assets.length).toBeGreaterThanOrEqual(4);
    for (const asset of assets) {
      // Relative to the page: nothing from a CDN or another host.
      expect(asset, asset).not.toMatch(/^(?:[a-z]+:)?\/\//i);
      const url = new URL(asset, `http://127.0.0.1:${stacks.server.port}/api/docs/`);
      const reply = await anonymous.get(url.pathname);
      expect(reply.status, url.pathname).toBe(200);
      expect(reply.body.length, url.pathname).toBeGreaterThan(0);
    }
    const initializer = await anonymous.get('/api/docs/static/swagger-initializer.js');
    expect(initializer.text).toContain('./json');
    const json = await anonymous.get('/api/docs/json');
    expect(JSON.parse(json.text)).toEqual(doc);
    const bundle = await anonymous.get('/api/docs/static/swagger-ui-bundle.js');
    expect(header(bundle, 'content-security-policy')).toContain("default-src 'self'");
  });
});
