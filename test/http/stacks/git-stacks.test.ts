/**
 * Git stacks through the real `chronicle stacks` CLI, against bare repositories this test makes and
 * pushes to with real git: create, create-and-deploy, deploy of a new commit, settings with redeploy,
 * the signed webhook (valid, missing, wrong, replayed, other branch, restart), the per-stack cron that
 * deploys only a changed commit, credentials kept out of every answer, event, log and message, and bad
 * input. The fake compose prints the `x-fake` lines of the compose file it is given.
 */
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { signatureOf } from '../../../src/stacks/git/webhook.js';
import type { RecordedEvent } from '../../../src/store/types.js';
import { tempDir, withDataStore } from '../../cli/helpers.js';
import { makeRepo, serveGitHttp, type TestRepo } from '../../stacks/git-repo.js';
import {
  argvCalls,
  arrayOf,
  StacksClient as Client,
  composeText,
  describeStacks,
  eventually,
  expectStatus,
  type JobJson,
  type Json,
  logLines,
  objectOf,
  q,
  type Reply,
  type StacksClient,
  type StacksServer,
  serveStacks,
  sleep,
  stackDir,
  startStacks,
  waitJob,
  waitRun,
} from './helpers.js';

const SECRET = 'hook-secret-0123';

const composeOf = (lines: string[]) => composeText({ lines });

async function allEvents(dataDir: string): Promise<RecordedEvent[]> {
  return withDataStore(dataDir, async (store) => {
    const events: RecordedEvent[] = [];
    for await (const event of store.readAll()) events.push(event);
    return events;
  });
}

const runsOf = async (client: StacksClient, name: string, env: number | null = null) => {
  const reply = await client.get(`/api/stacks/${name}/deploys${q(env)}`);
  expectStatus(reply, 200, 'list runs');
  return arrayOf(reply);
};

const detailsOf = (run: Json) => run.details as Json;
const statusesOf = (job: JobJson) =>
  job.messages.filter((m) => typeof m.status === 'string').map((m) => m.status as string);
const linesOf = (job: JobJson) => job.messages.filter((m) => m.type === 'line');

/** POSTs a webhook delivery without a bearer token. */
function deliver(
  server: StacksServer,
  name: string,
  body: string,
  headers: Record<string, string>,
  env: number | null = null,
): Promise<Reply> {
  const client = new Client(server.port, null);
  return client.call('POST', `/api/git-stacks/${name}/webhook${q(env)}`, {
    raw: body,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

const signed = (body: string, secret = SECRET) => signatureOf(secret, Buffer.from(body));

describeStacks('git stacks', () => {
  let root: string;
  let repo: TestRepo & { first: string };

  const stacks = serveStacks(async () => {
    root = await tempDir();
    repo = await makeRepo(root, {
      'deploy/compose.yaml': composeOf(['deployed v1', 'second line v1']),
      'README.md': 'a repository\n',
    });
    return {};
  }, 120_000);

  const create = (body: Json, env: number | null = null, client = stacks.admin) =>
    client.post(`/api/git-stacks${q(env)}`, body);

  it('creates a git stack without deploying: the compose file of the branch head, git.json, no run', async () => {
    const reply = await create({
      name: 'plain-git',
      repository: repo.bare,
      branch: 'main',
      composePath: 'deploy/compose.yaml',
      webhookSecret: SECRET,
    });
    expectStatus(reply, 201, 'create');
    const body = objectOf(reply);
    expect(body).toMatchObject({
      name: 'plain-git',
      environmentId: null,
      repository: repo.bare,
      branch: 'main',
      composePath: 'deploy/compose.yaml',
      autoDeployCron: null,
      webhookSecretSet: true,
      lastCommit: null,
      commit: repo.first,
    });
    expect(JSON.stringify(body)).not.toContain(SECRET);
    const dir = stackDir(stacks.server.dataDir, null, 'plain-git');
    expect(await readFile(join(dir, 'compose.yaml'), 'utf8')).toBe(
      composeOf(['deployed v1', 'second line v1']),
    );
    const gitJson = JSON.parse(await readFile(join(dir, 'git.json'), 'utf8')) as Json;
    expect(gitJson).toMatchObject({ repository: repo.bare, branch: 'main', webhookSecret: SECRET });
    expect((await stat(join(dir, 'git.json'))).mode & 0o777).toBe(0o600);
    expect(await runsOf(stacks.admin, 'plain-git')).toEqual([]);
    const read = objectOf(await stacks.admin.get(`/api/git-stacks/plain-git${q(null)}`));
    expect(read.webhookSecretSet).toBe(true);
    expect(JSON.stringify(read)).not.toContain(SECRET);
    const list = arrayOf(await stacks.admin.get(`/api/git-stacks${q(null)}`));
    expect(list.map((s) => s.name)).toContain('plain-git');
  });

  it('creates and deploys: a run with the commit, job statuses but no lines, the lines in the log', async () => {
    const reply = await create({
      name: 'app',
      repository: repo.bare,
      branch: 'main',
      composePath: './deploy/compose.yaml',
      webhookSecret: SECRET,
      deploy: true,
    });
    expectStatus(reply, 202, 'create and deploy');
    const { jobId, runId } = objectOf(reply) as { jobId: string; runId: number };
    const job = await waitJob(stacks.admin, jobId);
    expect(job.result).toMatchObject({ success: true, output: [] });
    expect(linesOf(job)).toEqual([]);
    const statuses = statusesOf(job);
    expect(statuses[0]).toBe(`Fetched main from ${repo.bare}`);
    expect(statuses).toContain(`Checked out ${repo.first}`);
    expect(statuses.at(-1)).toBe('Running compose up');
    const run = await waitRun(stacks.admin, 'app', runId);
    expect(run).toMatchObject({ status: 'success', trigger: 'manual', entityName: 'app' });
    expect(detailsOf(run)).toMatchObject({
      source: 'git',
      repository: repo.bare,
      branch: 'main',
      composePath: 'deploy/compose.yaml',
      commit: repo.first,
    });
    expect(await logLines(stacks.server.dataDir, null, runId)).toEqual(['deployed v1', 'second line v1']);
    const view = objectOf(await stacks.admin.get(`/api/git-stacks/app${q(null)}`));
    expect(view).toMatchObject({ lastCommit: repo.first, lastRunId: runId });
  });

  it('deploys a new commit: compose.yaml follows it and the run records it', async () => {
    const second = await repo.commit({ 'deploy/compose.yaml': composeOf(['deployed v2']) });
    const previous = (await runsOf(stacks.admin, 'app'))[0] as Json;
    const reply = await stacks.admin.post(`/api/git-stacks/app/deploy${q(null)}`, {});
    expectStatus(reply, 202, 'deploy');
    const { jobId, runId } = objectOf(reply) as { jobId: string; runId: number };
    const job = await waitJob(stacks.admin, jobId);
    expect(linesOf(job)).toEqual([]);
    // The fetch runs in the job: its stages are statuses.
    expect(statusesOf(job)).toEqual([
      `Fetching main from ${repo.bare}`,
      `Checked out ${second}`,
      'Updated compose.yaml from deploy/compose.yaml',
      'Running compose up',
    ]);
    const run = await waitRun(stacks.admin, 'app', runId);
    expect(detailsOf(run)).toMatchObject({
      source: 'git',
      repository: repo.bare,
      branch: 'main',
      composePath: 'deploy/compose.yaml',
      commit: second,
    });
    // The hash is of the compose file the run deployed (written in the job), not of the one before it.
    expect(detailsOf(run).composeHash).not.toBe(detailsOf(previous).composeHash);
    expect(await logLines(stacks.server.dataDir, null, runId)).toEqual(['deployed v2']);
    expect(await readFile(join(stackDir(stacks.server.dataDir, null, 'app'), 'compose.yaml'), 'utf8')).toBe(
      composeOf(['deployed v2']),
    );
    // The JSON path answers after the job, without compose lines, and says the file is unchanged now.
    const json = await stacks.admin.postJson(`/api/git-stacks/app/deploy${q(null)}`, {});
    expectStatus(json, 200, 'deploy (JSON path)');
    const answer = objectOf(json);
    expect(answer).toMatchObject({ success: true, output: [] });
    const again = await waitRun(stacks.admin, 'app', answer.runId as number);
    expect(detailsOf(again).commit).toBe(second);
    expect(detailsOf(again).composeHash).toBe(detailsOf(run).composeHash);
    const statuses = statusesOf(await waitJob(stacks.admin, answer.jobId as string));
    expect(statuses).toContain('compose.yaml unchanged (deploy/compose.yaml)');
  });

  it('changes settings; with redeploy it records a run; settings that give no compose file change nothing', async () => {
    const third = await repo.commit({ 'other/stack.yml': composeOf(['from the other file']) });
    const saved = await stacks.admin.put(`/api/git-stacks/app${q(null)}`, { composePath: 'other/stack.yml' });
    expectStatus(saved, 200, 'PUT settings');
    expect(objectOf(saved).composePath).toBe('other/stack.yml');
    const before = (await runsOf(stacks.admin, 'app')).length;
    const redeploy = await stacks.admin.put(`/api/git-stacks/app${q(null)}`, { redeploy: true });
    expectStatus(redeploy, 202, 'PUT with redeploy');
    const { jobId, runId } = objectOf(redeploy) as { jobId: string; runId: number };
    await waitJob(stacks.admin, jobId);
    const run = await waitRun(stacks.admin, 'app', runId);
    expect(run.trigger).toBe('manual');
    expect(detailsOf(run)).toMatchObject({ commit: third, composePath: 'other/stack.yml' });
    expect(await logLines(stacks.server.dataDir, null, runId)).toEqual(['from the other file']);
    expect((await runsOf(stacks.admin, 'app')).length).toBe(before + 1);

    // The fetch comes after the answer: settings that give no compose file fail the job and its run,
    // and are not saved; compose.yaml stays as it was.
    const composeFile = join(stackDir(stacks.server.dataDir, null, 'app'), 'compose.yaml');
    const composeBefore = await readFile(composeFile, 'utf8');
    const refused = await stacks.admin.put(`/api/git-stacks/app${q(null)}`, {
      branch: 'no-such-branch',
      redeploy: true,
    });
    expectStatus(refused, 202, 'redeploy to a missing branch');
    const ids = objectOf(refused) as { jobId: string; runId: number };
    const failedJob = await waitJob(stacks.admin, ids.jobId);
    expect(failedJob.result).toMatchObject({ success: false });
    expect(String(failedJob.result?.error)).toContain('Branch no-such-branch not found');
    expect(statusesOf(failedJob)).toEqual([`Fetching no-such-branch from ${repo.bare}`]);
    const failedRun = await waitRun(stacks.admin, 'app', ids.runId);
    expect(failedRun.status).toBe('failed');
    expect(String(failedRun.errorMessage)).toContain('Branch no-such-branch not found');
    expect(detailsOf(failedRun)).toMatchObject({ source: 'git', branch: 'no-such-branch' });
    expect(detailsOf(failedRun).commit).toBeUndefined();
    const view = objectOf(await stacks.admin.get(`/api/git-stacks/app${q(null)}`));
    expect(view).toMatchObject({ branch: 'main', lastCommit: third, lastRunId: ids.runId });
    expect(await readFile(composeFile, 'utf8')).toBe(composeBefore);
    // The JSON path answers once the job has ended, with its failed result.
    const refusedJson = await stacks.admin.put(
      `/api/git-stacks/app${q(null)}`,
      { branch: 'no-such-branch', redeploy: true },
      { headers: { Accept: 'application/json' }, timeoutMs: 120_000 },
    );
    expectStatus(refusedJson, 500, 'redeploy to a missing branch (JSON path)');
    expect(objectOf(refusedJson)).toMatchObject({ success: false, output: [] });
    expect(String(objectOf(refusedJson).error)).toContain('Branch no-such-branch not found');
    expect((await waitRun(stacks.admin, 'app', objectOf(refusedJson).runId as number)).status).toBe('failed');
    expect(objectOf(await stacks.admin.get(`/api/git-stacks/app${q(null)}`)).branch).toBe('main');
    // Exactly one run per deploy.
    expect((await runsOf(stacks.admin, 'app')).length).toBe(before + 3);

    const back = await stacks.admin.put(`/api/git-stacks/app${q(null)}`, {
      composePath: 'deploy/compose.yaml',
    });
    expectStatus(back, 200, 'PUT settings back');
  });

  it('refuses bad input with 400 naming the problem', async () => {
    const good = {
      name: 'bad-input',
      repository: repo.bare,
      branch: 'main',
      composePath: 'deploy/compose.yaml',
    };
    const cases: Array<[Json, string]> = [
      [{ ...good, name: 'Bad Name' }, 'Invalid stack name'],
      [{ ...good, branch: 'a..b' }, 'not a valid branch name'],
      [{ ...good, branch: '-x' }, 'not a valid branch name'],
      [{ ...good, composePath: '../etc/passwd' }, '".."'],
      [{ ...good, composePath: '/etc/passwd' }, 'relative'],
      [{ ...good, autoDeployCron: '61 * * * *' }, 'minute'],
      [{ ...good, autoDeployCron: 'every day' }, 'not a valid cron expression'],
      [{ ...good, webhookSecret: '' }, 'webhookSecret'],
      [{ ...good, webhookSecret: 42 }, 'webhookSecret'],
      [{ ...good, repository: 'ext::sh -c touch% /tmp/x' }, 'repository'],
      [{ ...good, repository: 'relative/path' }, 'repository'],
      [{ ...good, repository: 7 }, 'repository must be a string'],
      [{ ...good, deploy: 'yes' }, 'deploy must be a boolean'],
      [{ ...good, colour: 'blue' }, 'Unknown field "colour"'],
      [{ ...good, variables: [{ name: '1x', value: 'v' }] }, 'variables[0].name'],
      [{ ...good, files: 'deploy/o.yaml' }, 'files must be a list'],
      [{ ...good, files: ['../o.yaml'] }, 'files[0]: must not contain ".."'],
      [{ ...good, files: ['deploy/compose.yaml'] }, 'files[0] is composePath itself'],
      [{ ...good, files: ['a.yaml', './a.yaml'] }, 'files[1]: a.yaml is given twice'],
    ];
    for (const [body, message] of cases) {
      const reply = await create(body);
      expectStatus(reply, 400, JSON.stringify(body));
      expect(String(objectOf(reply).error)).toContain(message);
    }
    const put = await stacks.admin.put(`/api/git-stacks/app${q(null)}`, { autoDeployCron: 'nope' });
    expectStatus(put, 400, 'PUT bad cron');
    expect(existsSync(stackDir(stacks.server.dataDir, null, 'bad-input'))).toBe(false);
  });

  it('answers 422 for a repository without the branch, the file or YAML, and leaves nothing behind', async () => {
    await repo.commit({ 'broken.yaml': 'services: [unclosed\n' });
    const cases: Array<[Json, string]> = [
      [{ repository: join(root, 'missing.git') }, 'Could not fetch main'],
      [{ branch: 'nope' }, 'Branch nope not found'],
      [{ composePath: 'missing.yaml' }, 'Compose file missing.yaml not found'],
      [{ composePath: 'deploy' }, 'is a folder'],
      [{ composePath: 'broken.yaml' }, 'not valid YAML'],
    ];
    for (const [override, message] of cases) {
      const reply = await create({
        name: 'left-nothing',
        repository: repo.bare,
        branch: 'main',
        composePath: 'deploy/compose.yaml',
        deploy: true,
        ...override,
      });
      expectStatus(reply, 422, JSON.stringify(override));
      expect(String(objectOf(reply).error)).toContain(message);
      expect(existsSync(stackDir(stacks.server.dataDir, null, 'left-nothing'))).toBe(false);
      expect(existsSync(join(stacks.server.dataDir, 'git-cache', 'local', 'left-nothing'))).toBe(false);
    }
    expectStatus(await stacks.admin.get(`/api/git-stacks/left-nothing${q(null)}`), 404, 'no git stack');
    expect(await runsOf(stacks.admin, 'left-nothing')).toEqual([]);
  });

  it('runs compose in the checked-out tree; a commit with a link out of the repository is refused (422 on create, nothing left; a failed deploy that leaves the tree)', async () => {
    const linked = await makeRepo(
      root,
      {
        'deploy/compose.yaml': composeOf(['in the tree']),
        'deploy/.env': { link: '../shared.env' },
        'shared.env': 'A=1\n',
      },
      'linked-repo',
    );
    const made = await create({
      name: 'treed',
      repository: linked.bare,
      composePath: 'deploy/compose.yaml',
      deploy: true,
    });
    const ack = objectOf(made) as { jobId: string; runId: number };
    expect((await waitJob(stacks.admin, ack.jobId)).result).toMatchObject({ success: true });
    const tree = join(stackDir(stacks.server.dataDir, null, 'treed'), 'tree');
    const calls = (await argvCalls(stacks.server)).filter((c) => c.cwd.startsWith(tree));
    expect(
      calls.map((c) => [c.cwd, c.argv.slice(c.argv.indexOf('--file'), c.argv.indexOf('--file') + 2)]),
    ).toEqual([[join(tree, 'deploy'), ['--file', join(tree, 'deploy', 'compose.yaml')]]]);
    expect(await readFile(join(tree, 'deploy', '.env'), 'utf8')).toBe('A=1\n');

    // A push that links a file of the host: the deploy fails before compose, the tree stays as it was.
    const bad = await linked.commit({
      'deploy/compose.yaml': composeOf(['never run']),
      'deploy/app.env': { link: '../../../../../../../../etc/passwd' },
    });
    const deployed = await stacks.admin.post(`/api/git-stacks/treed/deploy${q(null)}`, {});
    const again = objectOf(deployed) as { jobId: string; runId: number };
    await waitJob(stacks.admin, again.jobId);
    const failed = await waitRun(stacks.admin, 'treed', again.runId);
    expect(failed).toMatchObject({
      status: 'failed',
      errorMessage: `deploy/app.env in commit ${bad.slice(0, 12)} is a symbolic link that leads outside the repository`,
    });
    expect(existsSync(join(tree, 'deploy', 'app.env'))).toBe(false);
    expect(await readFile(join(tree, 'deploy', 'compose.yaml'), 'utf8')).toBe(composeOf(['in the tree']));
    expect((await argvCalls(stacks.server)).filter((c) => c.cwd.startsWith(tree))).toHaveLength(1);

    // A create from that commit: 422, and nothing is made (no folder, no cache, no event).
    const refused = await create({
      name: 'linked-out',
      repository: linked.bare,
      composePath: 'deploy/compose.yaml',
      deploy: true,
    });
    expectStatus(refused, 422, 'a link out of the repository');
    expect(objectOf(refused).error).toBe(
      `deploy/app.env in commit ${bad.slice(0, 12)} is a symbolic link that leads outside the repository`,
    );
    expect(existsSync(stackDir(stacks.server.dataDir, null, 'linked-out'))).toBe(false);
    expect(existsSync(join(stacks.server.dataDir, 'git-cache', 'local', 'linked-out'))).toBe(false);
    const trail = objectOf(await stacks.admin.get('/api/audit?stack=linked-out'));
    expect(trail).toMatchObject({ entries: [], total: 0 });
  });

  it('answers 409 for a taken name, 404 for a stack that is no git stack, 403 without edit', async () => {
    const taken = await create({ name: 'app', repository: repo.bare, composePath: 'deploy/compose.yaml' });
    expectStatus(taken, 409, 'taken');
    const plain = await stacks.admin.post(`/api/stacks${q(null)}`, {
      name: 'not-git',
      compose: composeOf(['x']),
    });
    expectStatus(plain, 202, 'plain stack');
    await waitJob(stacks.admin, objectOf(plain).jobId as string);
    expectStatus(
      await stacks.admin.post(`/api/git-stacks/not-git/deploy${q(null)}`, {}),
      404,
      'deploy of a plain stack',
    );
    expectStatus(
      await stacks.admin.put(`/api/git-stacks/not-git${q(null)}`, { branch: 'main' }),
      404,
      'PUT of a plain stack',
    );
    const viewer = stacks.server.as('viewer');
    expectStatus(await viewer.post(`/api/git-stacks/app/deploy${q(null)}`, {}), 403, 'viewer deploy');
    expectStatus(
      await create({ name: 'by-viewer', repository: repo.bare }, null, viewer),
      403,
      'viewer create',
    );
    expectStatus(await viewer.get(`/api/git-stacks/app${q(null)}`), 200, 'viewer read');
    expectStatus(await stacks.server.as('nogrant').get(`/api/git-stacks${q(null)}`), 403, 'no grant');
    expectStatus(await stacks.admin.get(`/api/git-stacks${q(9)}`), 404, 'unknown environment');
  });

  it('webhook: a valid signature deploys, missing or wrong is 401, a replayed delivery is ignored', async () => {
    const fourth = await repo.commit({ 'deploy/compose.yaml': composeOf(['deployed by webhook']) });
    const body = JSON.stringify({ ref: 'refs/heads/main', after: fourth });
    const before = (await runsOf(stacks.admin, 'app')).length;

    const missing = await deliver(stacks.server, 'app', body, { 'X-GitHub-Delivery': 'd-1' });
    expectStatus(missing, 401, 'missing signature');
    expect(objectOf(missing).error).toContain('Missing X-Hub-Signature-256');
    const wrong = await deliver(stacks.server, 'app', body, {
      'X-GitHub-Delivery': 'd-1',
      'X-Hub-Signature-256': signed(body, 'another-secret'),
    });
    expectStatus(wrong, 401, 'wrong signature');
    // Signed over other bytes (the same JSON re-serialised with a space) is wrong too: the raw body counts.
    const reformatted = await deliver(stacks.server, 'app', body.replace(':', ': '), {
      'X-GitHub-Delivery': 'd-1',
      'X-Hub-Signature-256': signed(body),
    });
    expectStatus(reformatted, 401, 'signature of other bytes');
    expect((await runsOf(stacks.admin, 'app')).length).toBe(before);

    const valid = await deliver(stacks.server, 'app', body, {
      'X-GitHub-Delivery': 'd-1',
      'X-GitHub-Event': 'push',
      'X-Hub-Signature-256': signed(body),
    });
    expectStatus(valid, 202, 'valid delivery');
    const { jobId, runId } = objectOf(valid) as { jobId: string; runId: number };
    const job = await waitJob(stacks.admin, jobId);
    expect(linesOf(job)).toEqual([]);
    const run = await waitRun(stacks.admin, 'app', runId);
    expect(run).toMatchObject({ trigger: 'webhook', status: 'success' });
    expect(detailsOf(run).commit).toBe(fourth);
    expect(await logLines(stacks.server.dataDir, null, runId)).toEqual(['deployed by webhook']);

    const replay = await deliver(stacks.server, 'app', body, {
      'X-GitHub-Delivery': 'd-1',
      'X-Hub-Signature-256': signed(body),
    });
    expectStatus(replay, 200, 'replayed delivery');
    expect(objectOf(replay)).toMatchObject({ ignored: true });
    expect(String(objectOf(replay).reason)).toContain('d-1');

    const otherBranch = JSON.stringify({ ref: 'refs/heads/feature' });
    const ignored = await deliver(stacks.server, 'app', otherBranch, {
      'X-GitHub-Delivery': 'd-2',
      'X-Hub-Signature-256': signed(otherBranch),
    });
    expectStatus(ignored, 200, 'push to another branch');
    expect(String(objectOf(ignored).reason)).toContain('refs/heads/feature');
    const ping = await deliver(stacks.server, 'app', '{"zen":"hi"}', {
      'X-GitHub-Delivery': 'd-3',
      'X-GitHub-Event': 'ping',
      'X-Hub-Signature-256': signed('{"zen":"hi"}'),
    });
    expectStatus(ping, 200, 'ping');
    expect((await runsOf(stacks.admin, 'app')).length).toBe(before + 1);
  });

  it('webhook: a stack without a secret, an unknown stack or environment answer 401 alike', async () => {
    const body = '{}';
    for (const [name, env] of [
      ['plain-no-secret', null],
      ['no-such-stack', null],
      ['app', 7],
    ] as const) {
      if (name === 'plain-no-secret') {
        const made = await create({ name, repository: repo.bare, composePath: 'deploy/compose.yaml' });
        expectStatus(made, 201, 'create without secret');
      }
      const reply = await deliver(stacks.server, name, body, { 'X-Hub-Signature-256': signed(body) }, env);
      expectStatus(reply, 401, `${name} in ${env}`);
      expect(objectOf(reply).error).toBe('Invalid webhook signature');
    }
    // A bearer token does not replace the signature.
    const withToken = await stacks.admin.call('POST', `/api/git-stacks/app/webhook${q(null)}`, { raw: body });
    expectStatus(withToken, 401, 'token but no signature');
  });

  it('cron: deploys only when the commit changed; stops when cleared or deleted', async () => {
    const cronRepo = await makeRepo(root, { 'compose.yaml': composeOf(['tick v1']) }, 'cron-repo');
    const made = await create({
      name: 'ticker',
      repository: cronRepo.bare,
      composePath: 'compose.yaml',
      autoDeployCron: '* * * * * *',
      deploy: true,
    });
    expectStatus(made, 202, 'create with cron');
    await waitRun(stacks.admin, 'ticker', objectOf(made).runId as number);
    // The branch has not moved: a few seconds of ticks deploy nothing.
    await sleep(2500);
    expect((await runsOf(stacks.admin, 'ticker')).map((r) => r.trigger)).toEqual(['manual']);

    const second = await cronRepo.commit({ 'compose.yaml': composeOf(['tick v2']) });
    const cronRun = await eventually(async () => {
      const runs = await runsOf(stacks.admin, 'ticker');
      return runs.find((r) => r.trigger === 'cron');
    }, 'a cron run');
    const finished = await waitRun(stacks.admin, 'ticker', cronRun.id as number);
    expect(detailsOf(finished).commit).toBe(second);
    expect(await logLines(stacks.server.dataDir, null, finished.id as number)).toEqual(['tick v2']);
    await sleep(2500);
    expect((await runsOf(stacks.admin, 'ticker')).filter((r) => r.trigger === 'cron')).toHaveLength(1);

    // Cleared: a new commit is not deployed.
    expectStatus(
      await stacks.admin.put(`/api/git-stacks/ticker${q(null)}`, { autoDeployCron: null }),
      200,
      'clear cron',
    );
    const third = await cronRepo.commit({ 'compose.yaml': composeOf(['tick v3']) });
    await sleep(2500);
    expect((await runsOf(stacks.admin, 'ticker')).filter((r) => r.trigger === 'cron')).toHaveLength(1);
    // Set again: the waiting commit is deployed.
    expectStatus(
      await stacks.admin.put(`/api/git-stacks/ticker${q(null)}`, { autoDeployCron: '* * * * * *' }),
      200,
      'set cron',
    );
    await eventually(async () => {
      const runs = await runsOf(stacks.admin, 'ticker');
      return runs.find((r) => r.trigger === 'cron' && detailsOf(r).commit === third);
    }, 'a cron run of the third commit');
    await eventually(async () => {
      const runs = await runsOf(stacks.admin, 'ticker');
      return runs.every((r) => r.finishedAt !== null) ? true : undefined;
    }, 'runs to finish');

    // Deleted: its task stops and its cache goes.
    expectStatus(await stacks.admin.del(`/api/stacks/ticker${q(null)}`), 200, 'delete');
    const count = (await runsOf(stacks.admin, 'ticker')).length;
    await cronRepo.commit({ 'compose.yaml': composeOf(['tick v4']) });
    await sleep(2500);
    expect((await runsOf(stacks.admin, 'ticker')).length).toBe(count);
    await eventually(
      async () =>
        existsSync(join(stacks.server.dataDir, 'git-cache', 'local', 'ticker')) ? undefined : true,
      'the cache to be removed',
    );
    expectStatus(await stacks.admin.get(`/api/git-stacks/ticker${q(null)}`), 404, 'deleted git stack');
  }, 120_000);

  it('after a restart: a replayed delivery is still ignored and the cron is scheduled again', async () => {
    const restartRepo = await makeRepo(root, { 'compose.yaml': composeOf(['restart v1']) }, 'restart-repo');
    const made = await create({
      name: 'survivor',
      repository: restartRepo.bare,
      webhookSecret: SECRET,
      autoDeployCron: '* * * * * *',
      deploy: true,
    });
    expectStatus(made, 202, 'create');
    await waitRun(stacks.admin, 'survivor', objectOf(made).runId as number);
    const body = JSON.stringify({ ref: 'refs/heads/main' });
    const first = await deliver(stacks.server, 'survivor', body, {
      'X-GitHub-Delivery': 'restart-1',
      'X-Hub-Signature-256': signed(body),
    });
    expectStatus(first, 202, 'first delivery');
    await waitRun(stacks.admin, 'survivor', objectOf(first).runId as number);

    await stacks.restart();

    const replay = await deliver(stacks.server, 'survivor', body, {
      'X-GitHub-Delivery': 'restart-1',
      'X-Hub-Signature-256': signed(body),
    });
    expectStatus(replay, 200, 'replay after restart');
    expect(objectOf(replay).ignored).toBe(true);
    const next = await restartRepo.commit({ 'compose.yaml': composeOf(['restart v2']) });
    const cronRun = await eventually(async () => {
      const runs = await runsOf(stacks.admin, 'survivor');
      return runs.find((r) => r.trigger === 'cron');
    }, 'a cron run after the restart');
    expect(detailsOf(await waitRun(stacks.admin, 'survivor', cronRun.id as number)).commit).toBe(next);
    // The earlier runs carry on in the run list: manual, webhook, cron.
    expect((await runsOf(stacks.admin, 'survivor')).map((r) => r.trigger).sort()).toEqual([
      'cron',
      'manual',
      'webhook',
    ]);
  }, 120_000);
});

describeStacks('git stacks: credentials', () => {
  const TOKEN = 's3cretToken';
  const PASSWORD = 'pa55-w0rd-xyz';

  it('never shows a failing URL credential in the answer, the events or the stack folders', async () => {
    const server = await startStacks();
    const admin = server.as('admin');
    try {
      const reply = await admin.post(`/api/git-stacks${q(null)}`, {
        name: 'cred-fail',
        repository: `https://user:${TOKEN}@127.0.0.1:1/repo.git`,
        composePath: 'compose.yaml',
        deploy: true,
      });
      expectStatus(reply, 422, 'unreachable');
      const error = String(objectOf(reply).error);
      expect(error).toContain('127.0.0.1:1/repo.git');
      expect(error).not.toContain(TOKEN);
      expect(existsSync(stackDir(server.dataDir, null, 'cred-fail'))).toBe(false);
      expect(server.stderr()).not.toContain(TOKEN);
    } finally {
      await server.stop();
    }
    const events = await allEvents(server.dataDir);
    const text = JSON.stringify(events);
    expect(text).not.toContain(TOKEN);
    // Nothing claims the stack that was never made.
    expect(events.filter((e) => JSON.stringify(e.data).includes('cred-fail'))).toEqual([]);
  }, 60_000);

  it('fetches with them over smart HTTP and keeps them out of answers, events, job, log and errors', async () => {
    const root = await tempDir();
    const repo = await makeRepo(root, {
      // The fake compose prints the password: the log must show *** instead.
      'compose.yaml': composeOf([`using ${PASSWORD} to pull`, 'done']),
    });
    const http = await serveGitHttp(root, 'deployer', PASSWORD);
    const server = await startStacks();
    const admin = server.as('admin');
    const url = `http://deployer:${PASSWORD}@127.0.0.1:${http.port}/repo.git`;
    const shown = `http://127.0.0.1:${http.port}/repo.git`;
    let runId = 0;
    try {
      const reply = await admin.post(`/api/git-stacks${q(null)}`, {
        name: 'private',
        repository: url,
        composePath: 'compose.yaml',
        webhookSecret: SECRET,
        deploy: true,
      });
      expectStatus(reply, 202, 'create and deploy with credentials');
      const ids = objectOf(reply) as { jobId: string; runId: number };
      runId = ids.runId;
      const job = await waitJob(admin, ids.jobId);
      expect(job.result).toMatchObject({ success: true });
      const run = await waitRun(admin, 'private', runId);
      expect(detailsOf(run)).toMatchObject({ repository: shown, commit: repo.first });
      expect(await logLines(server.dataDir, null, runId)).toEqual(['using *** to pull', 'done']);
      const view = objectOf(await admin.get(`/api/git-stacks/private${q(null)}`));
      expect(view.repository).toBe(shown);
      const answers = [
        JSON.stringify(job),
        JSON.stringify(run),
        JSON.stringify(view),
        JSON.stringify(reply.value),
      ];
      for (const answer of answers) expect(answer).not.toContain(PASSWORD);
      // git.json on disk keeps the URL it fetches with.
      const gitJson = JSON.parse(
        await readFile(join(stackDir(server.dataDir, null, 'private'), 'git.json'), 'utf8'),
      ) as Json;
      expect(gitJson.repository).toBe(url);
      expect(http.requests.some((r) => r.path.includes(PASSWORD))).toBe(false);

      // Wrong credentials: the job and run fail with an error naming the repository without them, and
      // the settings stay as they were.
      const wrong = await admin.put(`/api/git-stacks/private${q(null)}`, {
        repository: `http://deployer:wrong-${PASSWORD}@127.0.0.1:${http.port}/repo.git`,
        redeploy: true,
      });
      expectStatus(wrong, 202, 'wrong credentials');
      const wrongIds = objectOf(wrong) as { jobId: string; runId: number };
      const wrongJob = await waitJob(admin, wrongIds.jobId);
      expect(wrongJob.result).toMatchObject({ success: false });
      expect(String(wrongJob.result?.error)).toContain(`Could not fetch main from ${shown}`);
      const wrongRun = await waitRun(admin, 'private', wrongIds.runId);
      expect(wrongRun.status).toBe('failed');
      expect(String(wrongRun.errorMessage)).toContain(`Could not fetch main from ${shown}`);
      expect(detailsOf(wrongRun)).toMatchObject({ repository: shown });
      for (const answer of [wrong.text, JSON.stringify(wrongJob), JSON.stringify(wrongRun)])
        expect(answer).not.toContain(PASSWORD);
      expect(objectOf(await admin.get(`/api/git-stacks/private${q(null)}`)).repository).toBe(shown);
    } finally {
      await server.stop();
      await http.close();
    }
    expect(server.stderr()).not.toContain(PASSWORD);
    const events = JSON.stringify(await allEvents(server.dataDir));
    expect(events).toContain('GitStackConfigured');
    expect(events).toContain(shown);
    expect(events).not.toContain(PASSWORD);
  }, 120_000);

  it('answers before the fetch ends; a fetch failing after the answer fails the job and run, compose.yaml kept', async () => {
    const root = await tempDir();
    const repo = await makeRepo(root, { 'compose.yaml': composeOf(['slow v1']) });
    // The remote answers as the test says: `hold()` makes requests wait, `release()` serves them (and
    // the later ones), `release(status)` answers them (and the later ones) with that error status.
    let answer: Promise<number | undefined> = Promise.resolve(undefined);
    let release: (status?: number) => void = () => {};
    const hold = () => {
      answer = new Promise((done) => {
        release = (status) => done(status);
      });
    };
    const http = await serveGitHttp(root, 'deployer', PASSWORD, { hold: () => answer });
    const server = await startStacks();
    const admin = server.as('admin');
    const shown = `http://127.0.0.1:${http.port}/repo.git`;
    const composeFile = join(stackDir(server.dataDir, null, 'slow'), 'compose.yaml');
    try {
      const made = await admin.post(`/api/git-stacks${q(null)}`, {
        name: 'slow',
        repository: `http://deployer:${PASSWORD}@127.0.0.1:${http.port}/repo.git`,
        composePath: 'compose.yaml',
        deploy: true,
      });
      expectStatus(made, 202, 'create and deploy');
      const first = await waitRun(admin, 'slow', objectOf(made).runId as number);
      expect(first.status).toBe('success');

      // The remote hangs: the 202 still comes at once, the job says it is fetching, the run has no commit.
      const second = await repo.commit({ 'compose.yaml': composeOf(['slow v2']) });
      hold();
      const requestsBefore = http.requests.length;
      const reply = await admin.post(`/api/git-stacks/slow/deploy${q(null)}`, {}, { timeoutMs: 5_000 });
      expectStatus(reply, 202, 'deploy while the remote hangs');
      const { jobId, runId } = objectOf(reply) as { jobId: string; runId: number };
      const fetching = await eventually(async () => {
        const job = objectOf(await admin.get(`/api/jobs/${jobId}`)) as unknown as JobJson;
        return statusesOf(job).includes(`Fetching main from ${shown}`) ? job : undefined;
      }, 'the Fetching status');
      expect(fetching.status).toBe('running');
      // The fetch is under way and held by the remote.
      await eventually(
        async () => (http.requests.length > requestsBefore ? true : undefined),
        'the fetch to reach the remote',
      );
      expect((objectOf(await admin.get(`/api/jobs/${jobId}`)) as unknown as JobJson).status).toBe('running');
      const pending = objectOf(await admin.get(`/api/stacks/slow/deploys/${runId}${q(null)}`));
      expect(pending.status).toBe('running');
      expect(detailsOf(pending)).toMatchObject({ source: 'git', repository: shown, branch: 'main' });
      expect(detailsOf(pending).commit).toBeUndefined();
      // Another deploy of the stack meanwhile is refused: the fetch runs with the stack claimed.
      expectStatus(await admin.post(`/api/git-stacks/slow/deploy${q(null)}`, {}), 409, 'second deploy');
      release();
      const job = await waitJob(admin, jobId);
      expect(job.result).toMatchObject({ success: true });
      expect(statusesOf(job)).toEqual([
        `Fetching main from ${shown}`,
        `Checked out ${second}`,
        'Updated compose.yaml from compose.yaml',
        'Running compose up',
      ]);
      const done = await waitRun(admin, 'slow', runId);
      expect(done.status).toBe('success');
      expect(detailsOf(done).commit).toBe(second);
      expect(await logLines(server.dataDir, null, runId)).toEqual(['slow v2']);
      expect(objectOf(await admin.get(`/api/git-stacks/slow${q(null)}`))).toMatchObject({
        lastCommit: second,
        lastRunId: runId,
      });

      // The remote fails after the answer: the job and run fail, with the repository shown without its
      // credentials, and compose.yaml stays as it was.
      await repo.commit({ 'compose.yaml': composeOf(['slow v3']) });
      const composeBefore = await readFile(composeFile, 'utf8');
      const runsBefore = (await runsOf(admin, 'slow')).length;
      hold();
      const failing = await admin.post(`/api/git-stacks/slow/deploy${q(null)}`, {}, { timeoutMs: 5_000 });
      expectStatus(failing, 202, 'deploy of a remote that will fail');
      const ids = objectOf(failing) as { jobId: string; runId: number };
      const requestsHeld = http.requests.length;
      await eventually(
        async () => (http.requests.length > requestsHeld ? true : undefined),
        'the fetch to reach the remote',
      );
      release(503);
      const failedJob = await waitJob(admin, ids.jobId);
      expect(failedJob.result).toMatchObject({ success: false });
      const error = String(failedJob.result?.error);
      expect(error).toContain(`Could not fetch main from ${shown}`);
      expect(statusesOf(failedJob)).toEqual([`Fetching main from ${shown}`]);
      expect(linesOf(failedJob)).toEqual([]);
      const failedRun = await waitRun(admin, 'slow', ids.runId);
      expect(failedRun).toMatchObject({ status: 'failed', errorMessage: error });
      expect(detailsOf(failedRun).commit).toBeUndefined();
      for (const text of [JSON.stringify(failedJob), JSON.stringify(failedRun)])
        expect(text).not.toContain(PASSWORD);
      expect(await readFile(composeFile, 'utf8')).toBe(composeBefore);
      expect((await runsOf(admin, 'slow')).length).toBe(runsBefore + 1);
      // The last commit is still the one deployed last: the next deploy (or tick) tries the new one.
      expect(objectOf(await admin.get(`/api/git-stacks/slow${q(null)}`))).toMatchObject({
        lastCommit: second,
        lastRunId: ids.runId,
      });
    } finally {
      release();
      await server.stop();
      await http.close();
    }
    expect(server.stderr()).not.toContain(PASSWORD);
    expect(JSON.stringify(await allEvents(server.dataDir))).not.toContain(PASSWORD);
  }, 120_000);
});
