/**
 * Deploy history on a real Docker engine (docs/stacks.md#deploy-history-what-each-run-deployed-diff-redeploy-rollback): each run records the image its services ran, the
 * diff of two runs shows a rebuilt tag's new image, and a redeploy of the first run runs the first
 * image again (pinned by image id: no registry here, the images are built locally), checked through the
 * engine. Black-box over the CLI, on each Compose generation.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type ComposeUnderTest,
  DockerRun,
  describeCompose,
  engine,
  ensureTestImage,
  TEST_IMAGE,
} from '../../docker-helpers.js';
import {
  arrayOf,
  createStackDone,
  deployDone,
  eventually,
  expectStatus,
  type Json,
  objectOf,
  type StacksClient,
  type StacksServer,
  stackDir,
  startStacks,
  USERS,
  waitJob,
  waitRun,
} from './helpers.js';

describeCompose('deploy history on a real Docker engine: images', (compose: ComposeUnderTest) => {
  const docker = new DockerRun(`hist${compose.generation}`);
  const tag = `${docker.prefix}-x:latest`;
  const built: string[] = [];
  let context: string;
  let server: StacksServer;
  let admin: StacksClient;

  /** Builds `tag` from the test image with a marker file: another content, another image id. */
  const build = async (content: string): Promise<string> => {
    await writeFile(join(context, 'marker'), content);
    const r = spawnSync('docker', ['build', '-q', '-t', tag, context], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const id = (await engine.getImage(tag).inspect()).Id;
    built.push(id);
    return id;
  };

  beforeAll(async () => {
    await ensureTestImage();
    context = await mkdtemp(join(tmpdir(), 'chronicle-history-image-'));
    await writeFile(join(context, 'Dockerfile'), `FROM ${TEST_IMAGE}\nCOPY marker /marker\n`);
    server = await startStacks({ config: { users: [USERS.admin], compose: { command: compose.command } } });
    admin = server.as('admin');
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await docker.cleanUp();
    // The first build lost its tag to the second: removed by id.
    for (const id of built)
      await engine
        .getImage(id)
        .remove({ force: true })
        .catch(() => undefined);
    if (context) await rm(context, { recursive: true, force: true });
  }, 120_000);

  const get = async (path: string): Promise<Json> => {
    const reply = await admin.get(path);
    expectStatus(reply, 200, path);
    return objectOf(reply);
  };
  /** The image id the engine shows for the stack's one container. */
  const runningImage = async (name: string) => {
    const containers = await docker.containers(name);
    expect(containers.map((c) => c.State)).toEqual(['running']);
    return containers[0]?.ImageID;
  };

  it('records each run’s image, diffs a rebuilt tag, and a redeploy runs the recorded image again', async () => {
    const name = docker.stack('web');
    const compose = `services:\n  web:\n    image: ${tag}\n    command: ["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"]\n`;
    const imageA = await build('A');
    const run1 = (await createStackDone(admin, name, null, { compose })).runId as number;
    expect(await waitRun(admin, name, run1)).toMatchObject({ status: 'success' });
    expect(await runningImage(name)).toBe(imageA);
    const images = `/api/stacks/${name}/deploys`;
    expect(await get(`${images}/${run1}/images`)).toEqual({
      runId: run1,
      images: [{ service: 'web', image: tag, imageId: imageA, repoDigest: null }],
    });

    // The same compose text, the tag rebuilt: compose recreates the container on the new image.
    const imageB = await build('B');
    expect(imageB).not.toBe(imageA);
    const run2 = (await deployDone(admin, name, null)).runId as number;
    expect(await waitRun(admin, name, run2)).toMatchObject({ status: 'success' });
    expect(await runningImage(name)).toBe(imageB);
    const diff = await get(`${images}/${run1}/diff?to=${run2}`);
    expect(diff).toMatchObject({ compose: { changed: false, patch: '' }, options: [] });
    expect(diff.images).toEqual([
      {
        service: 'web',
        from: { service: 'web', image: tag, imageId: imageA, repoDigest: null },
        to: { service: 'web', image: tag, imageId: imageB, repoDigest: null },
      },
    ]);

    // Redeploying run 1 runs image A, pinned by its id; the stack's file stays run 1's text.
    const redeploy = await admin.post(`${images}/${run1}/redeploy`);
    expectStatus(redeploy, 202, 'redeploy');
    const job = await waitJob(admin, objectOf(redeploy).jobId as string, 120_000);
    expect(job.result).toMatchObject({ success: true });
    const run3 = objectOf(redeploy).runId as number;
    expect(await waitRun(admin, name, run3)).toMatchObject({
      status: 'success',
      details: { redeployOf: run1, pinnedImages: `web=${imageA}` },
    });
    expect(await runningImage(name)).toBe(imageA);
    expect(await get(`${images}/${run3}/images`)).toEqual({
      runId: run3,
      images: [{ service: 'web', image: imageA, imageId: imageA, repoDigest: null }],
    });
    expect(await get(`${images}/${run1}/diff?to=${run3}`)).toMatchObject({
      compose: { changed: false },
      images: [],
    });
    expect((await get(`/api/stacks/${name}`)).compose).toBe(compose);
    expect(existsSync(join(stackDir(server.dataDir, null, name), '.compose.pinned.yaml'))).toBe(false);

    // The pin was that run's only: a plain deploy takes the tag's image again.
    const run4 = (await deployDone(admin, name, null)).runId as number;
    expect(await waitRun(admin, name, run4)).toMatchObject({ status: 'success' });
    expect(await runningImage(name)).toBe(imageB);
    expect((await get(`${images}/${run4}`)).details).not.toHaveProperty('pinnedImages');
  }, 300_000);

  it('a rollback after a failed deploy that touched nothing recreates nothing, nor does the next deploy', async () => {
    const name = docker.stack('back');
    const web = `  web:\n    image: ${TEST_IMAGE}\n    command: ["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"]\n`;
    const good = `services:\n${web}`;
    const run1 = (await createStackDone(admin, name, null, { compose: good })).runId as number;
    expect(await waitRun(admin, name, run1)).toMatchObject({ status: 'success' });
    const webId = async () =>
      (await docker.containers(name)).find((c) => c.Labels['com.docker.compose.service'] === 'web')?.Id;
    const first = await webId();
    expect(first).toBeDefined();
    expectStatus(
      await admin.put(`/api/stacks/${name}/history-settings`, { autoRollback: true }),
      200,
      'auto-rollback on',
    );

    // A deploy that adds a crashing service fails; web is left as it is.
    const bad = `${good}  crash:\n    image: ${TEST_IMAGE}\n    command: ["sh", "-c", "exit 1"]\n`;
    await admin.put(`/api/stacks/${name}/compose`, { content: bad, restart: false });
    const failed = (await deployDone(admin, name, null)).runId as number;
    expect(await waitRun(admin, name, failed)).toMatchObject({ status: 'failed' });
    // The auto-rollback redeploys run 1: nothing of web changes (no pin, no recreate).
    const rollback = await eventually(
      async () => {
        const runs = arrayOf(await admin.get(`/api/stacks/${name}/deploys`));
        const found = runs.find((r) => (r.details as Json).rollbackOf === failed);
        return found && found.status !== 'running' ? found : undefined;
      },
      'the rollback run',
      120_000,
    );
    expect(rollback).toMatchObject({ status: 'success', details: { redeployOf: run1 } });
    expect(rollback.details as Json).not.toHaveProperty('pinnedImages');
    expect((rollback.details as Json).summary).toMatchObject({
      containersRecreated: 0,
      containersCreated: 0,
    });
    expect(await webId()).toBe(first);
    expect((await docker.containers(name)).map((c) => c.Labels['com.docker.compose.service'])).toEqual([
      'web',
    ]);

    const next = (await deployDone(admin, name, null)).runId as number;
    expect(await waitRun(admin, name, next)).toMatchObject({
      status: 'success',
      details: { summary: { containersRecreated: 0, containersCreated: 0 } },
    });
    expect(await webId()).toBe(first);
  }, 300_000);
});
