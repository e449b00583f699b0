// Runs one rebuild of the stream catalog over an existing store and prints its numbers as JSON.
// A process of its own, so that the peak RSS measured is the rebuild's and not the benchmark's.
import { rebuildProjection } from '../projections/rebuild.js';
import { streamCatalog } from '../projections/stream-catalog.js';
import { openStore } from '../src/store/open.js';
import { ownPeakRssMb } from './process-usage.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: rebuild-child <level dir>');
const store = await openStore(`level:${dir}`);
const result = await rebuildProjection(store, streamCatalog);
await store.close();
process.stdout.write(
  JSON.stringify({
    events: result.events,
    seconds: result.seconds,
    eventsPerSecond: result.events / result.seconds,
    peakRssMb: ownPeakRssMb(),
  }),
);
