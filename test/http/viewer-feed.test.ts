/**
 * The viewer's live feed in process, over real sockets: a burst of mutations reaches a page as one
 * message of each kind, and a page that stops reading is dropped once it has too much unread, while
 * the others keep getting every update and the dispatcher keeps answering.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_UNREAD_BYTES, viewerApp } from '../../src/http/viewer/app.js';
import { type Harness, startHarness } from '../editor/dispatcher/helpers.js';
import { SseReader } from './viewer/helpers.js';

vi.setConfig({ testTimeout: 60_000 });

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function served(): Promise<{ h: Harness; port: number; feed: ReturnType<typeof viewerApp>['feed'] }> {
  const h = await startHarness({ gui: true });
  let port = 0;
  const { app, feed } = viewerApp(h.session, () => port);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  port = typeof address === 'object' && address ? address.port : 0;
  cleanup.push(async () => {
    await app.close();
    await h.close();
  });
  return { h, port, feed };
}

/** Zigzag polylines of 1000 points: about 30 KB of drawable each. */
const zigzags = (count: number, y: number) =>
  Array.from({ length: count }, (_, i) => ({
    type: 'polyline',
    points: Array.from({ length: 1000 }, (_, k) => [k + 0.123456789, y + i + (k % 2) * 0.987654321]),
  }));

const circles = (count: number, y: number) =>
  Array.from({ length: count }, (_, i) => ({ type: 'Circle', center: [i, y], radius: 0.4 }));

describe('the live feed', () => {
  it('a burst of mutations reaches a page as one entities message', async () => {
    const { h, port } = await served();
    const doc = await h.newDoc();
    const sse = await SseReader.open(port);
    cleanup.push(async () => sse.close());
    await sse.next((e) => e.event === 'scene');
    // The new document's own update (a whole scene) goes out first.
    await new Promise((r) => setTimeout(r, 60));
    const from = sse.events.length;
    const created = await Promise.all(
      [0, 1, 2].map((i) => h.ok('entities_create', { document_id: doc, entities: circles(1, i) })),
    );
    const handles = created.flatMap((a) => (a.result as { handles: string[] }).handles);
    const update = await sse.next((e) => e.event === 'entities', from);
    expect((update.data.upsert as Array<{ handle: string }>).map((d) => d.handle).sort()).toEqual(
      [...handles].sort(),
    );
    await new Promise((r) => setTimeout(r, 100));
    expect(sse.events.slice(from).filter((e) => e.event === 'entities')).toHaveLength(1);
  });

  it('drops a page that stops reading, keeps the others, and the dispatcher keeps answering', async () => {
    const { h, port, feed } = await served();
    const doc = await h.newDoc();
    const reader = await SseReader.open(port);
    cleanup.push(async () => reader.close());
    await reader.next((e) => e.event === 'scene');
    // A page that asks for the stream and then never reads a byte.
    const stalled = connect({ host: '127.0.0.1', port });
    cleanup.push(async () => {
      stalled.destroy();
    });
    await new Promise<void>((resolve) => stalled.once('connect', () => resolve()));
    stalled.write(`GET /events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    stalled.pause();
    const deadline = Date.now() + 5_000;
    while (feed.size < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(feed.size).toBe(2);

    // Each batch is a few MB of drawables: a few of them fill the socket buffers and the page's limit.
    let created = 0;
    for (let batch = 0; batch < 40 && feed.dropped === 0; batch++) {
      await h.ok('entities_create', { document_id: doc, entities: zigzags(50, batch * 50) });
      created += 50;
      await new Promise((r) => setTimeout(r, 40));
    }
    expect(feed.dropped, `no page dropped after ${created} entities (limit ${MAX_UNREAD_BYTES} bytes)`).toBe(
      1,
    );
    expect(feed.size).toBe(1);
    // The reading page got every entity.
    await reader.next(
      () =>
        reader.events
          .filter((e) => e.event === 'entities')
          .reduce((n, e) => n + (e.data.upsert as unknown[]).length, 0) === created,
    );
    // A batch is decided, recorded and answered without waiting for any page: the loop above got every
    // answer while the stalled page read nothing (it would hang there otherwise).
    expect((await h.call('state')).ok).toBe(true);
  });
});
