import { runAnswersBench } from './answers.js';
import { benchCapture } from './capture.js';
import { benchDeploys, benchDeploysEngine } from './deploys.js';
import { benchEditor } from './editor.js';
import { benchEditorHttp } from './editor-http.js';
import { runLogQueryBench } from './log-query.js';
import { benchReconcile } from './reconcile.js';
import { benchRedaction } from './redaction.js';
import { benchReplayRebuild } from './replay-rebuild.js';
import { benchReplayTimeTravel } from './replay-time-travel.js';
import { printReport } from './report.js';
import { benchSoak } from './soak.js';
import { benchStore } from './store.js';
import { benchStorePg } from './store-pg.js';
import { benchUi } from './ui.js';
import { benchViewer } from './viewer.js';

const benchmarks: Record<string, () => Promise<void>> = {
  store: benchStore,
  'store-pg': benchStorePg,
  editor: benchEditor,
  'editor-http': benchEditorHttp,
  capture: benchCapture,
  redaction: benchRedaction,
  deploys: benchDeploys,
  'deploys-engine': benchDeploysEngine,
  reconcile: benchReconcile,
  // Issue 15's soak: 50 deploys, 20 clients each (5 never read), a follower of every log; peak RSS.
  soak: benchSoak,
  // Issue 18: the stacks web page on a 200,000-line log, in Chromium.
  ui: benchUi,
  // The GUI-hosted editor's viewer: a change over REST until the viewer's stream shows it.
  viewer: benchViewer,
  'log-query': runLogQueryBench,
  // Issue 23: what checking answers against their schemas costs.
  answers: runAnswersBench,
  // Issue 8's benchmark: the rebuild of 1,000,000 editor events, then time travel; each half alone too.
  replay: async () => {
    printReport(await benchReplayRebuild());
    printReport(await benchReplayTimeTravel());
  },
  'replay-rebuild': async () => printReport(await benchReplayRebuild()),
  'replay-time-travel': async () => printReport(await benchReplayTimeTravel()),
};

const name = process.argv[2];
const run = name ? benchmarks[name] : undefined;
if (!run) {
  process.stderr.write(`usage: npm run bench -- <name>\nbenchmarks: ${Object.keys(benchmarks).join(', ')}\n`);
  process.exit(2);
}
await run();
