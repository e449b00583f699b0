import { dictGet, dictWith } from '../dict.js';
import { fail } from '../errors.js';
import type { Entity, XdataItem } from '../model.js';
import { nameIn, nameInList } from '../names.js';
import { handleList, isObject, point, tableName } from '../request.js';
import { entitiesOf } from './entities.js';
import { StepBuilder, stepEvent } from './steps.js';
import { docOf, type OpContext, type OpGroup, type OpOutcome } from './types.js';

const XDATA_CODES = [1000, 1002, 1003, 1004, 1005, 1010, 1011, 1012, 1013, 1040, 1041, 1042, 1070, 1071];

/** One xdata item checked against what its group code may hold; `invalid_xdata` otherwise. */
function xdataItem(raw: unknown, i: number): XdataItem {
  const bad = (why: string): never => fail('invalid_xdata', `data[${i}]: ${why}, got ${JSON.stringify(raw)}`);
  if (!isObject(raw) || typeof raw.code !== 'number')
    return bad('each item needs a numeric code and a value');
  const { code, value } = raw;
  if (!XDATA_CODES.includes(code))
    return bad(`group code ${code} is not allowed (allowed: ${XDATA_CODES.join(', ')})`);
  if (code === 1000 || code === 1003) {
    if (typeof value !== 'string' || value.length > 255)
      return bad('a string of at most 255 characters is needed');
    return { code, value };
  }
  if (code === 1002) {
    if (value !== '{' && value !== '}') return bad('control string must be "{" or "}"');
    return { code, value };
  }
  if (code === 1004) {
    if (typeof value !== 'string' || !/^([0-9A-Fa-f]{2}){1,127}$/.test(value))
      return bad('binary data must be hex, 1 to 127 bytes');
    return { code, value: value.toUpperCase() };
  }
  if (code === 1005) {
    if (typeof value !== 'string' || !/^[0-9A-Fa-f]{1,16}$/.test(value))
      return bad('a handle (hex) is needed');
    return { code, value: value.toUpperCase() };
  }
  if (code >= 1010 && code <= 1013) return { code, value: point(value, `data[${i}].value`) };
  if (code >= 1040 && code <= 1042) {
    if (typeof value !== 'number' || !Number.isFinite(value)) return bad('a finite number is needed');
    return { code, value };
  }
  const [min, max] = code === 1070 ? [-32768, 32767] : [-2147483648, 2147483647];
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
    return bad(`an integer from ${min} to ${max} is needed`);
  }
  return { code, value: value as number };
}

function xdataSet(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  // No application, or an empty name, is a missing field, as the reference editor names it.
  if (ctx.request.app === undefined || ctx.request.app === null || ctx.request.app === '')
    return fail('app_required', 'xdata_set needs an application name (app)');
  // An application registered in another case is that application: its name as first registered.
  const given = tableName(ctx.request.app, 'app', 'invalid_xdata');
  const registered = nameInList(doc.model.appids, given);
  const app = registered ?? given;
  const data = ctx.request.data ?? [];
  if (!Array.isArray(data)) return fail('invalid_xdata', 'data must be an array of {code, value} items');
  const items = data.map(xdataItem);
  const step = new StepBuilder(doc.model);
  if (items.length > 0 && registered === undefined)
    step.push({ kind: 'appid', key: app, before: false, after: true });
  const handles = [...new Set(handleList(ctx.request.handles))];
  for (const entity of entitiesOf(doc, handles)) {
    // An entity may hold the application under another spelling (a file written elsewhere): that entry goes.
    const held = nameIn(entity.xdata, app);
    const rest = held !== undefined && held !== app ? dictWith(entity.xdata, held, null) : entity.xdata;
    const xdata = dictWith(rest, app, items.length === 0 ? null : items);
    const after: Entity = { ...entity, xdata };
    if (Object.keys(xdata).length === 0) delete after.xdata;
    step.push({ kind: 'entity', key: entity.handle, before: entity, after });
  }
  const result = {
    updated: handles.length,
    affected: handles.length,
    app,
    items: items.length,
    cleared: items.length === 0,
  };
  return { events: [stepEvent('XdataSet', doc, 'xdata_set', step.build(), result)], result };
}

/** An item's value as the reference editor answers it: binary chunks as `{ binary: "<hex>" }`, others as stored. */
const plainValue = (item: XdataItem): unknown => (item.code === 1004 ? { binary: item.value } : item.value);

/**
 * `xdata_get`: per entity, `xdata.<app>` is the list of the application's values in order (as the
 * reference editor answers it), and `data.<app>` the same items with their group codes.
 */
function xdataGet(ctx: OpContext): OpOutcome {
  const doc = docOf(ctx);
  const app = typeof ctx.request.app === 'string' && ctx.request.app !== '' ? ctx.request.app : undefined;
  const items = entitiesOf(doc, handleList(ctx.request.handles)).map((entity) => {
    const all = entity.xdata ?? {};
    // The application in any case, answered under the entity's spelling of it.
    const held = app === undefined ? undefined : nameIn(all, app);
    const data = app === undefined ? all : held !== undefined ? { [held]: dictGet(all, held) ?? [] } : {};
    const xdata = Object.fromEntries(
      Object.entries(data).map(([name, list]) => [name, list.map(plainValue)]),
    );
    return { handle: entity.handle, xdata, data };
  });
  return { events: [], fields: { items, count: items.length } };
}

export const xdataOps = {
  xdata_set: { kind: 'mutation', document: 'required', run: xdataSet },
  xdata_get: { kind: 'read', document: 'required', run: xdataGet },
} satisfies OpGroup;
