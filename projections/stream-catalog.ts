import type { Json, RecordedEvent } from '../src/store/types.js';
import { STREAM_DELETED, type StreamDeletedData, SYSTEM_STREAM } from '../streams/system.js';
import type { Projection } from './projection.js';

interface StreamSummary {
  events: number;
  firstPosition: number;
  lastPosition: number;
  lastRevision: number;
  lastType: string;
  lastAt: string;
}

/**
 * Every live stream of the log with its size and last event: the index of the audit trail. `streams`
 * has no prototype: stream names are the log's (an imported log may hold any), and a stream named
 * `constructor` or `__proto__` must be a key like any other.
 */
export interface StreamCatalog {
  events: number;
  streams: Record<string, StreamSummary>;
}

const byName = (entries: Iterable<[string, StreamSummary]> = []): Record<string, StreamSummary> => {
  const streams: Record<string, StreamSummary> = Object.create(null);
  for (const [name, summary] of entries) streams[name] = summary;
  return streams;
};

export const streamCatalog: Projection<StreamCatalog> = {
  name: 'stream-catalog',
  version: 1,
  initial: () => ({ events: 0, streams: byName() }),
  evolve(catalog, event: RecordedEvent) {
    catalog.events += 1;
    if (event.stream === SYSTEM_STREAM && event.type === STREAM_DELETED) {
      const deleted = catalog.streams[(event.data as StreamDeletedData).stream];
      if (deleted) {
        catalog.events -= deleted.events;
        delete catalog.streams[(event.data as StreamDeletedData).stream];
      }
    }
    const summary = catalog.streams[event.stream];
    if (summary) {
      summary.events += 1;
      summary.lastPosition = event.position;
      summary.lastRevision = event.revision;
      summary.lastType = event.type;
      summary.lastAt = event.metadata.at;
    } else {
      catalog.streams[event.stream] = {
        events: 1,
        firstPosition: event.position,
        lastPosition: event.position,
        lastRevision: event.revision,
        lastType: event.type,
        lastAt: event.metadata.at,
      };
    }
    return catalog;
  },
  snapshot: {
    save: (catalog) => catalog as unknown as Json,
    // Parsed JSON holds `__proto__` as an own key; copied into an object without a prototype again.
    load: (json) => {
      const saved = json as unknown as StreamCatalog;
      return { events: saved.events, streams: byName(Object.entries(saved.streams)) };
    },
  },
};
