import { runAnswersBench } from './answers.js';
import { benchCapture } from './capture.js';
import { benchDeploys, benchDeploysEngine } from './deploys.js';
import { benchDrawings } from './drawings.js';
import { benchEditor } from './editor.js';
import { benchEditorHttp } from './editor-http.js';
import { runLogQueryBench } from './log-query.js';
import { benchReconcile } from './reconcile.js';
import { benchRedaction } from './redaction.js';
import { benchReplayRebuild } from './replay-rebuild.js';
import { benchReplayTimeTravel } from './replay-time-travel.js';
import { missedTargets, printReport } from './report.js';
import { benchSoak } from './soak.js';
import { benchStore } from './store.js';
import { benchStorePg } from './store-pg.js';
import { benchUi } from './ui.js';
import { benchUiEngine } from './ui-engine.js';
import { benchViewer } from './viewer.js';

const benchmarks: Record<string, () => Promise<void>> = {
  store: benchStore,
  'store-pg': benchStorePg,
  editor: benchEditor,
  'editor-http': benchEditorHttp,
  capture: benchCapture,
  // The corpus's largest real drawings, against ezdxf doing the same work in the same run.
  drawings: benchDrawings,
  redaction: benchRedaction,
  deploys: benchDeploys,
  'deploys-engine': benchDeploysEngine,
  reconcile: benchReconcile,
  // The soak: 50 deploys, 20 clients each (5 never read), a follower of every log; peak RSS.
  soak: benchSoak,
  // The stacks web page on a 200,000-line log, in Chromium.
  ui: benchUi,
  // Its real-engine rows alone (docker stop to the page, a container's log, 20 stacks live).
  'ui-engine': async () => printReport(await benchUiEngine()),
  // The GUI-hosted editor's viewer: a change over REST until the viewer's stream shows it.
  viewer: benchViewer,
  'log-query': runLogQueryBench,
  // What checking answers against their schemas costs.
  answers: runAnswersBench,
  // The replay benchmark: the rebuild of 1,000,000 editor events, then time travel; each half alone too.
  replay: async () => {
    printReport(await benchReplayRebuild());
    printReport(await benchReplayTimeTravel());
  },
  'replay-rebuild': async () => printReport(await benchReplayRebuild()),
  'replay-time-travel': async () => printReport(await benchReplayTimeTravel()),
};

/** Parts of another benchmark, run by it: `npm run bench` alone does not run them again. */
const PARTS = new Set(['deploys-engine', 'ui-engine', 'replay-rebuild', 'replay-time-travel']);

const name = process.argv[2];
if (name === undefined) {
  // Every benchmark in turn (about an hour on a 2-core machine), then every target missed.
  const failed: string[] = [];
  for (const [each, run] of Object.entries(benchmarks)) {
    if (PARTS.has(each)) continue;
    process.stdout.write(`\n=== npm run bench -- ${each}\n`);
    try {
      await run();
    } catch (error) {
      failed.push(`${each}: ${error instanceof Error ? error.message : String(error)}`);
      process.stderr.write(`benchmark ${each} failed: ${error instanceof Error ? error.stack : error}\n`);
    }
  }
  console.log('\n=== summary');
  console.log(
    missedTargets.length === 0 ? 'every target met' : `targets missed:\n  ${missedTargets.join('\n  ')}`,
  );
  if (failed.length > 0) console.log(`benchmarks that failed:\n  ${failed.join('\n  ')}`);
  process.exit(failed.length > 0 ? 1 : 0);
}
const run = benchmarks[name];
if (!run) {
  process.stderr.write(
    `usage: npm run bench [-- <name>]  (no name: every benchmark in turn)\nbenchmarks: ${Object.keys(benchmarks).join(', ')}\n`,
  );
  process.exit(2);
}
await run();
