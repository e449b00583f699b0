import type { EditorOp } from '../../editor/capabilities.js';
import { splitList } from '../query-string.js';

/** What a route handler sees of a request: path parameters, decoded query values and the JSON body. */
export interface RouteInput {
  params: Record<string, string>;
  query: Record<string, string>;
  /** The body as parsed: any JSON value, or undefined when missing or not JSON. */
  body: unknown;
  /** The request's `Origin` header (a browser's page sent it), undefined when it has none. */
  origin?: string | undefined;
}

/** The body as the spec reads it for most routes: an object, else `{}`. */
export const bodyObject = (input: RouteInput): Record<string, unknown> =>
  typeof input.body === 'object' && input.body !== null && !Array.isArray(input.body)
    ? (input.body as Record<string, unknown>)
    : {};

/**
 * A row of the endpoint table. `mutate` runs through the mutation wrapper; `run` sends the built
 * request as it is. `build` returns the op and the caller's fields (copied over the envelope).
 */
export interface EditorRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path under /api/v1, with `:name` parameters. */
  path: string;
  /** `capture` runs the capture op and answers its PNG (app.ts). */
  kind: 'mutate' | 'run' | 'ready' | 'openapi' | 'capture';
  status: 200 | 201;
  summary: string;
  /** Query parameters the route reads, for the OpenAPI description. */
  queryParams?: readonly string[];
  /** The request body the route reads, for the OpenAPI description. */
  body?: 'object' | 'xdata-items' | 'none';
  /** The fields of a successful answer worth naming, for the OpenAPI description. */
  answer?: string;
  /** The OpenAPI description instead of the generated `Mutate op …` / `Run op …`. */
  describe?: string;
  /** A success answer that is not JSON, for the OpenAPI description. */
  produces?: 'image/png';
  /** `run: true` runs this request as is although the route is `mutate` (POST /documents with a path). */
  build: (input: RouteInput) => { op: string; fields: Record<string, unknown>; run?: boolean };
}

const isUnsigned = (s: string) => /^\d+$/.test(s);
const truthy = (v: string | undefined) => v === 'true' || v === '1';
const numbers = (v: string) =>
  splitList(v)
    .map((s) => (s.trim() === '' ? Number.NaN : Number(s)))
    .filter((n) => Number.isFinite(n));

/** GET /entities: each parameter forwarded as the spec's table says (`where` is parsed by the caller). */
export function entitiesQuery(query: Record<string, string>, where: unknown): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const name of ['type', 'layer', 'detail', 'offset', 'limit'] as const) {
    if (query[name] !== undefined) fields[name] = query[name];
  }
  for (const name of ['fields', 'handles', 'intersections'] as const) {
    if (query[name] !== undefined) fields[name] = splitList(query[name] as string);
  }
  if (query.bounds !== undefined) {
    const parts = splitList(query.bounds);
    const box = parts.map((s) => (s.trim() === '' ? Number.NaN : Number(s)));
    if (parts.length === 4 && box.every((n) => Number.isFinite(n))) fields.bounds = box;
  }
  if (query.near !== undefined) fields.near = numbers(query.near);
  if (query.contains_point !== undefined) fields.contains_point = numbers(query.contains_point);
  if (where !== undefined) fields.where = where;
  return fields;
}

/** The query parameters of `GET /entities` (and of the audit route answering it as of a revision). */
export const ENTITY_QUERY_PARAMS = [
  'type',
  'layer',
  'detail',
  'offset',
  'limit',
  'fields',
  'handles',
  'bounds',
  'near',
  'contains_point',
  'intersections',
  'where',
] as const;

const op = (name: string, fields: Record<string, unknown> = {}) => ({ op: name, fields });

/** POST /documents per the spec: Mutate `new` with a template, else *Run* `open` with a path, else `new`. */
function newOrOpen(body: Record<string, unknown>): ReturnType<EditorRoute['build']> {
  if (typeof body.template === 'string') return op('new', { template: body.template });
  if (typeof body.path === 'string') {
    const recover = body.recover === undefined ? {} : { recover: body.recover };
    return { ...op('open', { path: body.path, ...recover }), run: true };
  }
  return op('new');
}

/** The endpoint table of spec/editor-rest-api.md, in its order. Specific routes win over `/:op`. */
export const editorRoutes: readonly EditorRoute[] = [
  {
    method: 'GET',
    path: '/ready',
    kind: 'ready',
    status: 200,
    summary: 'Readiness: version, session, active document',
    build: () => op('state'),
  },
  {
    method: 'GET',
    path: '/',
    kind: 'ready',
    status: 200,
    summary: 'Readiness (same as /ready)',
    build: () => op('state'),
  },
  {
    method: 'GET',
    path: '/capabilities',
    kind: 'run',
    status: 200,
    summary: 'Ops, entity types, query operators, limits',
    answer:
      '`operations` (op name -> true, at the top level), and in `result` the ops, entity types, query operators, transform actions, limits, papers and system variables.',
    build: () => op('capabilities'),
  },
  {
    method: 'GET',
    path: '/state',
    kind: 'run',
    status: 200,
    summary: 'Session state',
    answer:
      'The session state at the top level — `document_id`, `session_id`, `version`, `protocol`, `mode`, `revision`, `hand_seed`, `documents[]` (`id`, `title`, `path`, `dirty`, `revision`), `selection` (handles in pick order), `operation` (request id or null) — and the same under `state`.',
    build: () => op('state'),
  },
  {
    method: 'GET',
    path: '/documents',
    kind: 'run',
    status: 200,
    summary: 'Session state (open documents)',
    answer: 'As GET /state: the open documents in `documents[]`, the active one in `document_id`.',
    build: () => op('state'),
  },
  {
    method: 'POST',
    path: '/documents',
    kind: 'mutate',
    status: 201,
    summary: 'New document (template), open a DXF (path), or a blank new document',
    answer:
      '`document_id` of the new or opened document; from a template `result.total` counts the entities it brought in. An open answers its entity summary (`entities`, `by_type`, `layers`, `blocks`), `format` (`ascii` or `binary` DXF) and `recovered` (what recover mode repaired: no EOF, data after it, a section without ENDSEC; `recover: false` refuses such a file with `dxf_truncated` or `dxf_invalid`). A DWG file (AC10xx) is refused with `unsupported_format`.',
    body: 'object',
    build: (input) => newOrOpen(bodyObject(input)),
  },
  {
    method: 'DELETE',
    path: '/documents/:document_id',
    kind: 'mutate',
    status: 200,
    summary: 'Close a document',
    answer:
      '`result.closed: true`, `closed_document_id`, `documents_before`, `documents_after`; closing the last document opens a blank one (`opened_document_id`). Unsaved changes without `discard`: `document_dirty`.',
    queryParams: ['discard'],
    build: (input) => {
      const id = input.params.document_id ?? '';
      return op('close', {
        ...(isUnsigned(id) ? { document_id: Number(id) } : {}),
        ...(truthy(input.query.discard) ? { discard: true } : {}),
      });
    },
  },
  {
    method: 'GET',
    path: '/sysvars',
    kind: 'mutate',
    status: 200,
    summary: 'Read system variables',
    answer:
      '`result.values`, keyed by the names as asked; without `names`, every variable by its lower-case name.',
    queryParams: ['names'],
    build: (input) =>
      op('sysvar', input.query.names === undefined ? {} : { get: splitList(input.query.names) }),
  },
  {
    method: 'POST',
    path: '/sysvars',
    kind: 'mutate',
    status: 200,
    summary: 'Get and set system variables',
    answer:
      '`result.values` and `result.set` (lower-case names); `unknown_sysvar`, `invalid_sysvar_value` (`clayer` only takes an existing layer).',
    body: 'object',
    build: (input) => op('sysvar', bodyObject(input)),
  },
  {
    method: 'POST',
    path: '/layouts',
    kind: 'mutate',
    status: 201,
    summary: 'Create a layout',
    answer: '`result.layout`, `result.layouts` (every layout name in tab order); `layout_exists`.',
    body: 'object',
    build: (input) => op('layout_create', bodyObject(input)),
  },
  {
    method: 'PUT',
    path: '/layouts/:layout/page-setup',
    kind: 'mutate',
    status: 200,
    summary: "Set a layout's page setup",
    answer:
      '`result.layout`, `result.paper` (the canonical media name), `result.scale` (`fit`, `numerator`, `denominator`); `layout_missing`, `invalid_paper`, `invalid_scale`.',
    body: 'object',
    build: (input) => op('page_setup_set', { ...bodyObject(input), layout: input.params.layout }),
  },
  {
    method: 'POST',
    path: '/entities/copy-to',
    kind: 'mutate',
    status: 201,
    summary: 'Copy entities to another document',
    answer:
      '`result.count`, `result.created` (new handles in the target document); what came along: `layers_created`, `blocks_created`, `blocks_renamed`, `text_styles_created`, `linetypes_created`, `dimension_styles_created`, `mline_styles_created`, `mleader_styles_created`, `image_defs_created`, `underlay_defs_created`.',
    body: 'object',
    build: (input) => op('entities_copy_to', bodyObject(input)),
  },
  {
    method: 'POST',
    path: '/groups',
    kind: 'mutate',
    status: 201,
    summary: 'Create a group',
    answer: '`result.group`, `result.handle` (the GROUP object).',
    body: 'object',
    build: (input) => op('group_create', bodyObject(input)),
  },
  {
    method: 'POST',
    path: '/selection-sets',
    kind: 'mutate',
    status: 201,
    summary: 'Save a selection set',
    answer: '`result.name`, `result.handles`, `result.count`.',
    body: 'object',
    build: (input) => op('selection_set_save', bodyObject(input)),
  },
  {
    method: 'GET',
    path: '/selection-sets/:name',
    kind: 'mutate',
    status: 200,
    summary: 'Load a selection set (and select it)',
    answer: '`result.handles`, `result.selected`.',
    queryParams: ['select'],
    build: (input) =>
      op('selection_set_load', { name: input.params.name, select: truthy(input.query.select) }),
  },
  {
    method: 'GET',
    path: '/entities',
    kind: 'run',
    status: 200,
    summary: 'Query entities',
    answer:
      '`entities[]`, `count`, `returned`, `next_offset` (every entity of the layouts and of the blocks they insert; spatial parameters look at the layouts only); an Insert answers its `block`, a HATCH its `boundary`, `solid` and `pattern`, a SOLID its `corners`. A query runs in slices: `state.operation` shows it running, and `POST /cancel` stops it (400 `cancelled`).',
    queryParams: ENTITY_QUERY_PARAMS,
    // `where` is parsed by the transport (invalid_where before the dispatcher); see app.ts.
    build: (input) =>
      op(
        'query',
        entitiesQuery(
          input.query,
          input.query.where === undefined ? undefined : JSON.parse(input.query.where),
        ),
      ),
  },
  {
    method: 'GET',
    path: '/entities/:handle',
    kind: 'run',
    status: 200,
    summary: 'One entity, full detail',
    build: (input) => op('query', { handles: [input.params.handle], detail: 'full' }),
  },
  {
    method: 'POST',
    path: '/entities',
    kind: 'mutate',
    status: 201,
    summary: 'Create entities',
    answer:
      "`result.handles`, `result.created` (count), `result.layers_created` (layers it made). Types: Line, Circle, Arc, Ellipse, Text, MText, Point, LwPolyline, Insert, Image, Solid, Trace, Face3d, XLine, Ray, Spline, Hatch. `entities_required` (no list, or an empty one), `unknown_entity_type`, `invalid_point`, `invalid_radius` (a Circle's below 0, an Arc's not above 0), `invalid_vertices` (a polyline of fewer than 2), `invalid_text` (no or an empty value), `block_required`, `block_missing`, `invalid_scale` (an Insert scale of 0), `invalid_corners`, `invalid_boundary`, `invalid_property`.",
    body: 'object',
    build: (input) => op('entities_create', bodyObject(input)),
  },
  {
    method: 'DELETE',
    path: '/entities',
    kind: 'mutate',
    status: 200,
    summary: 'Delete entities',
    answer: '`result.erased`.',
    queryParams: ['handles'],
    body: 'object',
    build: (input) =>
      op('entities_delete', {
        handles:
          input.query.handles !== undefined ? splitList(input.query.handles) : bodyObject(input).handles,
      }),
  },
  {
    method: 'POST',
    path: '/entities/transform',
    kind: 'mutate',
    status: 200,
    summary: 'Move, copy, rotate, scale or mirror entities',
    answer:
      '`result.affected` (entities transformed), `result.created` (new handles of copy, mirror with copy: true, array), `result.not_transformable` (entities kept as read, left where they are: `handle`, `type`, `reason`). `action` defaults to move; `atomic: true`: all or nothing — any entity that cannot be transformed refuses the request `not_transformable` with that list, nothing moves. `invalid_action`, `invalid_point` (vector, center), `invalid_factor` (scale: a factor of 0 or none; a negative one mirrors through the center), `invalid_axis` (mirror: not two distinct points), `invalid_transform`, `invalid_request` (atomic not a boolean).',
    body: 'object',
    build: (input) => op('entities_transform', bodyObject(input)),
  },
  {
    method: 'GET',
    path: '/entities/:handle/xdata',
    kind: 'run',
    status: 200,
    summary: "An entity's xdata",
    answer:
      "`items[].xdata.<app>`: the application's values in order; `items[].data.<app>` the same with their group codes.",
    queryParams: ['app'],
    build: (input) =>
      op('xdata_get', {
        handles: [input.params.handle],
        ...(input.query.app !== undefined ? { app: input.query.app } : {}),
      }),
  },
  {
    method: 'PUT',
    path: '/entities/:handle/xdata/:app',
    kind: 'mutate',
    status: 200,
    summary: "Set an entity's xdata of one application",
    answer: '`result.updated` (entities written).',
    body: 'xdata-items',
    build: (input) =>
      op('xdata_set', {
        handles: [input.params.handle],
        app: input.params.app,
        data: input.body === undefined || input.body === null ? [] : input.body,
      }),
  },
  {
    method: 'DELETE',
    path: '/entities/:handle/xdata/:app',
    kind: 'mutate',
    status: 200,
    summary: "Clear an entity's xdata of one application",
    build: (input) => op('xdata_set', { handles: [input.params.handle], app: input.params.app, data: [] }),
  },
  {
    method: 'POST',
    path: '/blocks',
    kind: 'mutate',
    status: 201,
    summary: 'Define a block',
    answer:
      'The sources move into the block and one Insert of it takes their place: `result.block`, `result.insert`; `replace: true` first drops the old definition and its inserts. No name, or an empty one: `name_required`; a name already defined: `block_exists`.',
    body: 'object',
    build: (input) => op('block_define', bodyObject(input)),
  },
  {
    method: 'DELETE',
    path: '/blocks/:name',
    kind: 'mutate',
    status: 200,
    summary: 'Delete a block and its inserts',
    answer: '`result.erased` (inserts erased); `block_missing`, `block_protected`.',
    build: (input) => op('block_delete', { name: input.params.name }),
  },
  {
    method: 'POST',
    path: '/file-identity',
    kind: 'mutate',
    status: 200,
    summary: "The drawing's fingerprint GUID",
    answer: '`result.identity` (36 characters), `result.created`; `renew: true` mints a new one.',
    body: 'object',
    // The body's fields (`renew`) reach the op, as the reference's route passes its body on.
    build: (input) => op('file_identity', bodyObject(input)),
  },
  {
    method: 'POST',
    path: '/plot',
    kind: 'mutate',
    status: 200,
    summary: 'Plot to PDF or SVG',
    answer:
      '`result.path`, `pages`, `page_sizes`; with `layout: "all"` and `per_page: true`, `result.files[]` (one file per layout: `path`, `layout`...).',
    body: 'object',
    build: (input) => op('plot', bodyObject(input)),
  },
  {
    method: 'POST',
    path: '/wblock',
    kind: 'mutate',
    status: 200,
    summary: 'Write entities or a block to a DXF file',
    answer:
      "`result.path`, `result.entities`, `result.normalized`; `template` (a DXF) gives the file that drawing's tables.",
    body: 'object',
    build: (input) => op('wblock', bodyObject(input)),
  },
  {
    method: 'POST',
    path: '/images',
    kind: 'mutate',
    status: 201,
    summary: 'Embed an image',
    body: 'object',
    build: (input) => op('embed_image', bodyObject(input)),
  },
  {
    method: 'POST',
    path: '/commands',
    kind: 'run',
    status: 200,
    summary: 'Run a command line',
    body: 'object',
    build: (input) => op('run', { cmd: bodyObject(input).cmd }),
  },
  { method: 'POST', path: '/undo', kind: 'run', status: 200, summary: 'Undo', build: () => op('undo') },
  { method: 'POST', path: '/redo', kind: 'run', status: 200, summary: 'Redo', build: () => op('redo') },
  {
    method: 'POST',
    path: '/save',
    kind: 'run',
    status: 200,
    summary: 'Save the active document',
    answer:
      '`result.saved` (the path), `result.format`: `ascii` (default) or, with `format: "binary"`, binary DXF. An existing file other than the document\'s own (opened from or last saved to) is replaced only with `overwrite: true` (`file_exists`). A `.dwg` or `.dwt` path is refused with `unsupported_format` and nothing is written.',
    body: 'object',
    build: (input) => {
      const { path, overwrite, format } = bodyObject(input);
      return op('save', {
        ...(typeof path === 'string' ? { path } : {}),
        ...(overwrite !== undefined ? { overwrite } : {}),
        ...(format !== undefined ? { format } : {}),
      });
    },
  },
  {
    method: 'POST',
    path: '/capture',
    kind: 'capture',
    status: 200,
    summary: 'A PNG of the active document (its Model layout, another layout, or a window)',
    describe:
      "Runs op `capture` with the body and answers the PNG itself (`image/png`); a failure answers JSON as any route. Body (all optional): `width` (pixels, 256 to 4096, default 1024; the height follows the area shown, at most 4096), `window` ([x1, y1, x2, y2] in the layout's coordinates; default the extents of what prints, with a margin), `layout` (a layout name; default Model), `background` (#rrggbb, #rgb, dark, white or black; default dark, the viewer's). Drawn from the plot's scene in layer colours, the selection highlighted; entities smaller than two pixels as one pixel, text too small to read as a stroke, images as their frames. `invalid_width`, `invalid_point`, `layout_missing`, `invalid_background`.",
    produces: 'image/png',
    body: 'object',
    build: (input) => op('capture', bodyObject(input)),
  },
  {
    method: 'POST',
    path: '/dispatch',
    kind: 'run',
    status: 200,
    summary: 'Run one protocol-1 request as it is',
    describe:
      'The body is one protocol-1 request (`op` and its fields), run as is, as the generic `POST /{op}` runs other ops — `protocol` 1 and a `request_id` of `rest-<serial>` when absent — but for every op, also those a route of this table takes (undo, redo and save with their `document_id`, `revision` and `request_id`; the read op `entities`). The answer keeps `state`. What `chronicle editor --mcp --attach` sends.',
    body: 'object',
    build: (input) => {
      const body = bodyObject(input);
      return op(typeof body.op === 'string' ? body.op : '', body);
    },
  },
  {
    method: 'GET',
    path: '/layers',
    kind: 'run',
    status: 200,
    summary: 'Layers',
    answer: '`layers[]` and `current` at the top level.',
    build: () => op('layers'),
  },
  {
    method: 'GET',
    path: '/header',
    kind: 'run',
    status: 200,
    summary: 'Header variables',
    answer:
      '`result.values` (every header variable); `current_layer`, `current_text_style`, `insertion_units`, `pdmode`, `pdsize`, `ltscale` at the top level.',
    build: () => op('header'),
  },
  {
    method: 'GET',
    path: '/records',
    kind: 'run',
    status: 200,
    summary: 'DXF table records and objects',
    queryParams: ['collection', 'type', 'offset', 'limit'],
    build: (input) => {
      const fields: Record<string, unknown> = {};
      for (const name of ['collection', 'type', 'offset', 'limit'])
        if (input.query[name] !== undefined) fields[name] = input.query[name];
      return op('records', fields);
    },
  },
  {
    method: 'GET',
    path: '/openapi',
    kind: 'openapi',
    status: 200,
    summary: 'This OpenAPI description',
    build: () => op('openapi'),
  },
];

/** Ops the generic `POST /{op}` runs through the mutation wrapper; every other op name is Run as is. */
export const ENVELOPE_OPS: ReadonlySet<string> = new Set<EditorOp>([
  'entities_create',
  'entities_delete',
  'entities_transform',
  'block_define',
  'block_delete',
  'file_identity',
  'xdata_set',
  'view_focus',
  'wblock',
  'plot',
  'embed_image',
  'set_properties',
  'property',
  'activate',
  'get_selection',
  'getpoint',
]);
