/**
 * The permission matrix: every endpoint x every user kind x environment (null, 1, 2). The expected
 * status comes from the rules below, written once from the spec's Authentication section and
 * the config's grants (docs/security.md#who-can-do-what) — not from the implementation.
 */

import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  StacksClient as Client,
  composeText,
  createStackDone,
  deploy,
  deployDone,
  describeStacks,
  type Env,
  eventually,
  logPath,
  objectOf,
  openSse,
  q,
  type Reply,
  type StacksClient,
  saveCompose,
  serveStacks,
  ended as sseEnded,
  USER_KINDS,
  USERS,
  type UserJson,
  type UserKind,
  waitJob,
  waitRun,
} from './helpers.js';

// ------------------------------------------------------------------------------------------------
// The rules (spec, Authentication; the config's grants)
// ------------------------------------------------------------------------------------------------

type Action = 'view' | 'edit';

/** Global: any grant on `stacks` gives the action, whatever its environments. */
const hasGlobal = (u: UserJson, a: Action) =>
  u.admin === true || (u.grants ?? []).some((g) => g.resource === 'stacks' && g.actions.includes(a));

/** Scoped to environment E: a grant gives the action with E listed or `"*"`; a grant without a list is global only. */
const hasScoped = (u: UserJson, a: Action, env: number) =>
  u.admin === true ||
  (u.grants ?? []).some(
    (g) =>
      g.resource === 'stacks' &&
      g.actions.includes(a) &&
      g.environments !== undefined &&
      (g.environments === '*' || g.environments.includes(env)),
  );

const hasAccess = (u: UserJson, env: number) =>
  u.admin === true || u.environmentAccess === '*' || (u.environmentAccess ?? []).includes(env);

/** The list rule (also every stack route and, beyond the spec, the job routes): numeric env = scoped + access; null = global. */
const listRule = (u: UserJson, a: Action, env: Env) =>
  env === null ? hasGlobal(u, a) : hasScoped(u, a, env) && hasAccess(u, env);

/** Single-run endpoints: the global check, then scoped to the run's own environment (null: global only). No access check. */
const runRule = (u: UserJson, a: Action, runEnv: Env) =>
  hasGlobal(u, a) && (runEnv === null || hasScoped(u, a, runEnv));

// ------------------------------------------------------------------------------------------------

const ENVS: Env[] = [null, 1, 2];
const key = (env: Env) => (env === null ? 'local' : String(env));

const stacks = serveStacks();
/** Makes stack names unique across the matrix and the token checks. */
let serial = 0;
/** Per environment: the `perm` stack's create run and its job. */
const fixtures: Record<string, { runId: number; jobId: string }> = {};

interface Endpoint {
  name: string;
  action: Action;
  rule: 'list' | 'run';
  ok: number;
  /** Makes the request as `client` for environment `env` (for single-run endpoints: the run's). */
  request(client: StacksClient, env: Env, user: UserKind): Promise<Reply>;
}

/** Waits for a job the request started, so jobs of one stack do not overlap. */
async function settle(reply: Reply): Promise<Reply> {
  if (reply.status === 202) await waitJob(stacks.admin, objectOf(reply).jobId as string);
  return reply;
}

const ENDPOINTS: Endpoint[] = [
  {
    name: 'GET /api/stacks',
    action: 'view',
    rule: 'list',
    ok: 200,
    request: (c, env) => c.get(`/api/stacks${q(env)}`),
  },
  {
    name: 'GET /api/stacks/{name}',
    action: 'view',
    rule: 'list',
    ok: 200,
    request: (c, env) => c.get(`/api/stacks/perm${q(env)}`),
  },
  {
    name: 'GET .../deploys',
    action: 'view',
    rule: 'list',
    ok: 200,
    request: (c, env) => c.get(`/api/stacks/perm/deploys${q(env)}`),
  },
  {
    name: 'GET .../deploys/{runId}',
    action: 'view',
    rule: 'run',
    ok: 200,
    request: (c, env) => c.get(`/api/stacks/perm/deploys/${fixtures[key(env)]?.runId}`),
  },
  {
    name: 'GET .../deploys/{runId}/log',
    action: 'view',
    rule: 'run',
    ok: 200,
    request: (c, env) => c.get(`/api/stacks/perm/deploys/${fixtures[key(env)]?.runId}/log`),
  },
  {
    name: 'GET .../deploys/{runId}/log?follow=true',
    action: 'view',
    rule: 'run',
    ok: 200,
    request: async (c, env) => {
      const stream = await openSse(
        c.port,
        `/api/stacks/perm/deploys/${fixtures[key(env)]?.runId}/log?follow=true`,
        c.token,
      );
      await sseEnded(stream);
      return sseReply(stream.status, stream.text());
    },
  },
  {
    name: 'DELETE .../deploys/{runId}',
    action: 'edit',
    rule: 'run',
    ok: 200,
    request: async (c, env) => {
      const { runId } = await deployDone(stacks.admin, 'perm', env);
      await waitRun(stacks.admin, 'perm', runId as number);
      return c.del(`/api/stacks/perm/deploys/${runId}`);
    },
  },
  {
    name: 'POST /api/stacks',
    action: 'edit',
    rule: 'list',
    ok: 202,
    request: async (c, env, user) =>
      settle(
        await c.post(`/api/stacks${q(env)}`, {
          name: `new-${user}-${key(env)}-${++serial}`,
          compose: composeText({ lines: ['n'] }),
          variables: [],
          secretProvider: null,
          pull: false,
          build: false,
          forceRecreate: false,
        }),
      ),
  },
  {
    name: 'PUT .../variables',
    action: 'edit',
    rule: 'list',
    ok: 200,
    request: (c, env) =>
      c.put(`/api/stacks/perm/variables${q(env)}`, {
        variables: [{ name: 'A', value: 'value-a', secret: false }],
      }),
  },
  {
    name: 'PUT .../compose (restart false)',
    action: 'edit',
    rule: 'list',
    ok: 200,
    request: (c, env) =>
      c.put(`/api/stacks/perm/compose${q(env)}`, { content: composeText({ lines: ['p'] }), restart: false }),
  },
  {
    name: 'PUT .../compose (restart true)',
    action: 'edit',
    rule: 'list',
    ok: 202,
    request: async (c, env) =>
      settle(
        await c.put(`/api/stacks/perm/compose${q(env)}`, {
          content: composeText({ lines: ['p'] }),
          restart: true,
        }),
      ),
  },
  {
    name: 'POST .../deploy',
    action: 'edit',
    rule: 'list',
    ok: 202,
    request: async (c, env) => settle(await c.post(`/api/stacks/perm/deploy${q(env)}`, {})),
  },
  ...(['start', 'stop', 'restart', 'down'] as const).map(
    (op): Endpoint => ({
      name: `POST .../${op}`,
      action: 'edit',
      rule: 'list',
      ok: 202,
      request: async (c, env) => settle(await c.post(`/api/stacks/perm/${op}${q(env)}`, {})),
    }),
  ),
  {
    name: 'DELETE /api/stacks/{name}',
    action: 'edit',
    rule: 'list',
    ok: 200,
    request: async (c, env, user) => {
      const name = `gone-${user}-${key(env)}-${++serial}`;
      await createStackDone(stacks.admin, name, env, { compose: composeText({ lines: ['g'] }) });
      return c.del(`/api/stacks/${name}${q(env)}`);
    },
  },
  {
    name: 'GET /api/jobs/{id}',
    action: 'view',
    rule: 'list',
    ok: 200,
    request: (c, env) => c.get(`/api/jobs/${fixtures[key(env)]?.jobId}`),
  },
  {
    name: 'GET /api/jobs/{id}/events',
    action: 'view',
    rule: 'list',
    ok: 200,
    request: async (c, env) => {
      const stream = await openSse(c.port, `/api/jobs/${fixtures[key(env)]?.jobId}/events`, c.token);
      await sseEnded(stream);
      return sseReply(stream.status, stream.text());
    },
  },
];

/** A Reply-shaped view of a streamed answer, for the same checks. */
function sseReply(status: number, text: string): Reply {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  return { status, reason: '', headers: [], body: Buffer.from(text), text, json: undefined, value };
}

/** The 403 body: `{"error": "forbidden: ..."}`. */
function isForbiddenBody(reply: Reply): boolean {
  const v = reply.value as { error?: unknown } | undefined;
  return typeof v?.error === 'string' && v.error.startsWith('forbidden: ');
}

const expected = (endpoint: Endpoint, user: UserKind, env: Env) => {
  const u = USERS[user];
  const allowed =
    endpoint.rule === 'list' ? listRule(u, endpoint.action, env) : runRule(u, endpoint.action, env);
  return allowed ? endpoint.ok : 403;
};

describeStacks('permissions', () => {
  beforeAll(async () => {
    for (const env of ENVS) {
      const created = await createStackDone(stacks.admin, 'perm', env, {
        compose: composeText({ lines: ['p'] }),
      });
      fixtures[key(env)] = { runId: created.runId as number, jobId: created.jobId };
    }
  }, 60_000);

  it('the rules themselves, on the configured users', () => {
    // A guard on the table: if these fail, the rules above were mis-typed, not the server.
    expect(ENVS.map((env) => listRule(USERS.viewer1, 'view', env))).toEqual([true, true, false]);
    expect(ENVS.map((env) => runRule(USERS.viewer1, 'view', env))).toEqual([true, true, false]);
    expect(ENVS.map((env) => listRule(USERS.noaccess, 'edit', env))).toEqual([true, false, false]);
    expect(ENVS.map((env) => runRule(USERS.noaccess, 'edit', env))).toEqual([true, true, true]);
    expect(ENVS.map((env) => listRule(USERS.editor1, 'edit', env))).toEqual([true, true, false]);
    expect(ENVS.map((env) => runRule(USERS.viewer, 'edit', env))).toEqual([false, false, false]);
    expect(ENVS.map((env) => listRule(USERS.nogrant, 'view', env))).toEqual([false, false, false]);
    expect(ENVS.map((env) => runRule(USERS.globalviewer, 'view', env))).toEqual([true, false, false]);
  });

  describe('the matrix', () => {
    for (const endpoint of ENDPOINTS) {
      it(`${endpoint.name} (${endpoint.action}, ${endpoint.rule} rule)`, async () => {
        const wrong: string[] = [];
        for (const user of USER_KINDS) {
          for (const env of ENVS) {
            const want = expected(endpoint, user, env);
            const reply = await endpoint.request(stacks.server.as(user), env, user);
            const forbiddenBodyOk = want !== 403 || isForbiddenBody(reply);
            if (reply.status !== want || !forbiddenBodyOk)
              wrong.push(
                `${user} env=${key(env)}: expected ${want}, got ${reply.status} ${reply.text.slice(0, 200)}`,
              );
          }
        }
        expect(wrong).toEqual([]);
      }, 120_000);
    }
  });

  describe('tokens', () => {
    it('every endpoint answers 401 unauthorized without a token or with a wrong one', async () => {
      const wrong: string[] = [];
      for (const token of [null, 't-wrong', '']) {
        const client = new Client(stacks.server.port, token);
        for (const endpoint of ENDPOINTS) {
          const reply = await endpoint.request(client, 1, 'nogrant');
          if (reply.status !== 401 || JSON.stringify(reply.value) !== '{"error":"unauthorized"}')
            wrong.push(`${endpoint.name} token=${token}: ${reply.status} ${reply.text.slice(0, 200)}`);
        }
      }
      expect(wrong).toEqual([]);
    }, 120_000);

    it('a malformed Authorization header is 401 too', async () => {
      for (const value of ['t-admin', 'Basic t-admin', 'Bearer', 'Bearer  t-admin x']) {
        const reply = await new Client(stacks.server.port, null).get('/api/stacks', {
          headers: { Authorization: value },
        });
        expect([reply.status, reply.value], value).toEqual([401, { error: 'unauthorized' }]);
      }
    });
  });

  describe('a grant without an environment list (CONTRACT.md: global only)', () => {
    it('reads nothing of environment 1: single run, log, log follow, job poll and job events are 403', async () => {
      const { runId, jobId } = fixtures[key(1)] as { runId: number; jobId: string };
      const client = stacks.server.as('globalviewer');
      const base = `/api/stacks/perm/deploys/${runId}`;
      const answers: Array<[string, number, boolean]> = [];
      const note = async (what: string, reply: Reply) => {
        answers.push([what, reply.status, isForbiddenBody(reply)]);
      };
      await note('list', await client.get(`/api/stacks/perm/deploys${q(1)}`));
      await note('run', await client.get(base));
      await note('log', await client.get(`${base}/log`));
      const follow = await openSse(client.port, `${base}/log?follow=true`, client.token);
      await sseEnded(follow);
      await note('log follow', sseReply(follow.status, follow.text()));
      await note('job poll', await client.get(`/api/jobs/${jobId}`));
      const events = await openSse(client.port, `/api/jobs/${jobId}/events`, client.token);
      await sseEnded(events);
      await note('job events', sseReply(events.status, events.text()));
      expect(answers).toEqual(
        ['list', 'run', 'log', 'log follow', 'job poll', 'job events'].map((what) => [what, 403, true]),
      );
      // The global permission it does give: the local environment's runs.
      const local = fixtures[key(null)] as { runId: number };
      expect((await client.get(`/api/stacks/perm/deploys/${local.runId}`)).status).toBe(200);
      expect((await client.get(`/api/stacks/perm/deploys${q(null)}`)).status).toBe(200);
    });
  });

  describe('the order of the checks', () => {
    it('an integer env that is no environment is 404 Environment not found (admin)', async () => {
      for (const path of [
        '/api/stacks?env=99',
        '/api/stacks/perm?env=99',
        '/api/stacks/perm/deploys?env=99',
      ]) {
        const reply = await stacks.admin.get(path);
        expect([reply.status, reply.value], path).toEqual([404, { error: 'Environment not found' }]);
      }
    });

    it('DELETE of a running run: 404 for the wrong stack and 403 for the unauthorised before 409', async () => {
      await saveCompose(stacks.admin, 'perm', 1, composeText({ lines: ['hold'], sleepMs: 4000 }));
      const { runId, jobId } = await deploy(stacks.admin, 'perm', 1);
      await eventually(
        async () => (existsSync(logPath(stacks.server.dataDir, 1, runId as number)) ? true : undefined),
        'the first line',
      );
      await createStackDone(stacks.admin, 'perm-other', 1, { compose: composeText({ lines: ['o'] }) });
      const path = `/api/stacks/perm/deploys/${runId}`;
      const answers: Array<[string, number, unknown]> = [];
      for (const user of ['viewer', 'viewer1', 'nogrant'] as const) {
        const reply = await stacks.server.as(user).del(path);
        answers.push([user, reply.status, isForbiddenBody(reply)]);
      }
      expect(answers).toEqual([
        ['viewer', 403, true],
        ['viewer1', 403, true],
        ['nogrant', 403, true],
      ]);
      const other = await stacks.admin.del(`/api/stacks/perm-other/deploys/${runId}`);
      expect([other.status, other.value]).toEqual([404, { error: 'Run not found' }]);
      for (const user of ['editor1', 'noaccess', 'admin'] as const) {
        const reply = await stacks.server.as(user).del(path);
        expect([reply.status, reply.value], user).toEqual([409, { error: 'Run is still running' }]);
      }
      await waitJob(stacks.admin, jobId);
      await saveCompose(stacks.admin, 'perm', 1, composeText({ lines: ['p'] }));
    }, 60_000);

    it('a run of environment 2 cannot be deleted by an editor scoped to environment 1, whatever env it passes', async () => {
      const { runId } = await deployDone(stacks.admin, 'perm', 2);
      for (const query of ['', '?env=1', '?env=null']) {
        const reply = await stacks.server.as('editor1').del(`/api/stacks/perm/deploys/${runId}${query}`);
        expect(reply.status, query).toBe(403);
      }
      expect((await stacks.admin.get(`/api/stacks/perm/deploys/${runId}`)).status).toBe(200);
    });
  });
});
