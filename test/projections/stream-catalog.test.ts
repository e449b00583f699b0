import { describe, expect, it } from 'vitest';
import { type StreamCatalog, streamCatalog } from '../../projections/stream-catalog.js';
import type { RecordedEvent } from '../../src/store/types.js';
import { STREAM_DELETED, type StreamDeletedData, SYSTEM_STREAM } from '../../streams/system.js';

const at = (position: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, position)).toISOString();

function event(position: number, stream: string, revision: number, type: string, data: unknown = {}) {
  return { stream, revision, position, type, data, metadata: { at: at(position) } } satisfies RecordedEvent;
}

const deleted = (position: number, systemRevision: number, stream: string, lastRevision: number) =>
  event(position, SYSTEM_STREAM, systemRevision, STREAM_DELETED, {
    stream,
    lastRevision,
  } satisfies StreamDeletedData);

const fold = (events: readonly RecordedEvent[], from: StreamCatalog = streamCatalog.initial()) =>
  events.reduce((state, e) => streamCatalog.evolve(state, e), from);

describe('streamCatalog.evolve', () => {
  it('starts empty', () => {
    expect(streamCatalog.initial()).toEqual({ events: 0, streams: {} });
  });

  it('gives each call of initial() its own state', () => {
    const a = streamCatalog.initial();
    fold([event(1, 'doc-1', 0, 'EntitiesCreated')], a);
    expect(streamCatalog.initial()).toEqual({ events: 0, streams: {} });
  });

  it('counts events per stream and in total, and keeps the first and last event of each', () => {
    const catalog = fold([
      event(1, 'doc-1', 0, 'EntitiesCreated'),
      event(2, 'run-7', 0, 'RunStarted'),
      event(3, 'doc-1', 1, 'EntitiesMoved'),
      event(4, 'doc-1', 2, 'EntitiesDeleted'),
    ]);
    expect(catalog).toEqual({
      events: 4,
      streams: {
        'doc-1': {
          events: 3,
          firstPosition: 1,
          lastPosition: 4,
          lastRevision: 2,
          lastType: 'EntitiesDeleted',
          lastAt: at(4),
        },
        'run-7': {
          events: 1,
          firstPosition: 2,
          lastPosition: 2,
          lastRevision: 0,
          lastType: 'RunStarted',
          lastAt: at(2),
        },
      },
    });
  });

  it('removes a deleted stream and its events from the count, and lists the system stream', () => {
    const catalog = fold([
      event(1, 'doc-1', 0, 'EntitiesCreated'),
      event(2, 'run-7', 0, 'RunStarted'),
      event(3, 'run-7', 1, 'RunLineWritten'),
      event(4, 'doc-1', 1, 'EntitiesMoved'),
      deleted(5, 0, 'run-7', 1),
    ]);
    expect(catalog.streams['run-7']).toBeUndefined();
    expect(Object.keys(catalog.streams).sort()).toEqual([SYSTEM_STREAM, 'doc-1']);
    // doc-1's two events and the StreamDeleted event itself.
    expect(catalog.events).toBe(3);
    expect(catalog.streams['doc-1']?.events).toBe(2);
    expect(catalog.streams[SYSTEM_STREAM]).toEqual({
      events: 1,
      firstPosition: 5,
      lastPosition: 5,
      lastRevision: 0,
      lastType: STREAM_DELETED,
      lastAt: at(5),
    });
  });

  it('gives after a deletion what a replay of the log without the deleted events gives', () => {
    // What the live runner saw: run-7's events, then its deletion.
    const live = fold([
      event(1, 'doc-1', 0, 'EntitiesCreated'),
      event(2, 'run-7', 0, 'RunStarted'),
      event(3, 'run-7', 1, 'RunLineWritten'),
      deleted(4, 0, 'run-7', 1),
      event(5, 'doc-1', 1, 'EntitiesMoved'),
    ]);
    // What a rebuild reads afterwards: the deleted events are gone, only the StreamDeleted is left.
    const rebuilt = fold([
      event(1, 'doc-1', 0, 'EntitiesCreated'),
      deleted(4, 0, 'run-7', 1),
      event(5, 'doc-1', 1, 'EntitiesMoved'),
    ]);
    expect(live).toEqual(rebuilt);
    expect(live.events).toBe(3);
  });

  it('counts a StreamDeleted of a stream it never saw without removing anything', () => {
    const catalog = fold([event(1, 'doc-1', 0, 'EntitiesCreated'), deleted(2, 0, 'never-written', -1)]);
    expect(catalog.events).toBe(2);
    expect(Object.keys(catalog.streams).sort()).toEqual([SYSTEM_STREAM, 'doc-1']);
    expect(catalog.streams['doc-1']?.events).toBe(1);
  });

  it('does not treat an event named StreamDeleted outside the system stream as a deletion', () => {
    const catalog = fold([
      event(1, 'doc-1', 0, 'EntitiesCreated'),
      event(2, 'other', 0, STREAM_DELETED, { stream: 'doc-1', lastRevision: 0 }),
    ]);
    expect(catalog.streams['doc-1']?.events).toBe(1);
    expect(catalog.events).toBe(2);
  });

  it('survives a JSON round trip, as its snapshot does', () => {
    const catalog = fold([
      event(1, 'doc-1', 0, 'EntitiesCreated'),
      event(2, 'run-7', 0, 'RunStarted'),
      deleted(3, 0, 'run-7', 0),
    ]);
    const restored = JSON.parse(JSON.stringify(catalog)) as StreamCatalog;
    expect(restored).toEqual(catalog);
    expect(fold([event(4, 'doc-1', 1, 'EntitiesMoved')], restored)).toEqual(
      fold([event(4, 'doc-1', 1, 'EntitiesMoved')], catalog),
    );
  });
});
