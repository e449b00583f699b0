/**
 * The audit trail (docs/stacks.md#audit-trail) over the real CLI: a scripted session by two users, then who did
 * what and when, filtered, paged, newest first, admins only, as NDJSON, with no secret value.
 */
import { beforeAll, expect, it } from 'vitest';
import {
  composeText,
  createStackDone,
  deployDone,
  describeStacks,
  expectStatus,
  type Json,
  objectOf,
  q,
  saveCompose,
  serveStacks,
  waitRun,
} from './helpers.js';

const stacks = serveStacks();
const SECRET = 'audit-secret-value-4471';
let runs: number[] = [];

const audit = async (query = '') => {
  const reply = await stacks.admin.get(`/api/audit${query}`);
  expectStatus(reply, 200, `GET /api/audit${query}`);
  return objectOf(reply) as { entries: Json[]; total: number };
};

describeStacks('audit', () => {
  beforeAll(async () => {
    const editor = stacks.server.as('editor1');
    // The session: admin makes a local stack and changes it; editor1 makes and deploys one in env 1.
    const a = await createStackDone(stacks.admin, 'aud', null, {
      compose: composeText({ lines: ['a'] }),
      variables: [{ name: 'PASSWORD', value: SECRET, secret: true }],
    });
    expectStatus(
      await stacks.admin.put(`/api/stacks/aud/variables${q(null)}`, {
        variables: [
          { name: 'PASSWORD', value: `${SECRET}-2`, secret: true },
          { name: 'PORT', value: '8080', secret: false },
        ],
      }),
      200,
    );
    await saveCompose(stacks.admin, 'aud', null, composeText({ lines: ['b'] }));
    const b = await deployDone(stacks.admin, 'aud', null, { pull: true });
    await waitRun(stacks.admin, 'aud', b.runId as number);
    expectStatus(await stacks.admin.del(`/api/stacks/aud/deploys/${a.runId}`), 200);
    expectStatus(await stacks.admin.post('/api/settings/general', { deployLogReconcileEnabled: false }), 200);
    const c = await createStackDone(editor, 'edit1', 1);
    await waitRun(editor, 'edit1', c.runId as number);
    runs = [a.runId as number, b.runId as number, c.runId as number];
  }, 60_000);

  it('lists who did what, newest first, without a secret value', async () => {
    const { entries, total } = await audit('?limit=500');
    expect(total).toBe(entries.length);
    const acts = entries
      .filter((e) => e.type !== 'deploy.finished')
      .map((e) => `${e.user} ${e.type} ${e.stack ?? '-'}`)
      .reverse();
    expect(acts).toEqual([
      'admin stack.created aud',
      'admin deploy.started aud',
      'admin stack.variables_changed aud',
      'admin stack.compose_saved aud',
      'admin deploy.started aud',
      'admin run.deleted aud',
      'admin settings.changed -',
      'editor1 stack.created edit1',
      'editor1 deploy.started edit1',
    ]);
    const ids = entries.map((e) => e.id as number);
    expect(ids).toEqual([...ids].sort((x, y) => y - x));
    const vars = entries.find((e) => e.type === 'stack.variables_changed') as Json;
    expect(vars.details).toEqual({ variables: ['PASSWORD', 'PORT'], added: ['PORT'], removed: [] });
    const deploy = entries.find(
      (e) => e.type === 'deploy.started' && (e.details as Json).runId === runs[1],
    ) as Json;
    expect(deploy.details).toMatchObject({
      trigger: 'manual',
      options: { pull: true, build: false, forceRecreate: false },
    });
    expect(entries.find((e) => e.type === 'run.deleted')?.details).toEqual({ runId: runs[0] });
    expect(entries.find((e) => e.type === 'settings.changed')?.details).toEqual({
      deploy_log_reconcile_enabled: false,
    });
    const raw = (await stacks.admin.get('/api/audit?limit=500')).text;
    expect(raw).not.toContain(SECRET);
  });

  it('filters by user, stack, environment, type (or prefix) and time, and pages', async () => {
    expect((await audit('?user=editor1')).entries.every((e) => e.user === 'editor1')).toBe(true);
    expect((await audit('?user=editor1')).total).toBe(2);
    expect((await audit('?stack=edit1&type=deploy.')).entries.map((e) => e.type)).toEqual([
      'deploy.finished',
      'deploy.started',
    ]);
    expect((await audit('?env=1')).entries.every((e) => e.environmentId === 1)).toBe(true);
    expect((await audit('?env=null&type=stack.created')).entries.map((e) => e.stack)).toEqual(['aud']);
    expect((await audit('?type=run.deleted,settings.changed')).total).toBe(2);
    expect((await audit('?since=2999-01-01T00:00:00Z')).total).toBe(0);
    expect((await audit('?until=2000-01-01')).total).toBe(0);
    const all = await audit('?limit=500');
    const page = await audit('?limit=2&offset=1');
    expect(page.total).toBe(all.total);
    expect(page.entries).toEqual(all.entries.slice(1, 3));
  });

  it('streams NDJSON for export', async () => {
    const reply = await stacks.admin.get('/api/audit?format=ndjson&stack=aud');
    expectStatus(reply, 200);
    expect(reply.headers.find(([n]) => n === 'content-type')?.[1]).toContain('application/x-ndjson');
    const lines = reply.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Json);
    expect(lines).toEqual((await audit('?stack=aud&limit=500')).entries);
  });

  it('is for admins only, and refuses bad filters with 400', async () => {
    expectStatus(await stacks.server.as('viewer').get('/api/audit'), 403);
    expectStatus(await stacks.server.as('editor1').get('/api/audit'), 403);
    for (const bad of ['env=x', 'since=never', 'limit=0', 'limit=501', 'offset=-1', 'format=csv'])
      expectStatus(await stacks.admin.get(`/api/audit?${bad}`), 400, bad);
  });
});
