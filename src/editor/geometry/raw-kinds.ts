/**
 * The types kept as read (raw tags) whose geometry the editor still knows: each is drawn, bounded and
 * queried through stand-ins — entities of the modeled types that draw what it draws (an ATTDEF its
 * text, a DIMENSION its geometry block) — and transformed on its own tags, by its own file.
 */
import type { Entity, LineEntity, LwPolylineEntity, RawEntity, TextEntity } from '../model.js';
import { attdefText, transformAttdef } from './attdef.js';
import { dimensionStandIn, transformDimension } from './dimension.js';
import { hatchGeometry, patternSegments, transformHatch } from './hatch.js';
import { helixSpline, transformHelix } from './helix.js';
import { leaderStandIns, transformLeader } from './leader.js';
import type { Matrix, Similarity } from './matrix.js';
import { meshEdges, transformMesh } from './mesh.js';
import { mleaderStandIns, transformMLeader } from './mleader.js';
import { type MlineStyle, mlineEntities, mlineLines, transformMline, transformMlineAlone } from './mline.js';
import { standInCommon } from './raw-tags.js';
import { shapeBox, transformShapeEntity } from './shape-entity.js';
import { tableStandIn, transformTable } from './table.js';
import { type DimSizes, toleranceStandIns, toleranceStyle, transformTolerance } from './tolerance.js';
import { viewportFrame } from './viewport.js';
import { transformWipeout, wipeoutOutline } from './wipeout.js';

/** What a raw type's transform needs: the matrix, its similarity, and the modeled types' transforms. */
interface RawTransformTools {
  m: Matrix;
  sim: Similarity;
  text(t: TextEntity): TextEntity;
  /** The MLINESTYLE an MLINE names in its drawing (none: it moves by its stored geometry alone). */
  mlineStyle?: (e: RawEntity) => MlineStyle;
}

/** What a raw type may look up beyond its own tags: a dimension style's sizes, a block's name by its block record's handle. */
interface RawLookup {
  blockName?(recordHandle: string): string | undefined;
  /** The sizes a dimension style gives (a TOLERANCE's text height). */
  dimSizes?(style: string): DimSizes;
  /** A dimension style's value of a group code, else the header variable's (a LEADER's arrowhead size). */
  dimStyleValue?(style: string, code: number, header?: string): string | undefined;
  /** The MLINESTYLE an MLINE names (its caps and miters are part of what it covers). */
  mlineStyle?(e: RawEntity): MlineStyle;
}

interface RawKind {
  /**
   * The modeled entities that stand for it, in its own space (`inBlock`: a part of a block being drawn);
   * none when it shows nothing there, undefined when its tags cannot be read that way (then its point
   * codes bound it, as for any raw entity).
   */
  standIns(e: RawEntity, inBlock: boolean, lookup?: RawLookup): Entity[] | undefined;
  /** What the plot draws of it, when that is not its stand-ins (a hatch's pattern strokes). */
  drawn?(e: RawEntity): Entity[] | undefined;
  /** How it moves; none for a type drawn and bounded but never moved (set apart as not_transformable). */
  transform?(e: RawEntity, tools: RawTransformTools): RawEntity;
}

const KINDS: Record<string, RawKind> = {
  ATTDEF: {
    standIns(e, inBlock) {
      const text = inBlock ? undefined : attdefText(e);
      return text ? [text] : [];
    },
    transform: (e, tools) => transformAttdef(e, tools.text),
  },
  DIMENSION: {
    standIns(e) {
      const insert = dimensionStandIn(e);
      return insert ? [insert] : [];
    },
    transform: (e, tools) => transformDimension(e, tools.m, tools.sim),
  },
  LEADER: {
    standIns: (e, _inBlock, lookup) => leaderStandIns(e, lookup),
    transform: (e, tools) => transformLeader(e, tools.m),
  },
  HATCH: {
    standIns: (e) => hatchOutlines(e),
    drawn: (e) => hatchDrawn(e),
    transform: (e, tools) => transformHatch(e, tools.m, tools.sim),
  },
  MULTILEADER: {
    standIns: (e, _inBlock, lookup) => mleaderStandIns(e, lookup?.blockName),
    transform: (e, tools) => transformMLeader(e, tools.m),
  },
  TOLERANCE: {
    standIns: (e, _inBlock, lookup) => toleranceStandIns(e, lookup?.dimSizes?.(toleranceStyle(e))),
    transform: (e, tools) => transformTolerance(e, tools.m),
  },
  ACAD_TABLE: {
    standIns(e) {
      const insert = tableStandIn(e);
      return insert ? [insert] : [];
    },
    transform: (e, tools) => transformTable(e, tools.m),
  },
  SHAPE: {
    standIns: (e) => shapeBox(e),
    transform: (e, tools) => transformShapeEntity(e, tools.m),
  },
  MESH: {
    standIns: (e) => meshEdges(e),
    transform: (e, tools) => transformMesh(e, tools.m),
  },
  VIEWPORT: {
    standIns: (e) => viewportFrame(e),
  },
  MLINE: {
    // With its style: its elements, miters and caps; without, its stored elements alone.
    standIns: (e, _inBlock, lookup) =>
      lookup?.mlineStyle ? mlineEntities(e, lookup.mlineStyle(e)).entities : mlineLines(e),
    transform: (e, tools) =>
      tools.mlineStyle ? transformMline(e, tools.m, tools.mlineStyle(e)) : transformMlineAlone(e, tools.m),
  },
  WIPEOUT: {
    standIns: (e) => wipeoutOutline(e),
    transform: (e, tools) => transformWipeout(e, tools.m),
  },
  HELIX: {
    standIns(e) {
      const spline = helixSpline(e);
      return spline ? [spline] : undefined;
    },
    transform: (e, tools) => transformHelix(e, tools.m),
  },
};

// MLEADER is the same entity by another name (ezdxf reads both).
KINDS.MLEADER = KINDS.MULTILEADER as RawKind;

/** A hatch's loops as closed polylines (its stand-ins for bounds, nearness and containment). */
function hatchOutlines(e: RawEntity): Entity[] | undefined {
  const g = hatchGeometry(e);
  if (g.loops.length === 0) return undefined;
  return g.loops.map(
    (loop): LwPolylineEntity => ({
      type: 'LwPolyline',
      ...standInCommon(e),
      closed: true,
      elevation: g.elevation,
      vertices: loop.map(([x, y]) => ({ x, y, bulge: 0 })),
    }),
  );
}

/**
 * What a hatch draws: a pattern's strokes cut at its loops, each a Line in the hatch's colour; a solid
 * fill its loops (painted where the plot paints outlines, drawn as outlines elsewhere).
 */
function hatchDrawn(e: RawEntity): Entity[] | undefined {
  const g = hatchGeometry(e);
  if (g.solid || g.pattern.length === 0) return hatchOutlines(e);
  const { handle, space, layer, color, lineweight } = e;
  return patternSegments(g).map(
    ([a, b]): LineEntity => ({
      type: 'Line',
      handle,
      space,
      layer,
      color,
      // The pattern's dashes are its own: the strokes are continuous.
      linetype: 'CONTINUOUS',
      lineweight,
      start: [a[0], a[1], g.elevation],
      end: [b[0], b[1], g.elevation],
    }),
  );
}

function kindOf(e: RawEntity): RawKind | undefined {
  const type = e.dxf_type.toUpperCase();
  return Object.hasOwn(KINDS, type) ? KINDS[type] : undefined;
}

/** Whether a raw entity's type is one the geometry knows (so it is drawn from stand-ins and moves). */
export const isKnownRaw = (e: RawEntity) => kindOf(e) !== undefined;

/** Whether a raw entity's type is one that moves (its kind has a transform). */
export const isTransformableRaw = (e: RawEntity) => kindOf(e)?.transform !== undefined;

/** The stand-ins of a raw entity; undefined for a type the geometry does not know. */
export function rawStandIns(e: RawEntity, inBlock = false, lookup?: RawLookup): Entity[] | undefined {
  return kindOf(e)?.standIns(e, inBlock, lookup);
}

/** What the plot draws of a raw entity; undefined for a type the geometry does not know. */
export function rawDrawn(e: RawEntity, inBlock = false, lookup?: RawLookup): Entity[] | undefined {
  const kind = kindOf(e);
  if (!kind) return undefined;
  return kind.drawn ? kind.drawn(e) : kind.standIns(e, inBlock, lookup);
}

/** The raw entity transformed; undefined for a type the geometry does not know. */
export function transformRaw(e: RawEntity, tools: RawTransformTools): RawEntity | undefined {
  return kindOf(e)?.transform?.(e, tools);
}
