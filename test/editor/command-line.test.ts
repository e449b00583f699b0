import { describe, expect, it } from 'vitest';
import { parseCommandLine, parsePoint } from '../../src/editor/command-line.js';
import { EditorError } from '../../src/editor/errors.js';
import { arcThrough } from '../../src/editor/ops/run.js';

const one = (line: string) => {
  const commands = parseCommandLine(line);
  expect(commands).toHaveLength(1);
  return commands[0] as unknown as Record<string, unknown>;
};

const failure = (line: string): EditorError => {
  try {
    parseCommandLine(line);
  } catch (error) {
    if (error instanceof EditorError) return error;
    throw error;
  }
  throw new Error(`${line} parsed`);
};

describe('points', () => {
  const last: [number, number, number] = [10, 20, 0];
  it('absolute, relative, polar and the last point', () => {
    expect(parsePoint('3,4', last)).toEqual([3, 4, 0]);
    expect(parsePoint('-1.5,.5,2', last)).toEqual([-1.5, 0.5, 2]);
    expect(parsePoint('1e1,-2E0', last)).toEqual([10, -2, 0]);
    expect(parsePoint('@3,-4', last)).toEqual([13, 16, 0]);
    expect(parsePoint('@10<90', last)).toEqual([10, 30, 0]);
    expect(parsePoint('@10<180', last)).toEqual([0, 20, 0]);
    expect(parsePoint('5<0', last)).toEqual([5, 0, 0]);
    const p = parsePoint('@2<45', last) as number[];
    expect(p[0]).toBeCloseTo(10 + Math.SQRT2);
    expect(p[1]).toBeCloseTo(20 + Math.SQRT2);
    expect(parsePoint('@', last)).toEqual([10, 20, 0]);
  });

  it('anything else is not a point', () => {
    for (const text of ['3', '3,', ',4', '3;4', '@<5', 'a,b', '1,2,3,4', '@10<', '1..2,3']) {
      expect(parsePoint(text, last), text).toBeUndefined();
    }
  });
});

describe('commands', () => {
  it('LINE: a chain, relative to the last point, closed with C', () => {
    expect(one('LINE 0,0 10,0 @0,10')).toMatchObject({
      name: 'LINE',
      points: [
        [0, 0, 0],
        [10, 0, 0],
        [10, 10, 0],
      ],
    });
    expect(one('l 0,0 10,0 @0,10 c')).toMatchObject({
      points: [
        [0, 0, 0],
        [10, 0, 0],
        [10, 10, 0],
        [0, 0, 0],
      ],
    });
  });

  it('the last point carries over from one command to the next and starts at the origin', () => {
    const [a, b] = parseCommandLine('CIRCLE @5,5 2; line @ @3<0') as unknown as Array<
      Record<string, unknown>
    >;
    expect(a).toMatchObject({ name: 'CIRCLE', center: [5, 5, 0], radius: 2 });
    expect(b).toMatchObject({
      points: [
        [5, 5, 0],
        [8, 5, 0],
      ],
    });
  });

  it('ARC by centre and angles, or through three points', () => {
    expect(one('ARC 1,1 5 0 90')).toMatchObject({
      name: 'ARC',
      center: [1, 1, 0],
      radius: 5,
      start: 0,
      end: 90,
    });
    expect(one('a 5,0 0,5 -5,0')).toMatchObject({
      name: 'ARC3P',
      points: [
        [5, 0, 0],
        [0, 5, 0],
        [-5, 0, 0],
      ],
    });
  });

  it('TEXT takes the rest of the command as written, or one quoted argument', () => {
    expect(one('TEXT 0,0 2.5 0 Hello   world')).toMatchObject({
      name: 'TEXT',
      position: [0, 0, 0],
      height: 2.5,
      rotation: 0,
      value: 'Hello   world',
    });
    const [text, circle] = parseCommandLine('text 1,2 3 45 "a; b"; circle 0,0 1') as unknown as Array<
      Record<string, unknown>
    >;
    expect(text).toMatchObject({ value: 'a; b', rotation: 45 });
    expect(circle).toMatchObject({ name: 'CIRCLE' });
  });

  it('selections: handles, L, P, ALL, window and crossing', () => {
    expect(one('ERASE 2a,2B 3C')).toMatchObject({
      selection: { kind: 'handles', handles: ['2A', '2B', '3C'] },
    });
    expect(one('erase l')).toMatchObject({ selection: { kind: 'last' } });
    expect(one('ERASE Previous')).toMatchObject({ selection: { kind: 'previous' } });
    expect(one('SELECT all')).toMatchObject({ name: 'SELECT', selection: { kind: 'all' } });
    expect(one('SELECT W 0,0 @10,10')).toMatchObject({
      selection: {
        kind: 'window',
        corners: [
          [0, 0, 0],
          [10, 10, 0],
        ],
      },
    });
    expect(one('select c 5,5 -5,-5')).toMatchObject({ selection: { kind: 'crossing' } });
  });

  it('MOVE, COPY, ROTATE and SCALE: selection, base point and the rest', () => {
    expect(one('MOVE 2A 5,5 @10,0')).toMatchObject({
      name: 'MOVE',
      base: [5, 5, 0],
      destination: [15, 5, 0],
    });
    expect(one('co L 0,0 3,4')).toMatchObject({
      name: 'COPY',
      selection: { kind: 'last' },
      destination: [3, 4, 0],
    });
    expect(one('ROTATE P 1,1 90')).toMatchObject({ name: 'ROTATE', base: [1, 1, 0], angle: 90 });
    expect(one('sc all 0,0 2')).toMatchObject({ name: 'SCALE', factor: 2 });
  });

  it('LAYER, ZOOM, UNDO and REDO', () => {
    expect(one('LAYER M Walls')).toMatchObject({ name: 'LAYER', action: 'make', layer: 'Walls' });
    expect(one('la set 0')).toMatchObject({ action: 'set', layer: '0' });
    expect(one('ZOOM E')).toMatchObject({ name: 'ZOOM', window: null });
    expect(one('z w 0,0 10,5')).toMatchObject({
      window: [
        [0, 0, 0],
        [10, 5, 0],
      ],
    });
    expect(one('UNDO')).toMatchObject({ name: 'UNDO', count: 1 });
    expect(one('u 3')).toMatchObject({ name: 'UNDO', count: 3 });
    expect(one('REDO 2')).toMatchObject({ name: 'REDO', count: 2 });
  });

  it('several commands by ; and newlines; empty ones skipped; the text of each kept', () => {
    const commands = parseCommandLine('LINE 0,0 1,1;; \n circle 0,0 1 \r\n UNDO ;');
    expect(commands.map((c) => c.name)).toEqual(['LINE', 'CIRCLE', 'UNDO']);
    expect(commands.map((c) => c.text)).toEqual(['LINE 0,0 1,1', 'circle 0,0 1', 'UNDO']);
  });
});

describe('errors', () => {
  it('unknown_command names the command', () => {
    const e = failure('LINE 0,0 1,1; EXPLODE 2A');
    expect(e.code).toBe('unknown_command');
    expect(e.message).toContain('"EXPLODE"');
    expect(e.details).toMatchObject({ command: 'EXPLODE 2A' });
  });

  it('invalid_point for a point that does not parse', () => {
    for (const line of ['LINE 0,0 ten,0', 'CIRCLE x 2', 'MOVE 2A 0,0 @a', 'SELECT W 0,0 9']) {
      expect(failure(line).code, line).toBe('invalid_point');
    }
  });

  it('invalid_command says what was expected', () => {
    const cases: Array<[string, string]> = [
      ['LINE 0,0', 'a second point'],
      ['CIRCLE 0,0', 'a radius'],
      ['CIRCLE 0,0 big', 'must be a number'],
      ['CIRCLE 0,0 1 2', 'unexpected "2"'],
      ['LINE 0,0 1,1 C', 'at least three points'],
      ['ERASE', 'selection'],
      ['ERASE G0,0', 'expected a selection'],
      ['TEXT 0,0 2.5 0', 'the text'],
      ['LAYER X foo', 'M (make) or S (set)'],
      ['ZOOM Q', 'E (extents) or W'],
      ['UNDO 0', 'whole number of 1 or more'],
      ['UNDO 1.5', 'whole number'],
      ['TEXT 0,0 1 0 "open', 'never closed'],
      ['  ;  ; ', 'no command'],
    ];
    for (const [line, expected] of cases) {
      const e = failure(line);
      expect(e.code, line).toBe('invalid_command');
      expect(e.message, line).toContain(expected);
    }
  });
});

describe('arcThrough', () => {
  it('counter-clockwise picks keep their order; clockwise ones are reversed', () => {
    const ccw = arcThrough([5, 0, 0], [0, 5, 0], [-5, 0, 0]);
    expect(ccw.center[0]).toBeCloseTo(0);
    expect(ccw.center[1]).toBeCloseTo(0);
    expect(ccw.radius).toBeCloseTo(5);
    expect([ccw.start, ccw.end]).toEqual([0, 180]);
    const cw = arcThrough([-5, 0, 0], [0, 5, 0], [5, 0, 0]);
    expect([cw.start, cw.end]).toEqual([0, 180]);
  });

  it('points in line are invalid_point', () => {
    expect(() => arcThrough([0, 0, 0], [1, 1, 0], [2, 2, 0])).toThrow(/in line/);
    expect(() => arcThrough([0, 0, 0], [0, 0, 0], [2, 2, 0])).toThrow(EditorError);
  });
});
