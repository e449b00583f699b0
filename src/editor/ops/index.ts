import { capabilities, type EditorOp } from '../capabilities.js';
import { batchOps } from './batch.js';
import { blockOps } from './blocks.js';
import { captureOps } from './capture.js';
import { discoveryOps } from './discovery.js';
import { documentOps } from './documents.js';
import { entityOps } from './entities.js';
import { eventOps } from './events.js';
import { imageOps } from './images.js';
import { infoOps } from './info.js';
import { interactionOps } from './interaction.js';
import { plotOps } from './plot.js';
import { runOps } from './run.js';
import { selectionOps } from './selection.js';
import { settingsOps } from './settings.js';
import { spatialOps } from './spatial.js';
import type { OpDefinition, OpOutcome } from './types.js';
import { undoOps } from './undo.js';
import { wblockOps } from './wblock.js';
import { xdataOps } from './xdata.js';

/**
 * Every operation the dispatcher knows, by name: exactly the ops of `EDITOR_OPS` (each part of the table
 * names only those, and the whole names all of them), so its keys are `EditorOp`. The names are listed in
 * capabilities.ts, which gives their published order and which the ops import their limits from.
 */
export const editorOps = {
  // `capabilities` lists the protocol's ops that this dispatcher answers, and nothing it would refuse.
  capabilities: {
    kind: 'immediate',
    document: 'none',
    run: (ctx): OpOutcome => {
      const all = capabilities(ctx.version);
      const ops = all.ops.filter((op) => op in editorOps);
      // The reference editor's clients feature-detect with `operations.<op> === true` at the top level.
      const operations = Object.fromEntries(ops.map((op) => [op, true]));
      return { events: [], result: { ...all, ops, operations }, fields: { operations } };
    },
  },
  ...documentOps,
  ...entityOps,
  ...xdataOps,
  ...blockOps,
  ...selectionOps,
  ...settingsOps,
  ...spatialOps,
  ...undoOps,
  ...infoOps,
  ...interactionOps,
  ...eventOps,
  ...wblockOps,
  ...imageOps,
  ...runOps,
  ...batchOps,
  ...plotOps,
  ...captureOps,
  ...discoveryOps,
} satisfies Record<EditorOp, OpDefinition>;
