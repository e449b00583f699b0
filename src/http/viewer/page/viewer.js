// The chronicle viewer page: draws what the server sends (model-space primitives, already computed
// there), follows its event stream, and reports what the person does: selections, picks, tabs.
// Plain ES module, no build step. Model coordinates are y-up; the SVG world group flips them.

const SVG_NS = 'http://www.w3.org/2000/svg';
/** How near (screen pixels) a click must be to an entity to pick it. */
const PICK_PIXELS = 5;
/** A press that moves less than this (pixels) is a click, not a drag. */
const DRAG_PIXELS = 4;
/** SVG text is laid out at this font size and scaled to the text height (tiny font sizes render badly). */
const FONT_SIZE = 100;
/** Cap height of the page's sans-serif font as a share of its size: a CAD text height is a cap height. */
const CAP_HEIGHT = 0.72;

const $ = (id) => document.getElementById(id);
const svg = $('drawing');
const world = $('world');
const band = $('band');

const state = {
  documentId: null,
  revision: 0,
  /** handle -> { d: drawable, el: SVG group }, in drawing order. */
  entities: new Map(),
  selection: [],
  pick: null,
  picked: [],
  view: { cx: 0, cy: 0, scale: 1 },
  /** Why block references are not drawn (the scene's `too_large` error), null when they are. */
  tooLarge: null,
};

// ---- coordinates -------------------------------------------------------------------------------

function frame() {
  const r = svg.getBoundingClientRect();
  return { w: r.width || 1, h: r.height || 1, left: r.left, top: r.top };
}

function toModel(clientX, clientY) {
  const { w, h, left, top } = frame();
  const { cx, cy, scale } = state.view;
  return [cx + (clientX - left - w / 2) / scale, cy - (clientY - top - h / 2) / scale];
}

function toClient(x, y) {
  const { w, h, left, top } = frame();
  const { cx, cy, scale } = state.view;
  return [left + w / 2 + (x - cx) * scale, top + h / 2 - (y - cy) * scale];
}

function applyView() {
  const { w, h } = frame();
  const { cx, cy, scale } = state.view;
  world.setAttribute(
    'transform',
    `matrix(${scale} 0 0 ${-scale} ${w / 2 - cx * scale} ${h / 2 + cy * scale})`,
  );
  for (const rays of world.querySelectorAll('path.rays')) clipRays(rays);
}

/**
 * XLINEs and RAYs have no end: each is drawn as the part of it within the view (and a view's width
 * beyond), cut again whenever the view moves.
 */
function clipRays(el) {
  const { w, h } = frame();
  const { cx, cy, scale } = state.view;
  const hw = w / scale;
  const hh = h / scale;
  const box = [cx - hw, cy - hh, cx + hw, cy + hh];
  const n = el.dataset.rays.split(' ').map(Number);
  let data = '';
  for (let i = 0; i + 4 < n.length; i += 5) {
    const [sx, sy, dx, dy, both] = n.slice(i, i + 5);
    const length = Math.hypot(dx, dy);
    if (length === 0) continue;
    const [ux, uy] = [dx / length, dy / length];
    // Liang-Barsky: the parameter range within the box.
    let lo = both ? -Infinity : 0;
    let hi = Infinity;
    let inside = true;
    for (const [p, q, limit] of [
      [ux, sx, box[0]],
      [-ux, -sx, -box[2]],
      [uy, sy, box[1]],
      [-uy, -sy, -box[3]],
    ]) {
      if (p === 0) {
        if (q < limit) inside = false;
      } else if (p > 0) lo = Math.max(lo, (limit - q) / p);
      else hi = Math.min(hi, (limit - q) / p);
    }
    if (!inside || !(lo <= hi)) continue;
    data += `M${sx + lo * ux} ${sy + lo * uy}L${sx + hi * ux} ${sy + hi * uy}`;
  }
  el.setAttribute('d', data);
}

/** Shows the box [x1, y1, x2, y2] whole, with a margin. */
function showBox(x1, y1, x2, y2, margin = 0.2) {
  const { w, h } = frame();
  const bw = Math.max(x2 - x1, 1e-9);
  const bh = Math.max(y2 - y1, 1e-9);
  const scale = Math.min(w / bw, h / bh) * (1 - margin);
  state.view = {
    cx: (x1 + x2) / 2,
    cy: (y1 + y2) / 2,
    scale: Number.isFinite(scale) && scale > 0 ? scale : 1,
  };
  applyView();
}

/** Zooms to everything drawn (extents). */
function zoomExtents() {
  let box = null;
  for (const { d } of state.entities.values()) {
    if (!d.box) continue;
    box = box
      ? [
          Math.min(box[0], d.box[0]),
          Math.min(box[1], d.box[1]),
          Math.max(box[2], d.box[2]),
          Math.max(box[3], d.box[3]),
        ]
      : [...d.box];
  }
  if (!box) {
    state.view = { cx: 0, cy: 0, scale: 10 };
    applyView();
    return;
  }
  const pad = Math.max(box[2] - box[0], box[3] - box[1]) === 0 ? 1 : 0;
  showBox(box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad);
}

/** Follows a view_focus: the centre and the size the server chose. */
function focusView(view) {
  showBox(
    view.center[0] - view.width / 2,
    view.center[1] - view.height / 2,
    view.center[0] + view.width / 2,
    view.center[1] + view.height / 2,
    0,
  );
}

// ---- drawing -----------------------------------------------------------------------------------

function pathData(flat) {
  let out = `M${flat[0]} ${flat[1]}`;
  for (let i = 2; i + 1 < flat.length; i += 2) out += `L${flat[i]} ${flat[i + 1]}`;
  return out;
}

const TAU = 2 * Math.PI;

/** SVG path data of an arc (centre, radius, start, counter-clockwise sweep); a whole circle as two halves. */
function arcData(cx, cy, r, start, sweep) {
  const at = (a) => `${cx + r * Math.cos(a)} ${cy + r * Math.sin(a)}`;
  // Model coordinates are y-up, so a counter-clockwise arc runs the positive-angle way: sweep flag 1.
  if (sweep >= TAU - 1e-9)
    return `M${at(start)}A${r} ${r} 0 0 1 ${at(start + Math.PI)}A${r} ${r} 0 0 1 ${at(start)}`;
  return `M${at(start)}A${r} ${r} 0 ${sweep > Math.PI ? 1 : 0} 1 ${at(start + sweep)}`;
}

function arcsData(arcs) {
  let out = '';
  for (let i = 0; i + 4 < arcs.length; i += 5)
    out += arcData(arcs[i], arcs[i + 1], arcs[i + 2], arcs[i + 3], arcs[i + 4]);
  return out;
}

/** Points along an arc, flat, for the crossing test. */
function arcPoints(cx, cy, r, start, sweep) {
  const n = Math.max(2, Math.ceil((sweep / TAU) * 48));
  const out = [];
  for (let i = 0; i <= n; i++) {
    const a = start + (sweep * i) / n;
    out.push(cx + r * Math.cos(a), cy + r * Math.sin(a));
  }
  return out;
}

/** A gradient (linear along its axis, or radial from its centre to its rim) in model coordinates. */
function gradientElement(paint, id) {
  const [x1, y1] = paint.from;
  const [x2, y2] = paint.to;
  const el = document.createElementNS(SVG_NS, paint.kind === 'linear' ? 'linearGradient' : 'radialGradient');
  el.id = id;
  el.setAttribute('gradientUnits', 'userSpaceOnUse');
  const at =
    paint.kind === 'linear' ? { x1, y1, x2, y2 } : { cx: x1, cy: y1, r: Math.hypot(x2 - x1, y2 - y1) };
  for (const [name, value] of Object.entries(at)) el.setAttribute(name, String(value));
  for (const [offset, color] of paint.stops) {
    const stop = document.createElementNS(SVG_NS, 'stop');
    stop.setAttribute('offset', String(offset));
    stop.setAttribute('stop-color', color);
    el.append(stop);
  }
  return el;
}

function elementOf(d) {
  const g = document.createElementNS(SVG_NS, 'g');
  g.dataset.handle = d.handle;
  g.dataset.type = d.type;
  g.dataset.layer = d.layer;
  // A wipeout first: the page's background over what was drawn before it, its frame (if any) after.
  for (const flat of d.masks ?? []) {
    const mask = document.createElementNS(SVG_NS, 'path');
    mask.setAttribute('d', `${pathData(flat)}Z`);
    mask.setAttribute('class', 'mask');
    g.append(mask);
  }
  if (d.paths.length > 0 || d.arcs.length > 0) {
    const path = document.createElementNS(SVG_NS, 'path');
    path.setAttribute('d', d.paths.map(pathData).join('') + arcsData(d.arcs));
    path.setAttribute('stroke', d.color);
    g.append(path);
  }
  for (const flat of d.fills ?? []) {
    const fill = document.createElementNS(SVG_NS, 'path');
    fill.setAttribute('d', `${pathData(flat)}Z`);
    // Inline: the page's stylesheet leaves paths unfilled.
    fill.style.fill = d.color;
    fill.setAttribute('stroke', d.color);
    fill.setAttribute('class', 'fill');
    g.append(fill);
  }
  const paint = d.gradient ? gradientElement(d.gradient, `gradient-${d.handle}`) : undefined;
  if (paint) g.append(paint);
  for (const rings of d.regions ?? []) {
    const region = document.createElementNS(SVG_NS, 'path');
    region.setAttribute('d', rings.map((ring) => `${pathData(ring)}Z`).join(''));
    // Non-zero: the rings around holes run the other way round.
    region.style.fill = paint ? `url(#${paint.id})` : d.color;
    region.setAttribute('stroke', paint ? 'none' : d.color);
    region.setAttribute('class', 'fill');
    g.append(region);
  }
  if (d.rays && d.rays.length > 0) {
    const rays = document.createElementNS(SVG_NS, 'path');
    rays.setAttribute('stroke', d.color);
    rays.setAttribute('class', 'rays');
    rays.dataset.rays = d.rays.join(' ');
    g.append(rays);
    clipRays(rays);
  }
  if (d.dots.length > 0) {
    const dots = document.createElementNS(SVG_NS, 'path');
    let data = '';
    for (let i = 0; i + 1 < d.dots.length; i += 2) data += `M${d.dots[i]} ${d.dots[i + 1]}l0 0`;
    dots.setAttribute('d', data);
    dots.setAttribute('stroke', d.color);
    dots.setAttribute('class', 'dots');
    g.append(dots);
  }
  for (const t of d.texts) {
    const text = document.createElementNS(SVG_NS, 'text');
    const k = t.height / (FONT_SIZE * CAP_HEIGHT);
    text.setAttribute('transform', `translate(${t.x} ${t.y}) rotate(${t.angle}) scale(${k} ${-k})`);
    text.setAttribute('font-size', String(FONT_SIZE));
    text.setAttribute('fill', d.color);
    text.textContent = t.value;
    g.append(text);
  }
  return g;
}

function put(d) {
  const el = elementOf(d);
  const old = state.entities.get(d.handle);
  if (old) {
    old.el.replaceWith(el);
    old.d = d;
    old.el = el;
  } else {
    state.entities.set(d.handle, { d, el });
    world.append(el);
  }
}

function erase(handle) {
  const old = state.entities.get(handle);
  if (!old) return;
  old.el.remove();
  state.entities.delete(handle);
}

function mark() {
  const selected = new Set(state.selection);
  const picked = new Set(state.picked);
  for (const [handle, { el }] of state.entities) {
    el.classList.toggle('selected', selected.has(handle));
    el.classList.toggle('picked', picked.has(handle));
  }
  svg.dataset.entities = String(state.entities.size);
  svg.dataset.document = state.documentId === null ? '' : String(state.documentId);
  svg.dataset.revision = String(state.revision);
  svg.dataset.selection = state.selection.join(',');
  svg.dataset.picked = state.picked.join(',');
  $('status').textContent =
    state.documentId === null
      ? 'no document open'
      : `${state.entities.size} entities · ${state.selection.length} selected · revision ${state.revision}${
          state.tooLarge ? ` · block references not drawn: ${state.tooLarge}` : ''
        }`;
}

// ---- server messages ---------------------------------------------------------------------------

function onTabs({ tabs, active }) {
  const nav = $('tabs');
  nav.replaceChildren(
    ...tabs.map((tab) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = tab.title;
      button.dataset.document = String(tab.id);
      button.classList.toggle('active', tab.id === active);
      button.classList.toggle('dirty', tab.dirty);
      button.addEventListener('click', () => {
        if (tab.id !== active) post('/activate', { document_id: tab.id });
      });
      return button;
    }),
  );
}

function onScene(scene) {
  onTabs(scene);
  const doc = scene.document;
  const same = doc !== null && doc.id === state.documentId;
  world.replaceChildren();
  state.entities.clear();
  state.documentId = doc ? doc.id : null;
  state.revision = doc ? doc.revision : 0;
  state.selection = doc ? doc.selection : [];
  // Past the expansion limit the server sends references as nothing, and says why.
  state.tooLarge = doc?.too_large ? doc.too_large.error : null;
  if (doc) for (const d of doc.entities) put(d);
  // A reconnect or a redraw of the same document keeps the person's view.
  if (!same) {
    if (doc?.view) focusView(doc.view);
    else zoomExtents();
  }
  onPick(scene);
  mark();
  document.body.dataset.ready = 'true';
}

function onEntities(message) {
  if (message.document_id !== state.documentId) return;
  for (const d of message.upsert) put(d);
  for (const handle of message.erase) erase(handle);
  state.revision = message.revision;
  mark();
}

function onSelection(message) {
  if (message.document_id !== state.documentId) return;
  state.selection = message.handles;
  mark();
}

function onView(message) {
  if (message.document_id === state.documentId && message.view) focusView(message.view);
}

function onPick({ pick }) {
  const changed = (pick?.request_id ?? null) !== (state.pick?.request_id ?? null);
  state.pick = pick;
  if (changed) state.picked = [];
  document.body.dataset.pick = pick ? pick.op : '';
  document.body.dataset.pickRequest = pick ? pick.request_id : '';
  $('prompt').hidden = !pick;
  if (pick) {
    $('prompt-text').textContent = `${pick.prompt}:`;
    $('prompt-done').hidden = pick.op !== 'user_select';
  }
  promptCount();
  mark();
}

function promptCount() {
  const pick = state.pick;
  $('prompt-count').textContent =
    pick?.op === 'user_select'
      ? `${state.picked.length}${pick.count ? ` of ${pick.count}` : ''} picked — click entities, Enter or Done to finish, Esc to cancel`
      : pick
        ? 'click a point, Esc to cancel'
        : '';
}

// ---- requests ----------------------------------------------------------------------------------

async function post(path, body) {
  try {
    const response = await fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = await response.json();
    if (!answer.ok) $('status').textContent = `${answer.code}: ${answer.error}`;
    return answer;
  } catch (error) {
    $('status').textContent = `request failed: ${error.message}`;
    return { ok: false };
  }
}

function select(handles) {
  if (state.documentId === null) return;
  if (handles.length === state.selection.length && handles.every((h, i) => h === state.selection[i])) return;
  state.selection = handles;
  mark();
  post('/select', { document_id: state.documentId, handles });
}

function finishPick() {
  const pick = state.pick;
  if (pick?.op !== 'user_select') return;
  post('/pick', { request_id: pick.request_id, handles: state.picked });
}

function cancelPick() {
  if (state.pick) post('/cancel', { request_id: state.pick.request_id });
}

function togglePicked(handle) {
  const at = state.picked.indexOf(handle);
  if (at >= 0) state.picked.splice(at, 1);
  else state.picked.push(handle);
  promptCount();
  mark();
  if (state.pick.count !== null && state.picked.length >= state.pick.count) finishPick();
}

// ---- hit testing -------------------------------------------------------------------------------

function segmentDistance(px, py, ax, ay, bx, by) {
  const dx = bx - ax;
  const dy = by - ay;
  const len = dx * dx + dy * dy;
  const t = len === 0 ? 0 : Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / len));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

function insidePolygon(px, py, flat) {
  let inside = false;
  for (let i = 0, j = flat.length - 2; i < flat.length; j = i, i += 2) {
    const [xi, yi, xj, yj] = [flat[i], flat[i + 1], flat[j], flat[j + 1]];
    if (yi > py !== yj > py && px < ((xj - xi) * (py - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

function arcDistance(px, py, cx, cy, r, start, sweep) {
  const offset = (((Math.atan2(py - cy, px - cx) - start) % TAU) + TAU) % TAU;
  if (offset <= sweep) return Math.abs(Math.hypot(px - cx, py - cy) - r);
  const end = start + sweep;
  return Math.min(
    Math.hypot(px - (cx + r * Math.cos(start)), py - (cy + r * Math.sin(start))),
    Math.hypot(px - (cx + r * Math.cos(end)), py - (cy + r * Math.sin(end))),
  );
}

function distanceTo(d, px, py) {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i + 4 < d.arcs.length; i += 5)
    best = Math.min(
      best,
      arcDistance(px, py, d.arcs[i], d.arcs[i + 1], d.arcs[i + 2], d.arcs[i + 3], d.arcs[i + 4]),
    );
  for (const p of d.paths)
    for (let i = 0; i + 3 < p.length; i += 2)
      best = Math.min(best, segmentDistance(px, py, p[i], p[i + 1], p[i + 2], p[i + 3]));
  for (let i = 0; i + 1 < d.dots.length; i += 2)
    best = Math.min(best, Math.hypot(px - d.dots[i], py - d.dots[i + 1]));
  for (const area of d.areas) {
    if (insidePolygon(px, py, area)) return 0;
    for (let i = 0; i < area.length; i += 2) {
      const j = (i + 2) % area.length;
      best = Math.min(best, segmentDistance(px, py, area[i], area[i + 1], area[j], area[j + 1]));
    }
  }
  return best;
}

/** The entity nearest to the model point within `tolerance` (the top one of equals), or null. */
function nearest([px, py], tolerance) {
  let found = null;
  let best = tolerance;
  for (const { d } of state.entities.values()) {
    const b = d.box;
    if (
      !b ||
      px < b[0] - tolerance ||
      px > b[2] + tolerance ||
      py < b[1] - tolerance ||
      py > b[3] + tolerance
    )
      continue;
    const distance = distanceTo(d, px, py);
    if (distance <= best) {
      best = distance;
      found = d.handle;
    }
  }
  return found;
}

/** Whether segment a-b meets the box (Liang-Barsky clipping). */
function segmentMeetsBox(ax, ay, bx, by, [x1, y1, x2, y2]) {
  let t0 = 0;
  let t1 = 1;
  const dx = bx - ax;
  const dy = by - ay;
  for (const [p, q] of [
    [-dx, ax - x1],
    [dx, x2 - ax],
    [-dy, ay - y1],
    [dy, y2 - ay],
  ]) {
    if (p === 0) {
      if (q < 0) return false;
    } else {
      const t = q / p;
      if (p < 0) t0 = Math.max(t0, t);
      else t1 = Math.min(t1, t);
      if (t0 > t1) return false;
    }
  }
  return true;
}

function crosses(d, box) {
  const inBox = (x, y) => x >= box[0] && x <= box[2] && y >= box[1] && y <= box[3];
  const arcs = [];
  for (let i = 0; i + 4 < d.arcs.length; i += 5)
    arcs.push(arcPoints(d.arcs[i], d.arcs[i + 1], d.arcs[i + 2], d.arcs[i + 3], d.arcs[i + 4]));
  for (const p of [...d.paths, ...arcs, ...d.areas.map((a) => [...a, a[0], a[1]])]) {
    for (let i = 0; i + 3 < p.length; i += 2)
      if (segmentMeetsBox(p[i], p[i + 1], p[i + 2], p[i + 3], box)) return true;
  }
  for (let i = 0; i + 1 < d.dots.length; i += 2) if (inBox(d.dots[i], d.dots[i + 1])) return true;
  return d.areas.some((area) => insidePolygon(box[0], box[1], area));
}

/** Handles in drawing order inside the box (window), or touching it too (crossing). */
function inWindow(box, crossing) {
  const out = [];
  for (const { d } of state.entities.values()) {
    const b = d.box;
    if (!b) continue;
    const inside = b[0] >= box[0] && b[2] <= box[2] && b[1] >= box[1] && b[3] <= box[3];
    const overlaps = b[0] <= box[2] && b[2] >= box[0] && b[1] <= box[3] && b[3] >= box[1];
    if (inside || (crossing && overlaps && crosses(d, box))) out.push(d.handle);
  }
  return out;
}

// ---- the person's input ------------------------------------------------------------------------

let drag = null;

svg.addEventListener('pointerdown', (event) => {
  if (event.button !== 0 && event.button !== 1) return;
  event.preventDefault();
  svg.setPointerCapture(event.pointerId);
  drag = {
    x: event.clientX,
    y: event.clientY,
    window: event.button === 0 && event.shiftKey,
    moved: false,
    view: { ...state.view },
  };
});

svg.addEventListener('pointermove', (event) => {
  const [mx, my] = toModel(event.clientX, event.clientY);
  $('coords').textContent = `${mx.toFixed(3)}, ${my.toFixed(3)}`;
  if (!drag) return;
  const dx = event.clientX - drag.x;
  const dy = event.clientY - drag.y;
  if (Math.hypot(dx, dy) >= DRAG_PIXELS) drag.moved = true;
  if (!drag.moved) return;
  if (drag.window) {
    const { left, top } = frame();
    band.setAttribute('x', String(Math.min(drag.x, event.clientX) - left));
    band.setAttribute('y', String(Math.min(drag.y, event.clientY) - top));
    band.setAttribute('width', String(Math.abs(dx)));
    band.setAttribute('height', String(Math.abs(dy)));
    band.setAttribute('visible', 'true');
    band.classList.toggle('crossing', dx < 0);
  } else {
    state.view.cx = drag.view.cx - dx / drag.view.scale;
    state.view.cy = drag.view.cy + dy / drag.view.scale;
    applyView();
  }
});

svg.addEventListener('pointerup', (event) => {
  const started = drag;
  drag = null;
  band.setAttribute('visible', 'false');
  if (!started) return;
  if (!started.moved) {
    click(event);
    return;
  }
  if (!started.window) return;
  const [ax, ay] = toModel(started.x, started.y);
  const [bx, by] = toModel(event.clientX, event.clientY);
  const box = [Math.min(ax, bx), Math.min(ay, by), Math.max(ax, bx), Math.max(ay, by)];
  const found = inWindow(box, event.clientX < started.x);
  if (state.pick?.op === 'user_select') {
    for (const handle of found) if (!state.picked.includes(handle)) togglePicked(handle);
  } else if (!state.pick) {
    select([...state.selection, ...found.filter((h) => !state.selection.includes(h))]);
  }
});

function click(event) {
  const point = toModel(event.clientX, event.clientY);
  const pick = state.pick;
  if (pick?.op === 'getpoint') {
    post('/pick', { request_id: pick.request_id, point });
    return;
  }
  const hit = nearest(point, PICK_PIXELS / state.view.scale);
  if (pick?.op === 'user_select') {
    if (hit) togglePicked(hit);
    return;
  }
  if (!hit) {
    if (!event.shiftKey) select([]);
    return;
  }
  if (!event.shiftKey) select([hit]);
  else if (state.selection.includes(hit)) select(state.selection.filter((h) => h !== hit));
  else select([...state.selection, hit]);
}

svg.addEventListener(
  'wheel',
  (event) => {
    event.preventDefault();
    const [mx, my] = toModel(event.clientX, event.clientY);
    const { w, h, left, top } = frame();
    const scale = state.view.scale * Math.exp(-event.deltaY * 0.0015);
    state.view = {
      scale,
      cx: mx - (event.clientX - left - w / 2) / scale,
      cy: my + (event.clientY - top - h / 2) / scale,
    };
    applyView();
  },
  { passive: false },
);

document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape') {
    if (state.pick) cancelPick();
    else select([]);
  } else if (event.key === 'Enter') {
    finishPick();
  } else if (event.key === 'f' || event.key === 'F') {
    zoomExtents();
  }
});

$('prompt-done').addEventListener('click', finishPick);
$('prompt-cancel').addEventListener('click', cancelPick);
// The drawing keeps its centre when its area changes size (window resize, layout).
new ResizeObserver(() => applyView()).observe(svg);

// ---- the event stream --------------------------------------------------------------------------

function connect() {
  const connection = $('connection');
  const source = new EventSource('/events');
  const on = (name, handle) => source.addEventListener(name, (event) => handle(JSON.parse(event.data)));
  source.addEventListener('open', () => {
    connection.dataset.state = 'live';
    connection.textContent = 'live';
  });
  source.addEventListener('error', () => {
    connection.dataset.state = 'lost';
    connection.textContent = 'reconnecting';
    // EventSource retries by itself unless the server refused the stream outright.
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, 1000);
  });
  on('scene', onScene);
  on('entities', onEntities);
  on('selection', onSelection);
  on('tabs', onTabs);
  on('pick', onPick);
  on('view', onView);
}

// For tests and for the console: where a model point is on the screen, and back.
window.viewer = { state, toClient, toModel, zoomExtents };
connect();
