import type { DocumentState } from '../../../projections/editor-session.js';
import type { Change } from '../../../streams/editor.js';
import { dictGet, dictHas } from '../dict.js';
import { MIN_WRITE_VERSION } from '../dxf/index.js';
import { fail } from '../errors.js';
import { formatHandle } from '../handles.js';
import type { Block, DxfDocumentModel, Layout, PageSetup } from '../model.js';
import { named, nameIn, sameName } from '../names.js';
import { findPaper, formatScale, parseOrientation, parsePaper, parseScale } from '../paper.js';
import { isObject, tableName } from '../request.js';
import {
  getSysvar,
  inHeaderOf,
  parseSysvarValue,
  SYSVARS,
  type SysvarContext,
  type SysvarDef,
  type SysvarValue,
  sysvarDefault,
  sysvarFromHeader,
  sysvarToHeader,
} from '../sysvars.js';
import { StepBuilder, stepEvent } from './steps.js';
import { docOf, type OpContext, type OpGroup, type OpOutcome } from './types.js';

const measurement = (model: DxfDocumentModel) =>
  model.header.$MEASUREMENT?.[0]?.value.trim() === '1' ? 'metric' : 'imperial';

/** Looks names up in the document's tables, as DXF compares them: case-insensitively. */
function recordsOf(model: DxfDocumentModel): SysvarContext {
  const named = (table: string, name: string) =>
    (dictGet(model.tables, table) ?? [])
      .map((r) => r.tags.find((t) => t.code === 2)?.value)
      .find((n) => n !== undefined && sameName(n, name));
  return {
    findRecord: (table, name) => {
      if (table === 'layer') return nameIn(model.layers, name);
      if (table === 'linetype')
        return ['BYLAYER', 'BYBLOCK'].includes(name.toUpperCase())
          ? name.toUpperCase()
          : named('LTYPE', name);
      return named('STYLE', name);
    },
  };
}

/** The version a save writes: the one read, but at least AC1015 (the writer's floor). */
const savedVersion = (model: DxfDocumentModel) =>
  model.version < MIN_WRITE_VERSION ? MIN_WRITE_VERSION : model.version;

/** A variable's value: from the header (or the active viewport), else the session's, else its default. */
function sysvarValue(doc: DocumentState, def: SysvarDef): SysvarValue {
  if (def.name === 'HANDSEED') return formatHandle(doc.model.handseed);
  if (def.name === 'ACADVER') return doc.model.version;
  if (def.header && inHeaderOf(def, savedVersion(doc.model))) {
    const fromHeader = sysvarFromHeader(def, dictGet(doc.model.header, def.header.variable));
    if (fromHeader !== undefined) return fromHeader;
  }
  return dictGet(doc.sysvars, def.name) ?? sysvarDefault(def, measurement(doc.model));
}

/**
 * `sysvar`: `get` names and `set` name -> value (neither: every variable's value). Header variables are written to the drawing's
 * header; viewport and session variables are kept with the document (they are not saved to DXF).
 * `values` is keyed by the names as the request gives them (`ltscale` stays `ltscale`), and `set`
 * echoes what was set under the lower-case names, as the reference editor answers.
 */
function sysvar(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  // Neither `get` nor `set`: every readable variable, by its lower-case name (the reference's spec, §6.7).
  const everything = ctx.request.get === undefined && ctx.request.set === undefined;
  const get = everything ? SYSVARS.map((def) => def.name.toLowerCase()) : (ctx.request.get ?? []);
  const set = ctx.request.set ?? {};
  if (!Array.isArray(get) || !get.every((n) => typeof n === 'string')) {
    return fail('invalid_sysvar_value', 'get must be an array of variable names');
  }
  if (!isObject(set)) return fail('invalid_sysvar_value', 'set must be an object of variable name to value');
  const values: Record<string, SysvarValue> = {};
  for (const name of get) {
    const def = getSysvar(name);
    values[name] = sysvarValue(doc, def);
  }
  const changes: Change[] = [];
  const applied: Record<string, SysvarValue> = {};
  const context = recordsOf(doc.model);
  for (const [name, raw] of Object.entries(set)) {
    const def = getSysvar(name);
    const value = parseSysvarValue(def, raw, context) as SysvarValue;
    values[name] = value;
    applied[name.toLowerCase()] = value;
    if (def.header && inHeaderOf(def, savedVersion(doc.model))) {
      const key = def.header.variable;
      changes.push({
        kind: 'header',
        key,
        before: dictGet(doc.model.header, key) ?? null,
        after: sysvarToHeader(def, value as never),
      });
    } else {
      changes.push({
        kind: 'sysvar',
        key: def.name,
        before: dictGet(doc.sysvars, def.name) ?? null,
        after: value,
      });
    }
  }
  const result = Object.keys(applied).length > 0 ? { values, set: applied } : { values };
  if (changes.length === 0) return { events: [], result };
  return { events: [stepEvent('SysvarsSet', doc, 'sysvar', changes, result)], result };
}

const layoutNames = (layouts: Record<string, Layout>) =>
  Object.values(layouts)
    .sort((a, b) => a.tab_order - b.tab_order)
    .map((l) => l.name);

/** A new paper space layout: its LAYOUT object and the `*Paper_SpaceN` block record it draws into. */
function layoutCreate(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  const name = tableName(ctx.request.name, 'name');
  const taken = nameIn(doc.model.layouts, name);
  if (taken) return fail('layout_exists', `layout ${taken} exists`);
  const step = new StepBuilder(doc.model);
  const [layoutHandle, recordHandle, beginHandle, endHandle] = step.handles(4) as [
    string,
    string,
    string,
    string,
  ];
  let n = 0;
  while (dictHas(doc.model.blocks, `*Paper_Space${n}`)) n += 1;
  const blockName = `*Paper_Space${n}`;
  const block: Block = {
    name: blockName,
    record_handle: recordHandle,
    block_handle: beginHandle,
    end_handle: endHandle,
    base: [0, 0, 0],
    layer: '0',
    flags: 0,
    entities: [],
  };
  const paper = findPaper(measurement(doc.model) === 'metric' ? 'ISO A4' : 'ANSI A');
  const layout: Layout = {
    name,
    handle: layoutHandle,
    block: blockName,
    tab_order: Math.max(0, ...Object.values(doc.model.layouts).map((l) => l.tab_order)) + 1,
    page_setup: {
      paper: paper?.media ?? 'ISO_A4_(210.00_x_297.00_MM)',
      orientation: 'landscape',
      fit: true,
      center: true,
      scale: [1, 1],
    },
  };
  step.push(
    { kind: 'block', key: blockName, before: null, after: block },
    { kind: 'layout', key: name, before: null, after: layout },
  );
  const result = { layout: name, layouts: [...layoutNames(doc.model.layouts), name] };
  return { events: [stepEvent('LayoutCreated', doc, 'layout_create', step.build(), result)], result };
}

function pageSetupSet(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  const name = typeof ctx.request.layout === 'string' ? ctx.request.layout : '';
  const layout = named(doc.model.layouts, name);
  if (!layout) return fail('layout_missing', `layout ${JSON.stringify(name)} does not exist`);
  const current = layout.page_setup;
  const r = ctx.request;
  const paper = r.paper === undefined ? undefined : parsePaper(r.paper);
  // A media name given (`ISO_A4_(210.00_x_297.00_MM)`) is kept as given; a short one (`A4`) becomes its media name.
  const media =
    paper && typeof r.paper === 'string' && r.paper.trim() !== paper.name && /_\(/.test(r.paper)
      ? r.paper.trim()
      : paper?.media;
  const setup: PageSetup = {
    ...current,
    ...(paper ? { paper: media as string, size: [paper.mm.width, paper.mm.height] as [number, number] } : {}),
    orientation: r.orientation === undefined ? current.orientation : parseOrientation(r.orientation),
    fit: r.fit === undefined ? current.fit : r.fit === true,
    center: r.center === undefined ? current.center : r.center === true,
    scale: r.scale === undefined ? current.scale : parseScale(r.scale),
  };
  if (r.scale !== undefined && r.fit === undefined) setup.fit = false;
  const after: Layout = { ...layout, page_setup: setup };
  const result = {
    layout: layout.name,
    paper: setup.paper,
    paper_name: findPaper(setup.paper)?.name ?? setup.paper,
    orientation: setup.orientation,
    center: setup.center,
    scale: {
      fit: setup.fit,
      numerator: setup.scale[0],
      denominator: setup.scale[1],
      ratio: setup.scale,
      text: formatScale(setup.scale),
    },
  };
  const change: Change = { kind: 'layout', key: layout.name, before: layout, after };
  return { events: [stepEvent('PageSetupSet', doc, 'page_setup_set', [change], result)], result };
}

export const settingsOps = {
  sysvar: { kind: 'mutation', document: 'required', run: sysvar },
  layout_create: { kind: 'mutation', document: 'required', run: layoutCreate },
  page_setup_set: { kind: 'mutation', document: 'required', run: pageSetupSet },
} satisfies OpGroup;
