/**
 * `chronicle rebuild` on the data dir of a running server (LevelDB: one process): it reaches the
 * server through `<data>/control.sock`; the server builds the new read model beside the old one, which
 * keeps answering, and swaps it in once it has caught up.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { jobs } from '../../projections/jobs.js';
import { body, Client, num, startEditor } from '../http/editor/helpers.js';
import { startStacks } from '../http/stacks/helpers.js';
import { assertBuilt, lines, runCli, startCli, tempDir, until, watch, withDataStore } from './helpers.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 30_000 });

beforeAll(() => assertBuilt());

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const FILLER = 400_000;

describe('chronicle rebuild against a running server', () => {
  it('stacks: the old jobs model answers throughout, the rebuilt one after the swap', async () => {
    const dataDir = await tempDir();
    dirs.push(dataDir);
    // A log long enough for the rebuild to take a while, one finished job, and a stale snapshot of the
    // jobs model that lacks it: the server starts answering from that snapshot.
    await withDataStore(dataDir, async (store) => {
      for (let done = 0; done < FILLER; done += 2_000) {
        const batch = Array.from({ length: 2_000 }, (_, i) => ({
          type: 'LineAppended',
          data: { line: `filler ${done + i}` },
        }));
        await store.append(`filler-${(done / 2_000) % 20}`, batch);
      }
      await store.append('stack-job-bg1', [
        {
          type: 'JobStarted',
          data: {
            job_id: 'bg1',
            kind: 'start',
            stack: 'web',
            environment_id: null,
            user_id: null,
            run_id: null,
          },
        },
        { type: 'JobFinished', data: { job_id: 'bg1', success: true, output: [] } },
      ]);
      await store.saveSnapshot({
        name: 'jobs',
        version: jobs.version,
        position: await store.headPosition(),
        state: { jobs: {} },
      });
    });
    const server = await startStacks({ dataDir });
    try {
      await until(() => existsSync(join(dataDir, 'control.sock')), 'the control socket');
      const admin = server.as('admin');
      expect((await admin.get('/api/jobs/bg1')).status).toBe(404);

      const child = startCli(['rebuild', 'jobs', '--data', dataDir, '--checkpoint-every', '20000']);
      const rebuild = watch(child, 120_000);
      // Half-way through (a checkpoint saved, not yet swapped) the server still answers, from the old model.
      await until(() => rebuild.stderr().includes('checkpoint saved at position'), 'a checkpoint', 60_000);
      const during = await admin.get('/api/jobs/bg1');
      expect(during.status).toBe(404);
      const statuses: number[] = [];
      let finished = false;
      void rebuild.done.then(() => {
        finished = true;
      });
      while (!finished) statuses.push((await admin.get('/api/jobs/bg1')).status);
      const result = await rebuild.done;
      expect(result.code, result.stderr).toBe(0);
      // Every read was answered: by the old model, then (once swapped) by the new one, never back.
      expect(statuses.every((s) => s === 404 || s === 200)).toBe(true);
      const swapped = statuses.indexOf(200);
      if (swapped >= 0) expect(statuses.slice(swapped).every((s) => s === 200)).toBe(true);

      const out = lines(result.stdout);
      expect(out[0]).toContain(`rebuilding on the running server (${dataDir}/control.sock)`);
      expect(out[1]).toMatch(
        /^jobs: rebuilt blue-green from \d+ events in \d+\.\d\d s \(\d+ events\/s\), checkpoint \d+$/,
      );

      const after = await admin.get('/api/jobs/bg1');
      expect(after.status, after.text).toBe(200);
      expect(after.value).toMatchObject({ id: 'bg1', status: 'done', result: { success: true } });
    } finally {
      await server.stop();
    }
    // The swapped model was saved as the snapshot.
    await withDataStore(dataDir, async (store) => {
      const snapshot = await store.loadSnapshot<{ jobs: Record<string, unknown> }>('jobs');
      expect(Object.keys(snapshot?.state.jobs ?? {})).toContain('bg1');
    });
    // The server removed its socket on the way out: a rebuild now opens the store itself.
    const offline = await runCli(['rebuild', 'jobs', '--data', dataDir]);
    expect(offline.code).toBe(0);
    expect(lines(offline.stdout)[0]).toMatch(/^jobs: rebuilt from \d+ events/);
  });

  it('editor: the session is rebuilt blue-green, reads answered throughout, mutations go on after', async () => {
    const dataDir = await tempDir();
    dirs.push(dataDir);
    const server = await startEditor(['--data', dataDir]);
    try {
      await until(() => existsSync(join(dataDir, 'control.sock')), 'the control socket');
      const client = new Client(server.port);
      await client.post('/api/v1/documents', {});
      for (let i = 0; i < 20; i++) {
        const created = await client.post('/api/v1/entities', {
          entities: Array.from({ length: 50 }, (_, k) => ({ type: 'Circle', center: [i, k], radius: 1 + k })),
        });
        expect(created.status).toBe(201);
      }
      const entities = async () =>
        JSON.stringify(body(await client.get('/api/v1/entities?detail=full')).entities);
      const before = await entities();

      const child = startCli(['rebuild', 'editor-models', '--data', dataDir]);
      const rebuild = watch(child, 60_000);
      let finished = false;
      void rebuild.done.then(() => {
        finished = true;
      });
      const reads: string[] = [];
      while (!finished) {
        const answer = await client.get('/api/v1/entities?detail=full');
        expect(answer.status).toBe(200);
        reads.push(JSON.stringify(body(answer).entities));
      }
      const result = await rebuild.done;
      expect(result.code, result.stderr).toBe(0);
      expect(reads.every((text) => text === before)).toBe(true);
      expect(lines(result.stdout)[1]).toMatch(
        /^editor-models: rebuilt blue-green from \d+ events in \d+\.\d\d s \(\d+ events\/s\), session [0-9a-f-]+ at revision \d+$/,
      );

      expect(await entities()).toBe(before);
      const more = await client.post('/api/v1/entities', { entities: [{ type: 'Point', location: [9, 9] }] });
      expect(more.status, more.text).toBe(201);
      expect(num(body(await client.get('/api/v1/entities?type=Point')), 'count')).toBe(1);
      expect((await client.post('/api/v1/undo')).status).toBe(200);
      expect(num(body(await client.get('/api/v1/entities?type=Point')), 'count')).toBe(0);
    } finally {
      await server.stop();
    }
  });

  it('a socket left by a killed server: rebuild opens the store itself; the next server replaces it', async () => {
    const dataDir = await tempDir();
    dirs.push(dataDir);
    const killed = await startEditor(['--data', dataDir]);
    // The socket is announced right after the listening line.
    await until(() => existsSync(join(dataDir, 'control.sock')), 'the control socket');
    killed.child.kill('SIGKILL');
    await killed.done;
    expect(existsSync(join(dataDir, 'control.sock'))).toBe(true);

    const offline = await runCli(['rebuild', 'stream-catalog', '--data', dataDir]);
    expect(offline.code, offline.stderr).toBe(0);
    expect(lines(offline.stdout)[0]).toMatch(/^stream-catalog: rebuilt from \d+ events/);

    const next = await startEditor(['--data', dataDir]);
    try {
      await until(() => existsSync(join(dataDir, 'control.sock')), 'the control socket');
      const online = await runCli(['rebuild', 'stream-catalog', '--data', dataDir]);
      expect(online.code, online.stderr).toBe(0);
      // Not served by the editor: rebuilt through the server's store, its snapshot replaced.
      expect(lines(online.stdout)[1]).toMatch(/^stream-catalog: rebuilt from \d+ events .*checkpoint \d+$/);
      const unknown = await runCli(['rebuild', 'nope', '--data', dataDir]);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('unknown projection nope');
    } finally {
      await next.stop();
    }
    expect(existsSync(join(dataDir, 'control.sock'))).toBe(false);
  });
});
