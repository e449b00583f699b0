/**
 * The viewer end to end in Chromium (playwright-core driving Debian's /usr/bin/chromium): the real
 * CLI GUI-hosted on a DXF file, the page open, entities created over REST drawn live, a click read back
 * with get_selection, a user_select answered by clicking, a getpoint answered and one cancelled.
 * Skips, saying why, when Chromium is not installed (`.ci/run` installs it).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { needEzdxf, python } from '../../editor/dispatcher/helpers.js';
import { at, body, type Json, strings } from '../editor/helpers.js';
import { type GuiEditor, PLAN_HANDLES, startGuiEditor } from './helpers.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const CHROMIUM = '/usr/bin/chromium';
const missing = existsSync(CHROMIUM)
  ? undefined
  : `${CHROMIUM} is not installed (Debian package chromium; .ci/run installs it)`;
if (missing) console.log(`skipped: viewer browser tests: ${missing}`);

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const ARTIFACT = join(repoRoot, 'test/artifacts/viewer.png');
const README_SHOT = join(repoRoot, 'docs/viewer.png');

let gui: GuiEditor;
let context: BrowserContext;
let page: Page;
let profile: string;

beforeAll(async () => {
  if (missing) return;
  gui = await startGuiEditor();
  profile = await mkdtemp(join(tmpdir(), 'chronicle-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1100, height: 680 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${gui.guiUrl}/`);
  await page.waitForSelector('body[data-ready="true"]');
});

afterAll(async () => {
  await context?.close();
  await gui?.stop();
  if (profile) await rm(profile, { recursive: true, force: true });
});

/** Where the model point is on the page. */
async function screenOf(x: number, y: number): Promise<[number, number]> {
  // Code that runs in the page is given as text: this project's types have no DOM.
  return page.evaluate(`window.viewer.toClient(${x}, ${y})`);
}

async function clickModel(x: number, y: number): Promise<void> {
  const [cx, cy] = await screenOf(x, y);
  await page.mouse.click(cx, cy);
}

/** `operation` by request id, polled until its status is not `pending` (or `timeoutMs` passes). */
async function finalOperation(requestId: string, timeoutMs = 20_000): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = body(await gui.rest.post('/api/v1/operation', { request_id: requestId }));
    if (at(answer, 'result.status') !== 'pending' || Date.now() > deadline) return answer;
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function selectionHandles(): Promise<string[]> {
  const answer = body(await gui.rest.post('/api/v1/get_selection', {}));
  return (at(answer, 'result.entities') as Array<{ handle: string }>).map((e) => e.handle);
}

async function eventually<T>(read: () => Promise<T>, expected: T, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (JSON.stringify(value) !== JSON.stringify(expected) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    value = await read();
  }
  return value;
}

describe.skipIf(missing !== undefined)('the viewer in Chromium', () => {
  it('draws the opened file: one group per model-space entity, in layer colours, with a tab', async () => {
    expect(await page.getAttribute('#drawing', 'data-entities')).toBe(String(PLAN_HANDLES.length));
    const handles = await page.$$eval('#world g[data-handle]', (gs) =>
      gs.map((g) => g.getAttribute('data-handle')),
    );
    expect(handles).toEqual(PLAN_HANDLES);
    expect(await page.getAttribute('#world g[data-handle="6"] path', 'stroke')).toBe('#ff0000');
    expect(await page.getAttribute('#world g[data-handle="A"] path', 'stroke')).toBe('#00ff00');
    expect(await page.textContent('#world g[data-handle="C"] text')).toBe('Plan A');
    expect(await page.$$eval('#tabs button', (bs) => bs.map((b) => b.textContent))).toEqual(['plan.dxf']);
    expect(await page.getAttribute('#connection', 'data-state')).toBe('live');
  });

  it('an entity created over REST is drawn without a reload (latency: `npm run bench -- viewer`)', async () => {
    // A reload would lose this mark: the entity must come into the same page.
    await page.evaluate('window.sameDocument = true');
    const created = await gui.rest.post('/api/v1/entities', {
      entities: [{ type: 'Circle', center: [20, 30], radius: 5, layer: 'DOORS' }],
    });
    expect(created.status, created.text).toBe(201);
    const [handle] = strings(body(created), 'result.handles');
    await page.waitForSelector(`#world g[data-handle="${handle}"]`, { timeout: 20_000 });
    expect(await page.evaluate('window.sameDocument')).toBe(true);
    expect(await page.getAttribute('#drawing', 'data-entities')).toBe(String(PLAN_HANDLES.length + 1));

    const erased = await gui.rest.del(`/api/v1/entities?handles=${handle}`);
    expect(erased.status).toBe(200);
    await page.waitForSelector(`#world g[data-handle="${handle}"]`, { state: 'detached', timeout: 20_000 });
  });

  it('draws a SOLID filled and an XLINE cut at the view, which follows the view', async () => {
    const created = await gui.rest.post('/api/v1/entities', {
      entities: [
        {
          type: 'Solid',
          corners: [
            [0, 0],
            [10, 0],
            [0, 10],
            [10, 10],
          ],
          layer: 'DOORS',
        },
        { type: 'XLine', start: [0, 0], direction: [1, 1], layer: 'DOORS' },
      ],
    });
    expect(created.status, created.text).toBe(201);
    const [solid, xline] = strings(body(created), 'result.handles');
    await page.waitForSelector(`#world g[data-handle="${xline}"] path.rays`, { timeout: 20_000 });
    const fill = await page.evaluate(
      `getComputedStyle(document.querySelector('#world g[data-handle="${solid}"] path.fill')).fill`,
    );
    expect(fill).not.toBe('none');
    const d = String(await page.getAttribute(`#world g[data-handle="${xline}"] path.rays`, 'd'));
    // One segment, M x y L x y, whose ends lie on the line y = x.
    const [x1, y1, x2, y2] = (d.match(/-?[\d.e+-]+/g) ?? []).map(Number) as [number, number, number, number];
    expect(Math.abs(x1 - y1)).toBeLessThan(1e-6 * Math.max(1, Math.abs(x1)));
    expect(Math.abs(x2 - y2)).toBeLessThan(1e-6 * Math.max(1, Math.abs(x2)));
    expect(x2 - x1).toBeGreaterThan(0);
    const erased = await gui.rest.del(`/api/v1/entities?handles=${solid},${xline}`);
    expect(erased.status).toBe(200);
    await page.waitForSelector(`#world g[data-handle="${xline}"]`, { state: 'detached', timeout: 20_000 });
  });

  it('a click selects the nearest entity; get_selection returns it; shift+click adds in order', async () => {
    await clickModel(78, 30.5); // near the circle A (centre 70,30, radius 8)
    expect(await eventually(selectionHandles, ['A'])).toEqual(['A']);
    expect(await page.getAttribute('#world g[data-handle="A"]', 'class')).toContain('selected');
    await page.keyboard.down('Shift');
    await clickModel(50, 0.2); // the bottom wall, line 6
    await page.keyboard.up('Shift');
    expect(await eventually(selectionHandles, ['A', '6'])).toEqual(['A', '6']);
    await clickModel(20, 45); // empty floor: clears
    expect(await eventually(selectionHandles, [])).toEqual([]);
  });

  it('a window drawn with shift+drag selects what lies wholly inside it', async () => {
    const [x1, y1] = await screenOf(28, 8);
    const [x2, y2] = await screenOf(85, 42);
    await page.keyboard.down('Shift');
    await page.mouse.move(x1, y1);
    await page.mouse.down();
    await page.mouse.move(x2, y2, { steps: 6 });
    await page.mouse.up();
    await page.keyboard.up('Shift');
    // The circle A (62-78, 22-38) and the arc B (40-50, 20-30) are inside; the walls are not.
    const selected = await eventually(async () => [...(await selectionHandles())].sort(), ['A', 'B']);
    expect(selected).toEqual(['A', 'B']);
    await page.keyboard.press('Escape');
    expect(await eventually(selectionHandles, [])).toEqual([]);
  });

  it('answers a user_select by clicking, in pick order, and Done', async () => {
    // Something selected first, for the screenshot: the selection and the picks look different.
    await clickModel(45, 28.66);
    expect(await eventually(selectionHandles, ['B'])).toEqual(['B']);
    const asked = await gui.rest.post('/api/v1/user_select', { prompt: 'Pick the door and a wall' });
    expect(body(asked)).toMatchObject({ ok: true, status: 'pending' });
    const id = at(body(asked), 'request_id') as string;
    await page.waitForSelector('body[data-pick="user_select"]');
    expect(await page.textContent('#prompt-text')).toBe('Pick the door and a wall:');
    await clickModel(70, 38); // circle A, top
    await clickModel(100, 30); // right wall, line 7
    await page.waitForSelector('#drawing[data-picked="A,7"]');
    // Other mutations wait for the person meanwhile.
    const busy = await gui.rest.post('/api/v1/entities', { entities: [{ type: 'Point', location: [1, 1] }] });
    expect(busy.status).toBe(503);
    await mkdir(dirname(ARTIFACT), { recursive: true });
    await page.screenshot({ path: ARTIFACT });
    await mkdir(dirname(README_SHOT), { recursive: true });
    await page.screenshot({ path: README_SHOT });
    await page.click('#prompt-done');
    const final = await finalOperation(id);
    expect(at(final, 'result')).toMatchObject({
      status: 'completed',
      answer: { ok: true, result: { handles: ['A', '7'], count: 2 } },
    });
    await page.waitForSelector('body[data-pick=""]');
    expect(await page.isHidden('#prompt')).toBe(true);
  });

  it('answers a getpoint with the clicked model point', async () => {
    const asked = await gui.rest.post('/api/v1/getpoint', { prompt: 'Centre of the table' });
    const id = at(body(asked), 'request_id') as string;
    await page.waitForSelector('body[data-pick="getpoint"]');
    await clickModel(30, 40);
    const final = await finalOperation(id);
    expect(at(final, 'result.status')).toBe('completed');
    const [x, y] = at(final, 'result.answer.result.point') as number[];
    // One screen pixel is well under a drawing unit at this zoom.
    expect(Math.abs((x as number) - 30)).toBeLessThan(0.5);
    expect(Math.abs((y as number) - 40)).toBeLessThan(0.5);
  });

  it('cancels a getpoint with the prompt Cancel button, and another over REST', async () => {
    const asked = await gui.rest.post('/api/v1/getpoint', {});
    const id = at(body(asked), 'request_id') as string;
    await page.waitForSelector('body[data-pick="getpoint"]');
    await page.click('#prompt-cancel');
    expect(at(await finalOperation(id), 'result.status')).toBe('cancelled');
    await page.waitForSelector('body[data-pick=""]');

    const second = await gui.rest.post('/api/v1/getpoint', {});
    const secondId = at(body(second), 'request_id') as string;
    await page.waitForSelector('body[data-pick="getpoint"]');
    const cancelled = await gui.rest.post('/api/v1/cancel', {});
    expect(at(body(cancelled), 'result.cancelled')).toBe(true);
    expect(at(body(cancelled), 'result.cancelled_request_id')).toBe(secondId);
    await page.waitForSelector('body[data-pick=""]');
    expect(at(await finalOperation(secondId), 'result.status')).toBe('cancelled');
  });

  it('follows view_focus, and a tab click activates the document through the dispatcher', async () => {
    await gui.rest.post('/api/v1/view_focus', { handles: ['A'] });
    await page.waitForFunction(
      'Math.abs(window.viewer.state.view.cx - 70) < 1e-6 && Math.abs(window.viewer.state.view.cy - 30) < 1e-6',
    );
    const made = await gui.rest.post('/api/v1/documents');
    expect(made.status).toBe(201);
    await page.waitForSelector('#tabs button:nth-child(2)');
    expect(await page.getAttribute('#drawing', 'data-entities')).toBe('0');
    await page.click('#tabs button[data-document="1"]');
    await page.waitForSelector(`#drawing[data-document="1"][data-entities="${PLAN_HANDLES.length}"]`);
    const state = body(await gui.rest.get('/api/v1/state'));
    expect(at(state, 'state.document_id')).toBe(1);
  });

  it('paints a solid HATCH with its hole, and the island in the hole', async (ctx) => {
    needEzdxf(ctx);
    const path = join(profile, 'islands.dxf');
    await python(
      `
import sys, ezdxf
doc = ezdxf.new("R2010")
hatch = doc.modelspace().add_hatch(color=1)
hatch.paths.add_polyline_path([(0, 0), (10, 0), (10, 10), (0, 10)], is_closed=True, flags=1)
hatch.paths.add_polyline_path([(2, 2), (8, 2), (8, 8), (2, 8)], is_closed=True, flags=16)
hatch.paths.add_polyline_path([(4, 4), (6, 4), (6, 6), (4, 6)], is_closed=True, flags=0)
doc.saveas(sys.argv[1])
print("{}")
`,
      [path],
    );
    const opened = await gui.rest.post('/api/v1/documents', { path });
    expect(opened.status, opened.text).toBeLessThan(300);
    await page.waitForSelector('#world g[data-type="Raw"] path.fill');
    // Model coordinates are the path's own: the ring and the island are inside its fill, the hole is not.
    const inFill = (x: number, y: number) =>
      page.evaluate(
        `document.querySelector('#world g[data-type="Raw"] path.fill').isPointInFill(new DOMPoint(${x}, ${y}))`,
      );
    expect(await inFill(1, 5)).toBe(true);
    expect(await inFill(3, 5)).toBe(false);
    expect(await inFill(5, 5)).toBe(true);
    expect(await inFill(11, 5)).toBe(false);
    await page.click('#tabs button[data-document="1"]');
    await page.waitForSelector(`#drawing[data-document="1"][data-entities="${PLAN_HANDLES.length}"]`);
  });

  it('paints a WIPEOUT over what was drawn before it, under what comes after', async (ctx) => {
    needEzdxf(ctx);
    const path = join(profile, 'wipeout.dxf');
    await python(
      `
import sys, ezdxf
doc = ezdxf.new("R2010")
msp = doc.modelspace()
msp.add_line((0, 5), (10, 5), dxfattribs={"color": 1})
msp.add_wipeout([(3, 0), (7, 0), (7, 10), (3, 10)])
msp.add_line((5, 0), (5, 10), dxfattribs={"color": 3})
doc.set_wipeout_variables(frame=0)
doc.saveas(sys.argv[1])
print("{}")
`,
      [path],
    );
    const opened = await gui.rest.post('/api/v1/documents', { path });
    expect(opened.status, opened.text).toBeLessThan(300);
    await page.waitForSelector('#world path.mask');
    // The page's background, and no frame (WIPEOUTVARIABLES: frame 0).
    const style = (await page.evaluate(
      `(() => { const m = getComputedStyle(document.querySelector('#world path.mask'));
        return [m.fill, m.stroke, getComputedStyle(document.body).backgroundColor,
          document.querySelector('#world path.mask').parentElement.querySelectorAll('path').length]; })()`,
    )) as [string, string, string, number];
    expect(style).toEqual([style[2], 'none', style[2], 1]);
    // What a person sees at a point is the topmost element there: the mask over the red line inside
    // it, the red line outside it, the green line drawn after it on top of it.
    const topAt = async (x: number, y: number) => {
      const [cx, cy] = await screenOf(x, y);
      return page.evaluate(
        `(() => { const el = document.elementFromPoint(${cx}, ${cy});
          return el.classList.contains('mask') ? 'mask' : el.getAttribute('stroke'); })()`,
      );
    };
    expect(await topAt(4, 5)).toBe('mask');
    expect(await topAt(1.5, 5)).toBe('#ff0000');
    expect(await topAt(5, 2)).toBe('#00ff00');
    await page.click('#tabs button[data-document="1"]');
    await page.waitForSelector(`#drawing[data-document="1"][data-entities="${PLAN_HANDLES.length}"]`);
  });

  it('paints a gradient HATCH of a real file with its gradient', async () => {
    const path = resolve(repoRoot, 'test/fixtures/dxf-corpus/netdxf-sample-2018.dxf');
    const opened = await gui.rest.post('/api/v1/documents', { path });
    expect(opened.status, opened.text).toBeLessThan(300);
    // netDxf's INVSPHERICAL hatch BD9: a radial gradient, its first colour (76, 95, 153) at the middle.
    await page.waitForSelector('#world g[data-handle="BD9"] path.fill');
    const fill = await page.evaluate(
      `getComputedStyle(document.querySelector('#world g[data-handle="BD9"] path.fill')).fill`,
    );
    expect(String(fill)).toContain('gradient-BD9');
    const stops = await page.evaluate(
      `[...document.querySelectorAll('#gradient-BD9 stop')].map((s) => s.getAttribute('stop-color'))`,
    );
    expect(stops).toEqual(['#4c5f99', '#f4d143']);
    expect(await page.evaluate(`document.getElementById('gradient-BD9').tagName`)).toBe('radialGradient');
    await page.click('#tabs button[data-document="1"]');
    await page.waitForSelector(`#drawing[data-document="1"][data-entities="${PLAN_HANDLES.length}"]`);
  });
});
