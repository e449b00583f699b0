// One measured pass over an existing LevelDB log, in a process of its own so that its peak RSS is its own:
// `rebuild` = `chronicle rebuild editor-models`'s path (rebuildProjection over the store), `raw` = a
// classic-level iterator over the same event records with JSON.parse of each, the floor of any replay.
import { Level } from 'level';
import { editorModels } from '../projections/editor-models.js';
import { rebuildProjection } from '../projections/rebuild.js';
import { openStore } from '../src/store/open.js';
import { ownPeakRssMb } from './process-usage.js';

const [mode, dir] = process.argv.slice(2);
if ((mode !== 'rebuild' && mode !== 'raw') || !dir)
  throw new Error('usage: replay-rebuild-child rebuild|raw <level dir>');

let events = 0;
let seconds = 0;
let sessions = 0;
let entities = 0;
if (mode === 'rebuild') {
  const store = await openStore(`level:${dir}`);
  // Each session's read model as the replay finishes it (it holds one at a time): counted, then let go.
  const result = await rebuildProjection(store, editorModels, undefined, 10_000, {
    onPart: (_stream, part) => {
      for (const session of Object.values(part)) {
        sessions += 1;
        for (const doc of Object.values(session.documents))
          entities += Object.keys(doc.model.entities).length;
      }
    },
  });
  await store.close();
  events = result.events;
  seconds = result.seconds;
} else {
  const db = new Level<string, string>(dir);
  await db.open();
  const iterator = db.iterator({ gte: 'e:', lt: 'e;' });
  const t0 = performance.now();
  for (;;) {
    const entries = await iterator.nextv(1_000);
    if (entries.length === 0) break;
    for (const [, value] of entries) {
      JSON.parse(value);
      events += 1;
    }
  }
  seconds = (performance.now() - t0) / 1000;
  await iterator.close();
  await db.close();
}
process.stdout.write(
  JSON.stringify({
    events,
    seconds,
    eventsPerSecond: events / seconds,
    sessions,
    entities,
    peakRssMb: ownPeakRssMb(),
  }),
);
