import type { DxfTag, Layout, PageSetup } from '../model.js';
import type { TagWriter } from './tag-writer.js';
import { formatInt, formatReal, normalizeHandle, toInt, toNumber } from './values.js';

/** PLOTSETTINGS flag bits (group code 70 of AcDbPlotSettings). */
const PLOT_CENTERED = 4;
const USE_STANDARD_SCALE = 16;
/** Standard scale type 0 is "Scaled to Fit". */
const SCALED_TO_FIT = 0;

/** Paper width and height in mm from a name such as `ISO_A4_(210.00_x_297.00_MM)` or `ANSI_A_(8.50_x_11.00_Inches)`. */
function paperSizeFromName(name: string): [number, number] | undefined {
  const m = /\((\d+(?:\.\d+)?)_x_(\d+(?:\.\d+)?)_(MM|Inches)\)/i.exec(name);
  if (!m) return undefined;
  const factor = (m[3] as string).toLowerCase() === 'mm' ? 1 : 25.4;
  const mm = (x: string | undefined) => Math.round(Number(x) * factor * 1e6) / 1e6;
  return [mm(m[1]), mm(m[2])];
}

export const DEFAULT_PAGE_SETUP: PageSetup = {
  paper: 'ISO_A3_(420.00_x_297.00_MM)',
  orientation: 'landscape',
  fit: false,
  center: false,
  scale: [1, 1],
  size: [420, 297],
};

interface PlotFields {
  paper: string;
  width: number;
  height: number;
  flags: number;
  rotation: number;
  standardScale: number;
  numerator: number;
  denominator: number;
}

function pageSetupOf(f: PlotFields): PageSetup {
  const turned = f.rotation === 1 || f.rotation === 3;
  const [w, h] = turned ? [f.height, f.width] : [f.width, f.height];
  return {
    paper: f.paper,
    orientation: w >= h ? 'landscape' : 'portrait',
    fit: (f.flags & USE_STANDARD_SCALE) !== 0 && f.standardScale === SCALED_TO_FIT,
    center: (f.flags & PLOT_CENTERED) !== 0,
    scale: [f.numerator, f.denominator],
    size: [f.width, f.height],
  };
}

/** The plot settings a page setup stands for, starting from what the layout had (`was`). */
function plotFieldsOf(p: PageSetup, was: PlotFields): PlotFields {
  const [width, height] = p.size ?? paperSizeFromName(p.paper) ?? [was.width, was.height];
  const landscape = p.orientation === 'landscape';
  const wasTurned = was.rotation === 1 || was.rotation === 3;
  const unturnedLandscape = width >= height;
  let rotation = was.rotation;
  if ((unturnedLandscape !== landscape) !== wasTurned) rotation = wasTurned ? 0 : 1;
  let flags = p.center ? was.flags | PLOT_CENTERED : was.flags & ~PLOT_CENTERED;
  let standardScale = was.standardScale;
  if (p.fit) {
    flags |= USE_STANDARD_SCALE;
    standardScale = SCALED_TO_FIT;
  } else if (standardScale === SCALED_TO_FIT) {
    flags &= ~USE_STANDARD_SCALE;
    standardScale = 16;
  }
  return {
    paper: p.paper,
    width,
    height,
    flags,
    rotation,
    standardScale,
    numerator: p.scale[0],
    denominator: p.scale[1],
  };
}

interface ReadLayout {
  layout: Layout;
  /** Handle of its block record (resolved to a block name once the tables are read). */
  blockRecord: string;
}

function readPlotFields(tags: readonly DxfTag[], decode: (s: string) => string): PlotFields {
  const f: PlotFields = {
    paper: '',
    width: 0,
    height: 0,
    flags: 0,
    rotation: 0,
    standardScale: 16,
    numerator: 1,
    denominator: 1,
  };
  let subclass = '';
  for (const { code, value } of tags) {
    if (code === 100) subclass = value;
    else if (subclass !== 'AcDbPlotSettings') continue;
    else if (code === 4) f.paper = decode(value);
    else if (code === 44) f.width = toNumber(value);
    else if (code === 45) f.height = toNumber(value);
    else if (code === 70) f.flags = toInt(value);
    else if (code === 73) f.rotation = toInt(value);
    else if (code === 75) f.standardScale = toInt(value);
    else if (code === 142) f.numerator = toNumber(value);
    else if (code === 143) f.denominator = toNumber(value);
  }
  return f;
}

/** Reads a LAYOUT object from its tags (after `0 LAYOUT`). */
export function readLayout(tags: DxfTag[], decode: (s: string) => string): ReadLayout {
  let subclass = '';
  let handle = '';
  let name = '';
  let tabOrder = 0;
  let blockRecord = '0';
  for (const { code, value } of tags) {
    if (code === 100) subclass = value;
    else if (code === 5 && !subclass) handle = normalizeHandle(value);
    else if (subclass === 'AcDbLayout') {
      if (code === 1) name = decode(value);
      else if (code === 71) tabOrder = toInt(value);
      else if (code === 330) blockRecord = normalizeHandle(value);
    }
  }
  const page_setup = pageSetupOf(readPlotFields(tags, decode));
  return { layout: { name, handle, block: '', tab_order: tabOrder, page_setup, extra: tags }, blockRecord };
}

/** The tags ezdxf gives a new layout, page setup fields filled in from the model on write. */
function defaultLayoutTags(model: boolean): DxfTag[] {
  const t = (code: number, value: string): DxfTag => ({ code, value });
  return [
    t(5, '0'),
    t(330, '0'),
    t(100, 'AcDbPlotSettings'),
    t(1, ''),
    t(2, 'none_device'),
    t(4, ''),
    t(6, ''),
    t(40, '7.5'),
    t(41, '20.0'),
    t(42, '7.5'),
    t(43, '20.0'),
    t(44, '420.0'),
    t(45, '297.0'),
    t(46, '0.0'),
    t(47, '0.0'),
    t(48, '0.0'),
    t(49, '0.0'),
    t(140, '0.0'),
    t(141, '0.0'),
    t(142, '1.0'),
    t(143, '1.0'),
    t(70, model ? '1024' : '0'),
    t(72, '1'),
    t(73, '0'),
    t(74, '5'),
    t(7, ''),
    t(75, '16'),
    t(76, '0'),
    t(77, '2'),
    t(78, '300'),
    t(147, '1.0'),
    t(148, '0.0'),
    t(149, '0.0'),
    t(100, 'AcDbLayout'),
    t(1, ''),
    t(70, '1'),
    t(71, '0'),
    t(10, '0.0'),
    t(20, '0.0'),
    t(11, '420.0'),
    t(21, '297.0'),
    t(12, '0.0'),
    t(22, '0.0'),
    t(32, '0.0'),
    t(14, '1e+20'),
    t(24, '1e+20'),
    t(34, '1e+20'),
    t(15, '-1e+20'),
    t(25, '-1e+20'),
    t(35, '-1e+20'),
    t(146, '0.0'),
    t(13, '0.0'),
    t(23, '0.0'),
    t(33, '0.0'),
    t(16, '1.0'),
    t(26, '0.0'),
    t(36, '0.0'),
    t(17, '0.0'),
    t(27, '1.0'),
    t(37, '0.0'),
    t(76, '1'),
    t(330, '0'),
  ];
}

/**
 * Writes a LAYOUT object: its tags as read (or ezdxf's defaults for a new layout) with handle, owner,
 * name, tab order, block record and the page setup written from the model.
 */
export function writeLayout(w: TagWriter, layout: Layout, owner: string, blockRecord: string): void {
  const tags = layout.extra ?? defaultLayoutTags(layout.block.toUpperCase() === '*MODEL_SPACE');
  const f = plotFieldsOf(
    layout.page_setup,
    readPlotFields(tags, (s) => s),
  );
  const plot = new Map<number, string>([
    [4, f.paper],
    [44, formatReal(f.width)],
    [45, formatReal(f.height)],
    [70, formatInt(f.flags)],
    [73, formatInt(f.rotation)],
    [75, formatInt(f.standardScale)],
    [142, formatReal(f.numerator)],
    [143, formatReal(f.denominator)],
  ]);
  const own = new Map<number, string>([
    [1, layout.name],
    [71, formatInt(layout.tab_order)],
    [330, blockRecord],
  ]);
  w.tag(0, 'LAYOUT');
  let subclass = '';
  let ownerDone = false;
  let inGroup = false;
  let pending: Map<number, string> | undefined;
  const flush = () => {
    if (pending) for (const [code, value] of pending) w.tag(code, value);
    pending = undefined;
  };
  for (const { code, value } of tags) {
    if (code === 102) inGroup = value.startsWith('{');
    if (code === 100) {
      flush();
      subclass = value;
      if (value === 'AcDbPlotSettings') pending = new Map(plot);
      else if (value === 'AcDbLayout') pending = new Map(own);
      w.tag(code, value);
      continue;
    }
    if (!subclass && code === 5) {
      w.tag(5, layout.handle);
    } else if (!subclass && code === 330 && !inGroup && !ownerDone) {
      ownerDone = true;
      w.tag(330, owner);
    } else if (pending?.has(code)) {
      w.tag(code, pending.get(code) as string);
      pending.delete(code);
    } else if (code >= 1000) {
      flush();
      w.tag(code, value);
    } else {
      w.tag(code, value);
    }
  }
  flush();
}
