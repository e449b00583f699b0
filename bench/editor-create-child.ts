// One round of the editor benchmark's create, query, undo and close (bench/editor.ts), in a process of
// its own so that its RSS and peak RSS are of this round alone; prints its rows and ratios as JSON.
import { createQueryUndo } from './editor.js';
import type { BenchReport } from './report.js';

const rows: BenchReport['rows'] = [];
const ratios: BenchReport['ratios'] = {};
const created = await createQueryUndo(rows, ratios);
process.stdout.write(JSON.stringify({ rows, ratios, created }));
