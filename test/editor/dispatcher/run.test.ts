/**
 * `run`: a command line executed through the other ops, against the real dispatcher and store.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editorSessionProjection } from '../../../projections/editor-session.js';
import { rebuildProjection } from '../../../projections/rebuild.js';
import { type Harness, type Reply, startHarness } from './helpers.js';

let h: Harness;
let doc: number;
beforeEach(async () => {
  h = await startHarness();
  doc = await h.newDoc();
});
afterEach(async () => {
  await h.close();
});

interface RunResult {
  cmd: string;
  status: string;
  entities: string[];
  added: string[];
  commands: Array<{ command: string; result: Record<string, unknown> }>;
}

const run = (cmd: string, fields: Record<string, unknown> = {}) => h.call('run', { cmd, ...fields });
const ran = async (cmd: string): Promise<RunResult & { answer: Reply }> => {
  const answer = await run(cmd);
  expect(answer.ok, `${cmd}: ${answer.code} ${answer.error}`).toBe(true);
  return { ...(answer.result as unknown as RunResult), answer };
};
const entity = async (handle: string) => {
  const answer = await h.ok('query', { handles: [handle], detail: 'full' });
  return (answer.entities as Array<Record<string, unknown>>)[0] as Record<string, unknown>;
};
const all = async () => {
  const answer = await h.ok('query', { detail: 'full' });
  return answer.entities as Array<Record<string, unknown>>;
};
const undoDepth = () => h.session.state.documents[String(doc)]?.undo.length;

describe('drawing commands', () => {
  it('LINE: a chain of lines, one undo step; answers cmd, status, entities and added', async () => {
    const r = await ran('LINE 0,0 10,0 @0,10');
    expect(r.cmd).toBe('LINE 0,0 10,0 @0,10');
    expect(r.status).toBe('completed');
    expect(r.added).toHaveLength(2);
    expect(r.entities).toEqual(r.added);
    // The same fields at the top of the answer.
    expect(r.answer).toMatchObject({
      ok: true,
      status: 'completed',
      cmd: r.cmd,
      entities: r.added,
      added: r.added,
    });
    const [a, b] = r.added as [string, string];
    expect(await entity(a)).toMatchObject({ type: 'Line', start: [0, 0, 0], end: [10, 0, 0] });
    expect(await entity(b)).toMatchObject({ type: 'Line', start: [10, 0, 0], end: [10, 10, 0] });
    expect(undoDepth()).toBe(1);
    expect((await h.events()).some((e) => e.type === 'EntitiesCreated')).toBe(true);
  });

  it('CIRCLE, ARC (centre and three points), TEXT; polar input', async () => {
    const r = await ran(
      'CIRCLE 5,5 2; ARC 0,0 3 0 90; ARC 5,0 0,5 -5,0; TEXT @10<90 2.5 30 Hello world; LINE 0,0 @10<90',
    );
    const [circle, arc, arc3, text, line] = r.added as [string, string, string, string, string];
    expect(await entity(circle)).toMatchObject({ type: 'Circle', center: [5, 5, 0], radius: 2 });
    expect(await entity(arc)).toMatchObject({
      type: 'Arc',
      center: [0, 0, 0],
      radius: 3,
      start_angle: 0,
      end_angle: 90,
    });
    const three = await entity(arc3);
    expect(three).toMatchObject({ type: 'Arc', start_angle: 0, end_angle: 180 });
    expect(three.radius as number).toBeCloseTo(5);
    // TEXT's point is polar from the last point, the third point of the arc (-5,0).
    expect(await entity(text)).toMatchObject({
      type: 'Text',
      value: 'Hello world',
      height: 2.5,
      rotation: 30,
      position: [-5, 10, 0],
    });
    expect(await entity(line)).toMatchObject({ start: [0, 0, 0], end: [0, 10, 0] });
    expect(undoDepth()).toBe(5);
  });

  it('ERASE by handles, L(ast) and P(revious selection)', async () => {
    const { added } = await ran('LINE 0,0 1,0 @0,1 @-1,0');
    const [a, b, c] = added as [string, string, string];
    const erased = await ran(`ERASE ${a}`);
    expect(erased.entities).toEqual([a]);
    expect(erased.added).toEqual([]);
    expect((await ran('ERASE L')).entities).toEqual([c]);
    await ran(`SELECT ${b}`);
    expect((await ran('ERASE P')).entities).toEqual([b]);
    expect(await all()).toEqual([]);
  });

  it('MOVE, COPY, ROTATE, SCALE through entities_transform', async () => {
    const [c] = (await ran('CIRCLE 0,0 1')).added as [string];
    await ran(`MOVE ${c} 0,0 @10,5`);
    expect(await entity(c)).toMatchObject({ center: [10, 5, 0] });
    const copy = await ran(`COPY ${c} 0,0 0,-5`);
    expect(copy.added).toHaveLength(1);
    expect(await entity(copy.added[0] as string)).toMatchObject({ center: [10, 0, 0], radius: 1 });
    await ran(`ROTATE ${c} 0,0 90`);
    const rotated = (await entity(c)).center as number[];
    expect(rotated[0]).toBeCloseTo(-5);
    expect(rotated[1]).toBeCloseTo(10);
    await ran(`SCALE ${c} ${rotated[0]},${rotated[1]} 3`);
    expect((await entity(c)).radius).toBeCloseTo(3);
    expect(undoDepth()).toBe(5);
  });

  it('LAYER M makes the layer current (one undo step); LAYER S switches; new entities land on it', async () => {
    const made = await ran('LAYER M Walls; LINE 0,0 1,1');
    expect(made.commands[0]?.result).toMatchObject({ layer: 'Walls', created: true });
    expect(await entity(made.added[0] as string)).toMatchObject({ layer: 'Walls' });
    expect(undoDepth()).toBe(2);
    expect((await h.events()).some((e) => e.type === 'CommandApplied')).toBe(true);
    const back = await ran('LAYER S 0; CIRCLE 0,0 1');
    expect(await entity(back.added[0] as string)).toMatchObject({ layer: '0' });
    // LAYER M of an existing layer only sets it current.
    expect((await ran('LAYER M walls')).commands[0]?.result).toMatchObject({
      layer: 'Walls',
      created: false,
    });
    // Five steps back, the first LAYER M is undone in one: the layer is gone and CLAYER is 0 again.
    await ran('UNDO 4');
    expect((await h.ok('sysvar', { document_id: doc, get: ['CLAYER'] })).result).toMatchObject({
      values: { CLAYER: 'Walls' },
    });
    await ran('UNDO');
    const layers = (await h.ok('layers')).result as { layers: Array<{ name: string }> };
    expect(layers.layers.map((l) => l.name)).not.toContain('Walls');
    const clayer = await h.ok('sysvar', { document_id: doc, get: ['CLAYER'] });
    expect(clayer.result).toMatchObject({ values: { CLAYER: '0' } });
  });

  it('SELECT by window and crossing (the query engine), ALL; get_selection reads it', async () => {
    const { added } = await ran('CIRCLE 5,5 1; LINE 0,0 20,20; CIRCLE 30,30 1');
    const [inner, diagonal, far] = added as [string, string, string];
    expect((await ran('SELECT W 0,0 10,10')).entities).toEqual([inner]);
    // The diagonal crosses the window; the far circle's box does not touch it.
    expect((await ran('SELECT C 0,0 10,10')).entities.sort()).toEqual([inner, diagonal].sort());
    const selection = await h.ok('get_selection');
    expect(selection.result).toMatchObject({ count: 2 });
    // A window that touches the diagonal's box but not the line itself selects nothing.
    expect(await run('SELECT C 12,1 19,8')).toMatchObject({ ok: false, code: 'nothing_selected' });
    expect(far).toBeDefined();
  });

  it('SELECT W sees what earlier commands of the same line drew', async () => {
    const r = await ran(
      'CIRCLE 1,1 0.5; CIRCLE 9,9 0.5; SELECT W 0,0 5,5; MOVE P 0,0 @100,0; SELECT W 100,0 105,5',
    );
    const [moved, still] = r.added as [string, string];
    expect(r.commands[2]?.result).toEqual({ handles: [moved], count: 1 });
    expect(r.commands[4]?.result).toEqual({ handles: [moved], count: 1 });
    expect(await entity(moved)).toMatchObject({ center: [101, 1, 0] });
    expect(still).toBeDefined();
  });

  it('SELECT ALL, then get_selection answers it in order', async () => {
    const { added } = await ran('CIRCLE 5,5 1; LINE 0,0 20,20');
    await ran('SELECT ALL');
    const selection = await h.ok('get_selection');
    const picked = (selection.result as { entities: Array<{ handle: string }> }).entities;
    expect(picked.map((e) => e.handle)).toEqual(added);
  });

  it('ZOOM E and ZOOM W record a ViewFocused event (view_focus)', async () => {
    await ran('CIRCLE 10,10 5');
    const zoom = await ran('ZOOM E');
    expect(zoom.commands[0]?.result).toEqual({ center: [10, 10], width: 11, height: 11 });
    expect(h.session.state.documents[String(doc)]?.view).toEqual({ center: [10, 10], width: 11, height: 11 });
    await ran('ZOOM W 0,0 4,2');
    expect(h.session.state.documents[String(doc)]?.view?.center).toEqual([2, 1]);
    expect((await h.events()).filter((e) => e.type === 'ViewFocused')).toHaveLength(2);
    expect(undoDepth()).toBe(1);
  });

  it('UNDO n and REDO n through the undo and redo ops', async () => {
    await ran('CIRCLE 0,0 1; CIRCLE 5,0 1; CIRCLE 10,0 1');
    const undone = await ran('UNDO 2');
    expect(undone.commands[0]?.result).toMatchObject({ count: 2 });
    expect(await all()).toHaveLength(1);
    await ran('REDO');
    expect(await all()).toHaveLength(2);
    // A line that draws and undoes adds nothing.
    const net = await ran('LINE 0,0 1,1; UNDO');
    expect(net.added).toEqual([]);
    expect(await all()).toHaveLength(2);
  });

  it('works on the active document without a document_id (as POST /commands sends it)', async () => {
    const answer = await h.raw({ protocol: 1, op: 'run', request_id: 'run-no-doc', cmd: 'CIRCLE 0,0 1' });
    expect(answer).toMatchObject({ ok: true, document_id: doc });
  });
});

describe('errors: nothing of the line is recorded', () => {
  const refused = async (cmd: string, code: string, fragment?: string) => {
    const before = h.session.state.documents[String(doc)]?.revision;
    const answer = await run(cmd);
    expect(answer, cmd).toMatchObject({ ok: false, code });
    if (fragment) expect(answer.error, cmd).toContain(fragment);
    expect(h.session.state.documents[String(doc)]?.revision, cmd).toBe(before);
    return answer;
  };

  it('unknown_command names it', async () => {
    const answer = await refused('CIRCLE 0,0 1; FILLET 2A 2B', 'unknown_command', 'FILLET');
    expect(answer).toMatchObject({ command: 'FILLET 2A 2B' });
  });

  it('invalid_point, invalid_command', async () => {
    await refused('LINE 0,0 1;2', 'invalid_point');
    await refused('CIRCLE 0,0', 'invalid_command', 'a radius');
    await refused('', 'invalid_command', 'cmd must be a command line');
    const missing = await h.call('run', {});
    expect(missing).toMatchObject({ ok: false, code: 'invalid_command' });
    await refused('ARC 0,0 1,1 2,2', 'invalid_point', 'in line');
  });

  it("the ops' own errors, naming the command; earlier commands are not kept", async () => {
    const answer = await refused('CIRCLE 0,0 1; ERASE FFFF', 'entity_absent', 'ERASE FFFF');
    expect(answer).toMatchObject({ command_index: 1 });
    await refused('CIRCLE 0,0 -1', 'invalid_radius');
    await refused('UNDO 5', 'nothing_to_undo');
    await refused('ERASE P', 'nothing_selected');
    await refused('SELECT W 100,100 200,200', 'nothing_selected');
    await refused('LAYER S Nowhere', 'layer_missing');
    await refused('LAYER M bad:name', 'invalid_name');
    await refused('ZOOM E', 'no_extent');
    expect(await all()).toEqual([]);
  });

  it('without an open document: document_required', async () => {
    // Closing the last document leaves a blank one, so a session that never opened one is needed.
    const empty = await startHarness();
    try {
      const answer = await empty.call('run', { cmd: 'CIRCLE 0,0 1' });
      expect(answer).toMatchObject({ ok: false, code: 'document_required' });
    } finally {
      await empty.close();
    }
  });
});

it('the read model rebuilt from the log equals the live one after command lines', async () => {
  await ran('LAYER M A; LINE 0,0 5,5 @5<0; CIRCLE 1,1 1; SELECT ALL; ZOOM E');
  await ran('MOVE P 0,0 1,1; COPY L 0,0 @2,2; UNDO; REDO; ERASE L');
  await run('CIRCLE 0,0 1; BOGUS');
  const live = JSON.parse(JSON.stringify(h.session.state));
  const rebuilt = await rebuildProjection(h.store, editorSessionProjection(h.session.sessionId));
  expect(JSON.parse(JSON.stringify(rebuilt.state))).toEqual(live);
});
