import { benchDeploys } from './deploys.js';
import { benchEditor } from './editor.js';
import { benchEditorHttp } from './editor-http.js';
import { benchRedaction } from './redaction.js';
import { benchReplayRebuild } from './replay-rebuild.js';
import { printReport } from './report.js';
import { benchStore } from './store.js';

const benchmarks: Record<string, () => Promise<void>> = {
  store: benchStore,
  editor: benchEditor,
  'editor-http': benchEditorHttp,
  redaction: benchRedaction,
  deploys: benchDeploys,
  'replay-rebuild': async () => printReport(await benchReplayRebuild()),
};

const name = process.argv[2];
const run = name ? benchmarks[name] : undefined;
if (!run) {
  process.stderr.write(`usage: npm run bench -- <name>\nbenchmarks: ${Object.keys(benchmarks).join(', ')}\n`);
  process.exit(2);
}
await run();
