/**
 * The scheduled image update check (src/stacks/engine/image-check-schedule.ts), time moved on by firing
 * the armed timer of a manual `Timers`, never by waiting: its first turn a minute after the start, then
 * every `checkEveryMinutes`, one check at a time, none after stop; Node's timers chain a wait longer than
 * they hold. Then the app on a real engine and a real registry on loopback: a new image pushed under a
 * running service's tag is "Update available" once the schedule's first turn has run — nobody asked.
 */
import { rm } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { stacksApp } from '../../../src/http/stacks/app.js';
import { resolveStacksConfig } from '../../../src/stacks/config/stacks-config.js';
import {
  FIRST_CHECK_AFTER_MS,
  nodeTimers,
  scheduleImageChecks,
  type Timers,
} from '../../../src/stacks/engine/image-check-schedule.js';
import { StacksService } from '../../../src/stacks/stacks-service.js';
import { openStore } from '../../../src/store/open.js';
import type { EventStore } from '../../../src/store/types.js';
import { tempDir } from '../../cli/helpers.js';
import { DockerRun, describeDocker, engine, ensureTestImage, TEST_IMAGE } from '../../docker-helpers.js';
import { createStack, objectOf, StacksClient, waitJob } from '../../http/stacks/helpers.js';
import { dockerCli, type Registry, registryMissing, startRegistry } from '../../registry-helpers.js';

/** Timers that fire only when told: `armed` lists the waits asked for and not yet fired or cancelled. */
class ManualTimers implements Timers {
  private readonly waiting: Array<{ ms: number; fire: () => Promise<void> | undefined }> = [];

  after(ms: number, fire: () => Promise<void> | undefined): () => void {
    const entry = { ms, fire };
    this.waiting.push(entry);
    return () => {
      const at = this.waiting.indexOf(entry);
      if (at >= 0) this.waiting.splice(at, 1);
    };
  }

  get armed(): number[] {
    return this.waiting.map((w) => w.ms);
  }

  /** Fires the oldest armed timer (its time has come); answers the check it started, if any. */
  fire(): Promise<void> | undefined {
    const next = this.waiting.shift();
    if (!next) throw new Error('no timer armed');
    return next.fire();
  }
}

describe('the image check schedule', () => {
  it('checks a minute after the start, then every checkEveryMinutes', async () => {
    const timers = new ManualTimers();
    let checks = 0;
    const schedule = scheduleImageChecks(
      30,
      async () => {
        checks++;
      },
      { timers },
    );
    expect(timers.armed).toEqual([FIRST_CHECK_AFTER_MS]);
    expect(FIRST_CHECK_AFTER_MS).toBe(60_000);
    expect(checks).toBe(0);
    await timers.fire();
    expect(checks).toBe(1);
    expect(timers.armed).toEqual([30 * 60_000]);
    await timers.fire();
    await timers.fire();
    expect(checks).toBe(3);
    expect(timers.armed).toEqual([30 * 60_000]);
    schedule.stop();
    expect(timers.armed).toEqual([]);
  });

  it('skips a turn that comes while a check still runs, and keeps the beat', async () => {
    const timers = new ManualTimers();
    let release = () => {};
    let checks = 0;
    scheduleImageChecks(
      5,
      () => {
        checks++;
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      },
      { timers },
    );
    const first = timers.fire();
    expect(checks).toBe(1);
    expect(timers.fire()).toBeUndefined();
    expect(checks).toBe(1);
    expect(timers.armed).toEqual([5 * 60_000]);
    release();
    await first;
    const second = timers.fire();
    expect(checks).toBe(2);
    release();
    await second;
  });

  it('reports a failed check and runs the next turn', async () => {
    const timers = new ManualTimers();
    const failures: string[] = [];
    let checks = 0;
    scheduleImageChecks(
      1,
      async () => {
        checks++;
        if (checks === 1) throw new Error('engine gone');
      },
      { timers, failed: (e) => failures.push(e.message) },
    );
    await timers.fire();
    expect(failures).toEqual(['engine gone']);
    await timers.fire();
    expect(checks).toBe(2);
    expect(failures).toEqual(['engine gone']);
  });

  it('arms nothing for 0 (only on demand), and nothing after stop while a check runs', async () => {
    const timers = new ManualTimers();
    scheduleImageChecks(0, async () => {}, { timers }).stop();
    expect(timers.armed).toEqual([]);
    let release = () => {};
    const schedule = scheduleImageChecks(
      2,
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
      { timers },
    );
    const running = timers.fire();
    schedule.stop();
    release();
    await running;
    expect(timers.armed).toEqual([]);
  });

  it("Node's timers wait longer than 2^31 - 1 ms by chaining, and cancel", () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const fired: string[] = [];
      const long = 50_000 * 60_000; // 50,000 minutes: past what one Node timer holds
      nodeTimers.after(long, () => {
        fired.push('long');
        return undefined;
      });
      const cancel = nodeTimers.after(10, () => {
        fired.push('cancelled');
        return undefined;
      });
      cancel();
      vi.advanceTimersByTime(2 ** 31);
      expect(fired).toEqual([]);
      vi.advanceTimersByTime(long - 2 ** 31 - 1);
      expect(fired).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(fired).toEqual(['long']);
    } finally {
      vi.useRealTimers();
    }
  });
});

const describeRegistry = registryMissing
  ? (name: string, _body: () => void) => console.log(`skipped: ${name}: ${registryMissing}`)
  : describeDocker;

describeRegistry('the scheduled image check on a real engine and registry', () => {
  vi.setConfig({ testTimeout: 120_000, hookTimeout: 240_000 });
  const docker = new DockerRun('sched');
  const name = docker.stack('app');
  const timers = new ManualTimers();
  let registry: Registry;
  let store: EventStore;
  let dataDir: string;
  let service: StacksService;
  let app: FastifyInstance;
  let admin: StacksClient;
  let image = '';

  beforeAll(async () => {
    await ensureTestImage();
    registry = await startRegistry();
    image = `${registry.host}/${docker.prefix}/app:1`;
    dockerCli('tag', TEST_IMAGE, image);
    dockerCli('push', image);
    dataDir = await tempDir();
    store = await openStore('memory:');
    const { config } = resolveStacksConfig({
      users: [{ name: 'admin', token: 't-admin', admin: true }],
      imageUpdates: { checkEveryMinutes: 30 },
    });
    service = await StacksService.open({ store, dataDir, config });
    app = stacksApp(service, { timers });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    admin = new StacksClient(typeof address === 'object' && address ? address.port : 0, 't-admin');
    const compose = `services:\n  app:\n    image: ${image}\n    command: ["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"]\n`;
    const done = await waitJob(admin, (await createStack(admin, name, null, { compose })).jobId, 180_000);
    expect(done.result, JSON.stringify(done)).toMatchObject({ success: true });
  });
  afterAll(async () => {
    await app?.close();
    await service?.close();
    await store?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    await docker.cleanUp();
    await engine
      .getImage(image)
      .remove({ force: true })
      .catch(() => undefined);
    await registry?.stop();
  }, 120_000);

  const update = async () => {
    const answer = objectOf(await admin.get(`/api/stacks/${name}/updates?env=null`));
    const [app] = answer.services as Array<{
      service: string;
      updateAvailable: boolean;
      reason: string | null;
    }>;
    return { service: app?.service, updateAvailable: app?.updateAvailable, reason: app?.reason };
  };

  it('marks "Update available" on its first turn, a minute after the start, without being asked', async () => {
    // Another machine pushes a new image under the tag; this engine keeps running the first one.
    const first = (await engine.getImage(image).inspect()).Id;
    const maker = `${docker.prefix}-maker`;
    try {
      dockerCli('run', '--network', 'none', '--name', maker, TEST_IMAGE, 'sh', '-c', 'echo 2 > /version');
      dockerCli('commit', maker, image);
    } finally {
      await engine
        .getContainer(maker)
        .remove({ force: true })
        .catch(() => undefined);
    }
    dockerCli('push', image);
    dockerCli('tag', first, image);

    expect(await update()).toEqual({ service: 'app', updateAvailable: false, reason: 'Not checked yet' });
    expect(timers.armed).toEqual([FIRST_CHECK_AFTER_MS]);
    await timers.fire();
    expect(await update()).toEqual({ service: 'app', updateAvailable: true, reason: null });
    // The next turn is armed checkEveryMinutes on; closing the app cancels it.
    expect(timers.armed).toEqual([30 * 60_000]);
    await app.close();
    expect(timers.armed).toEqual([]);
  });
});
