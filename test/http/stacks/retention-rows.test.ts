/**
 * The deploy-run retention's execution rows name run ids: a caller sees only those of environments it
 * may view, in `GET /api/schedules/executions` and in the answer of the run it asked for, also after a
 * restart (the row's environments come from its events). Admins see every id.
 */
import { expect, it } from 'vitest';
import {
  composeText,
  createStackDone,
  deployDone,
  describeStacks,
  type Env,
  expectStatus,
  type Json,
  objectOf,
  q,
  type StacksClient,
  saveCompose,
  serveStacks,
} from './helpers.js';

/** A stack with one good run then two failed ones, keeping one run: the first failed one goes. */
async function stackToPrune(admin: StacksClient, name: string, env: Env) {
  const good = await createStackDone(admin, name, env, { compose: composeText({ lines: ['ok'] }) });
  await saveCompose(admin, name, env, composeText({ lines: ['bad'], exit: 1 }));
  const first = await deployDone(admin, name, env);
  await deployDone(admin, name, env);
  expectStatus(await admin.put(`/api/stacks/${name}/history-settings${q(env)}`, { keepRuns: 1 }), 200);
  return { good: good.runId as number, deleted: first.runId as number };
}

/** The row's run ids in ascending order (the retention lists them in its own). */
const sorted = (details: Json) => ({
  deletedRuns: [...(details.deletedRuns as number[])].sort((a, b) => a - b),
  keptLastGood: [...(details.keptLastGood as number[])].sort((a, b) => a - b),
});

const retentionRow = async (client: StacksClient, id: unknown) => {
  const reply = await client.get('/api/schedules/executions?limit=500');
  expectStatus(reply, 200);
  const rows = objectOf(reply).executions as Json[];
  return rows.find((r) => r.scheduleType === 'deploy_run_retention' && r.id === id)?.details as Json;
};

describeStacks('retention rows and the environments of their runs', () => {
  const stacks = serveStacks();

  it('a caller sees the run ids of the environments it may view only; admins all of them', async () => {
    const one = await stackToPrune(stacks.admin, 'prune-one', 1);
    const two = await stackToPrune(stacks.admin, 'prune-two', 2);
    const local = await stackToPrune(stacks.admin, 'prune-local', null);

    // editor1 may run the retention (edit in a grant) but views environment 1 only (and, by its grant's
    // global permission, the local environment).
    const ran = await stacks.server.as('editor1').post('/api/schedules/deploy_run_retention/run', {});
    expectStatus(ran, 200, 'retention run');
    const row = objectOf(ran);
    expect(row).toMatchObject({ status: 'success' });
    const editorView = {
      deletedRuns: [one.deleted, local.deleted].sort((a, b) => a - b),
      keptLastGood: [one.good, local.good].sort((a, b) => a - b),
    };
    expect(sorted(row.details as Json)).toEqual(editorView);
    expect(row.details).toMatchObject({ failed: 0, failures: [] });

    const all = {
      deletedRuns: [one.deleted, two.deleted, local.deleted].sort((a, b) => a - b),
      keptLastGood: [one.good, two.good, local.good].sort((a, b) => a - b),
    };
    const check = async () => {
      expect(sorted(await retentionRow(stacks.admin, row.id))).toEqual(all);
      expect(sorted(await retentionRow(stacks.server.as('viewer1'), row.id))).toEqual(editorView);
      // The global viewer sees the local environment's runs only.
      expect(await retentionRow(stacks.server.as('globalviewer'), row.id)).toMatchObject({
        deletedRuns: [local.deleted],
        keptLastGood: [local.good],
      });
      // No grant at all: the row is listed, without a run id.
      expect(await retentionRow(stacks.server.as('nogrant'), row.id)).toMatchObject({
        deletedRuns: [],
        keptLastGood: [],
      });
    };
    await check();
    // Rebuilt from the events after a restart: the same.
    await stacks.restart();
    await check();
  }, 120_000);
});
