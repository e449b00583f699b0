/**
 * Images pulled from a registry, on a real engine and both Compose generations (the registry is the
 * tests' own, test/registry.ts: none is reachable here). One image served under two repositories, as
 * a registry that holds the same image twice does: the engine then has registry digests of both for
 * it. A stack naming one of them pulls it through chronicle (`pull: true`); its container's
 * `imageDigest` and the run's recorded digest are of the repository the service names, never the
 * other's; and when that tag moves on, a redeploy of the run pins the service to that repository's
 * digest.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureBusyboxImage } from '../../../bench/docker-image.js';
import {
  type ComposeUnderTest,
  DockerRun,
  describeCompose,
  engine,
  ensureTestImage,
  TEST_IMAGE,
} from '../../docker-helpers.js';
import { TestRegistry } from '../../registry.js';
import {
  createStackDone,
  expectStatus,
  type Json,
  objectOf,
  serveEngineStacks,
  waitJob,
  waitRun,
} from './helpers.js';

describeCompose('images from a registry', (compose: ComposeUnderTest) => {
  const docker = new DockerRun(`reg${compose.generation}`);
  const suite = serveEngineStacks(compose.command, () => docker.cleanUp());
  let registry: TestRegistry;
  let digest = '';
  /** `127.0.0.1:PORT/<prefix>/pullme`, the repository the stack names, and the other one. */
  let pullme = '';
  let other = '';
  const name = docker.stack('pinned');
  let run1 = 0;

  beforeAll(async () => {
    await ensureTestImage();
    registry = await TestRegistry.start();
    pullme = `${registry.host}/${docker.prefix}/pullme`;
    other = `${registry.host}/${docker.prefix}/other`;
    digest = await registry.serve(TEST_IMAGE, `${docker.prefix}/other`, '1');
    expect(await registry.serve(TEST_IMAGE, `${docker.prefix}/pullme`, '1')).toBe(digest);
    // The other repository first: its digest is the image's first.
    await pull(`${other}:1`);
  }, 120_000);
  afterAll(async () => {
    // By name only: the image is the tests' own image under other names.
    for (const ref of [`${other}:1`, `${pullme}:1`, `${other}@${digest}`, `${pullme}@${digest}`])
      await engine
        .getImage(ref)
        .remove()
        .catch(() => undefined);
    await registry?.stop();
  }, 60_000);

  const pull = async (ref: string) => {
    const stream = await engine.pull(ref);
    await new Promise((resolve, reject) =>
      engine.modem.followProgress(stream, (error) => (error ? reject(error) : resolve(undefined))),
    );
  };

  it('a pulled image with digests of two repositories: the container and the run answer the one the service names', async () => {
    const compose = `services:\n  web:\n    image: ${pullme}:1\n    command: ["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"]\n`;
    const created = await createStackDone(suite.admin, name, null, { compose, pull: true });
    run1 = created.runId as number;
    expect(await waitRun(suite.admin, name, run1, 240_000)).toMatchObject({ status: 'success' });
    const repoDigests = (await engine.getImage(`${pullme}:1`).inspect()).RepoDigests;
    expect(repoDigests).toEqual(expect.arrayContaining([`${other}@${digest}`, `${pullme}@${digest}`]));

    const stack = objectOf(await suite.admin.get(`/api/stacks/${name}`));
    expect((stack.containers as Json[]).map((c) => [c.service, c.image, c.imageDigest])).toEqual([
      ['web', `${pullme}:1`, `${pullme}@${digest}`],
    ]);
    const images = objectOf(await suite.admin.get(`/api/stacks/${name}/deploys/${run1}/images`));
    expect(images.images).toEqual([
      {
        service: 'web',
        image: `${pullme}:1`,
        imageId: expect.any(String),
        repoDigest: `${pullme}@${digest}`,
      },
    ]);
  }, 300_000);

  it("a tag that moved on: a redeploy of the run pins the service to its own repository's digest", async () => {
    const moved = docker.image('moved');
    await ensureBusyboxImage(moved);
    const [repo = '', tag = ''] = `${pullme}:1`.split(/:(?=[^:]*$)/);
    await engine.getImage(moved).tag({ repo, tag });
    const before = (await engine.getImage(`${pullme}@${digest}`).inspect()).Id;
    expect((await engine.getImage(`${pullme}:1`).inspect()).Id).not.toBe(before);

    const reply = await suite.admin.post(`/api/stacks/${name}/deploys/${run1}/redeploy`);
    expectStatus(reply, 202, 'redeploy');
    const job = await waitJob(suite.admin, objectOf(reply).jobId as string, 240_000);
    expect(job.result).toMatchObject({ success: true });
    const run = await waitRun(suite.admin, name, objectOf(reply).runId as number, 240_000);
    expect(run).toMatchObject({
      status: 'success',
      details: { redeployOf: run1, pinnedImages: `web=${pullme}@${digest}` },
    });
    const [container] = await docker.containers(name);
    expect([container?.Image, container?.ImageID]).toEqual([`${pullme}@${digest}`, before]);
    const stack = objectOf(await suite.admin.get(`/api/stacks/${name}`));
    expect((stack.containers as Json[]).map((c) => c.imageDigest)).toEqual([`${pullme}@${digest}`]);
  }, 300_000);
});
