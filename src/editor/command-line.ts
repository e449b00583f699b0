/**
 * The `run` operation's command line, in the style of AutoCAD's: text in, typed commands out. Pure:
 * the executor (ops/run.ts) maps each command onto the other ops. Names and keywords are
 * case-insensitive; several commands are separated by `;` or newlines.
 *
 * Grammar (`[]` optional, `{}` repeated, `|` alternatives):
 *
 *   line      := command { (";" | newline) command }        empty commands are skipped
 *   command   := name { argument }                          arguments separated by blanks
 *   point     := [@] num "," num ["," num]                  absolute x,y; with @: dx,dy from the last point
 *              | [@] num "<" num                            polar distance<angle (degrees, counter-
 *                                                           clockwise from +x); with @: from the last point
 *              | "@"                                        the last point itself
 *   num       := [+|-] digits [. digits] [e [+|-] digits]
 *   selection := L | LAST                                   the last model space entity in the drawing order
 *              | P | PREVIOUS                               the document's current selection
 *              | ALL                                        every model space entity
 *              | W point point | C point point              window (inside) / crossing (inside or
 *                                                           crossing the edge) between two corners
 *              | handle {"," handle}                        handles (hex); keywords win over handles
 *
 *   LINE   | L   point point {point} [C]                   a chain of lines; C closes it back to the first
 *   CIRCLE | C   point radius                               centre and radius
 *   ARC    | A   point radius start end                     centre, radius, start and end angle (degrees, CCW)
 *              | point point point                          through three points, from the first to the third
 *   TEXT   | T   point height rotation text                 the text is the rest of the command (or "quoted")
 *   ERASE  | E   selection {handle}
 *   MOVE   | M   selection base destination
 *   COPY   | CO  selection base destination
 *   ROTATE | RO  selection base angle                       degrees, counter-clockwise
 *   SCALE  | SC  selection base factor
 *   LAYER  | LA  (M | MAKE | S | SET) name                  make (create if missing and set current) / set current
 *   SELECT       selection {handle}                         makes it the document's selection
 *   ZOOM   | Z   E | EXTENTS | W point point                frames everything, or a window
 *   UNDO   | U   [count]
 *   REDO         [count]
 *
 * The last point starts at 0,0 for each command line (AutoCAD's LASTPOINT starts at the origin) and
 * every point entered becomes the last point, in the order written; so `MOVE 2A 5,5 @10,0` moves by
 * 10,0. Text in double quotes is one argument (it may hold `;` and blanks).
 */
import { dictGet } from './dict.js';
import { EditorError } from './errors.js';
import { cosSinDeg } from './geometry/math.js';
import type { Point3 } from './model.js';

export type Selection =
  | { kind: 'last' }
  | { kind: 'previous' }
  | { kind: 'all' }
  | { kind: 'window' | 'crossing'; corners: [Point3, Point3] }
  | { kind: 'handles'; handles: string[] };

interface Source {
  /** The command as written (trimmed), for answers and messages. */
  text: string;
}

export type Command = Source &
  (
    | { name: 'LINE'; points: Point3[] }
    | { name: 'CIRCLE'; center: Point3; radius: number }
    | { name: 'ARC'; center: Point3; radius: number; start: number; end: number }
    | { name: 'ARC3P'; points: [Point3, Point3, Point3] }
    | { name: 'TEXT'; position: Point3; height: number; rotation: number; value: string }
    | { name: 'ERASE' | 'SELECT'; selection: Selection }
    | { name: 'MOVE' | 'COPY'; selection: Selection; base: Point3; destination: Point3 }
    | { name: 'ROTATE'; selection: Selection; base: Point3; angle: number }
    | { name: 'SCALE'; selection: Selection; base: Point3; factor: number }
    | { name: 'LAYER'; action: 'make' | 'set'; layer: string }
    | { name: 'ZOOM'; window: [Point3, Point3] | null }
    | { name: 'UNDO' | 'REDO'; count: number }
  );

/** Command names and aliases, to the command they run. */
export const COMMAND_NAMES: Readonly<Record<string, string>> = {
  LINE: 'LINE',
  L: 'LINE',
  CIRCLE: 'CIRCLE',
  C: 'CIRCLE',
  ARC: 'ARC',
  A: 'ARC',
  TEXT: 'TEXT',
  T: 'TEXT',
  DTEXT: 'TEXT',
  ERASE: 'ERASE',
  E: 'ERASE',
  MOVE: 'MOVE',
  M: 'MOVE',
  COPY: 'COPY',
  CO: 'COPY',
  CP: 'COPY',
  ROTATE: 'ROTATE',
  RO: 'ROTATE',
  SCALE: 'SCALE',
  SC: 'SCALE',
  LAYER: 'LAYER',
  LA: 'LAYER',
  SELECT: 'SELECT',
  ZOOM: 'ZOOM',
  Z: 'ZOOM',
  UNDO: 'UNDO',
  U: 'UNDO',
  REDO: 'REDO',
};

interface Token {
  text: string;
  quoted: boolean;
  /** Offset in the command's text where the token starts. */
  start: number;
}

/** Splits a line into commands (at `;` and newlines outside quotes), each with its tokens. */
function scan(line: string): Array<{ text: string; tokens: Token[] }> {
  const commands: Array<{ text: string; tokens: Token[] }> = [];
  let tokens: Token[] = [];
  let begin = 0;
  let i = 0;
  const end = (at: number) => {
    const raw = line.slice(begin, at);
    const lead = raw.length - raw.trimStart().length;
    if (tokens.length > 0)
      commands.push({
        text: raw.trim(),
        tokens: tokens.map((t) => ({ ...t, start: t.start - begin - lead })),
      });
    tokens = [];
    begin = at + 1;
  };
  while (i < line.length) {
    const ch = line[i] as string;
    if (ch === ';' || ch === '\n' || ch === '\r') {
      end(i);
      i += 1;
    } else if (/\s/.test(ch)) {
      i += 1;
    } else if (ch === '"') {
      const close = line.indexOf('"', i + 1);
      if (close < 0)
        throw new EditorError('invalid_command', `a quote opened at offset ${i} is never closed`);
      tokens.push({ text: line.slice(i + 1, close), quoted: true, start: i });
      i = close + 1;
    } else {
      let j = i;
      while (j < line.length && !/[\s;"]/.test(line[j] as string)) j += 1;
      tokens.push({ text: line.slice(i, j), quoted: false, start: i });
      i = j;
    }
  }
  end(line.length);
  return commands;
}

const NUM = '[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?';
const CARTESIAN = new RegExp(`^(@)?(${NUM}),(${NUM})(?:,(${NUM}))?$`);
const POLAR = new RegExp(`^(@)?(${NUM})<(${NUM})$`);
const NUMBER = new RegExp(`^${NUM}$`);
const HANDLE = /^[0-9A-Fa-f]{1,16}$/;

/** Reads one command's arguments in order, keeping the last point. */
class Reader {
  private at = 0;
  constructor(
    private readonly name: string,
    private readonly text: string,
    private readonly tokens: Token[],
    private readonly state: { last: Point3 },
  ) {}

  get left(): number {
    return this.tokens.length - this.at;
  }

  peek(): Token | undefined {
    return this.tokens[this.at];
  }

  private next(expected: string): Token {
    const token = this.tokens[this.at];
    if (!token) throw this.invalid(`${this.name} expects ${expected} after "${this.text}"`);
    this.at += 1;
    return token;
  }

  invalid(message: string): EditorError {
    return new EditorError('invalid_command', message, { command: this.text });
  }

  point(what: string): Point3 {
    const token = this.next(`${what} (x,y, @dx,dy or @dist<angle)`);
    const p = parsePoint(token.text, this.state.last);
    if (!p) {
      throw new EditorError(
        'invalid_point',
        `${this.name}: ${what} must be a point (x,y, @dx,dy or @dist<angle), got "${token.text}"`,
        { command: this.text },
      );
    }
    this.state.last = p;
    return p;
  }

  number(what: string): number {
    const token = this.next(what);
    if (!NUMBER.test(token.text))
      throw this.invalid(`${this.name}: ${what} must be a number, got "${token.text}"`);
    return Number(token.text);
  }

  word(what: string): string {
    return this.next(what).text;
  }

  keyword(): string | undefined {
    const token = this.peek();
    return token && !token.quoted ? token.text.toUpperCase() : undefined;
  }

  /** The rest of the command as written: one quoted argument, or the raw text from the next token on. */
  rest(what: string): string {
    const first = this.next(what);
    if (first.quoted && this.left === 0) return first.text;
    const value = this.text.slice(first.start).trim();
    this.at = this.tokens.length;
    return value;
  }

  selection(extraHandles: boolean): Selection {
    const key = this.keyword();
    if (key === undefined)
      throw this.invalid(`${this.name} expects a selection (handles, L, P, ALL, W or C)`);
    if (key === 'L' || key === 'LAST') return this.skip({ kind: 'last' });
    if (key === 'P' || key === 'PREVIOUS') return this.skip({ kind: 'previous' });
    if (key === 'ALL') return this.skip({ kind: 'all' });
    if (key === 'W' || key === 'C') {
      this.at += 1;
      const corners: [Point3, Point3] = [this.point('the first corner'), this.point('the other corner')];
      return { kind: key === 'W' ? 'window' : 'crossing', corners };
    }
    const handles = this.handles();
    while (extraHandles && this.left > 0) handles.push(...this.handles());
    return { kind: 'handles', handles };
  }

  private handles(): string[] {
    const token = this.next('handles');
    const handles = token.text.split(',').filter((h) => h !== '');
    if (handles.length === 0 || !handles.every((h) => HANDLE.test(h))) {
      throw this.invalid(
        `${this.name}: expected a selection (handles like 2A,2B, or L, P, ALL, W x1,y1 x2,y2, C x1,y1 x2,y2), got "${token.text}"`,
      );
    }
    return handles.map((h) => h.toUpperCase());
  }

  private skip<T>(value: T): T {
    this.at += 1;
    return value;
  }

  done(): void {
    const extra = this.peek();
    if (extra)
      throw this.invalid(`${this.name}: unexpected "${extra.text}" (the command was complete before it)`);
  }
}

/** A point token against the last point; undefined when it is not a point. */
export function parsePoint(text: string, last: Point3): Point3 | undefined {
  if (text === '@') return [...last];
  const c = CARTESIAN.exec(text);
  if (c) {
    const p: Point3 = [Number(c[2]), Number(c[3]), c[4] === undefined ? 0 : Number(c[4])];
    return c[1] ? [last[0] + p[0], last[1] + p[1], last[2] + p[2]] : p;
  }
  const polar = POLAR.exec(text);
  if (polar) {
    const distance = Number(polar[2]);
    // Exact at multiples of 90 degrees: 10<90 is 0,10, not 6e-16,10.
    const [cos, sin] = cosSinDeg(Number(polar[3]));
    const origin: Point3 = polar[1] ? last : [0, 0, 0];
    return [origin[0] + distance * cos, origin[1] + distance * sin, origin[2]];
  }
  return undefined;
}

function command(name: string, r: Reader, text: string): Command {
  switch (name) {
    case 'LINE': {
      const points = [r.point('a start point'), r.point('a second point')];
      while (r.left > 0) {
        if (r.keyword() === 'C' || r.keyword() === 'CLOSE') {
          r.word('C');
          if (points.length < 3) throw r.invalid('LINE: C (close) needs at least three points before it');
          points.push(points[0] as Point3);
          break;
        }
        points.push(r.point('a next point'));
      }
      r.done();
      return { text, name, points };
    }
    case 'CIRCLE': {
      const center = r.point('a centre point');
      const radius = r.number('a radius');
      r.done();
      return { text, name, center, radius };
    }
    case 'ARC': {
      const first = r.point('a centre (or first) point');
      const token = r.peek();
      if (token && !NUMBER.test(token.text)) {
        const points: [Point3, Point3, Point3] = [first, r.point('a second point'), r.point('an end point')];
        r.done();
        return { text, name: 'ARC3P', points };
      }
      const radius = r.number('a radius');
      const start = r.number('a start angle');
      const end = r.number('an end angle');
      r.done();
      return { text, name, center: first, radius, start, end };
    }
    case 'TEXT': {
      const position = r.point('an insertion point');
      const height = r.number('a height');
      const rotation = r.number('a rotation angle');
      const value = r.rest('the text');
      return { text, name, position, height, rotation, value };
    }
    case 'ERASE':
    case 'SELECT': {
      const selection = r.selection(true);
      r.done();
      return { text, name, selection };
    }
    case 'MOVE':
    case 'COPY':
    case 'ROTATE':
    case 'SCALE': {
      // A selection and a base point, then what each does with them.
      const selection = r.selection(false);
      const base = r.point('a base point');
      const command: Command =
        name === 'ROTATE'
          ? { text, name, selection, base, angle: r.number('a rotation angle (degrees)') }
          : name === 'SCALE'
            ? { text, name, selection, base, factor: r.number('a scale factor') }
            : { text, name, selection, base, destination: r.point('a destination point') };
      r.done();
      return command;
    }
    case 'LAYER': {
      const option = r.word('M (make) or S (set)').toUpperCase();
      const action =
        option === 'M' || option === 'MAKE' ? 'make' : option === 'S' || option === 'SET' ? 'set' : undefined;
      if (!action) throw r.invalid(`LAYER expects M (make) or S (set), got "${option}"`);
      const layer = r.word('a layer name');
      r.done();
      return { text, name, action, layer };
    }
    case 'ZOOM': {
      const option = r.word('E (extents) or W (window)').toUpperCase();
      if (option === 'E' || option === 'EXTENTS') {
        r.done();
        return { text, name, window: null };
      }
      if (option !== 'W' && option !== 'WINDOW')
        throw r.invalid(`ZOOM expects E (extents) or W x1,y1 x2,y2 (window), got "${option}"`);
      const window: [Point3, Point3] = [r.point('the first corner'), r.point('the other corner')];
      r.done();
      return { text, name, window };
    }
    case 'UNDO':
    case 'REDO': {
      let count = 1;
      if (r.left > 0) {
        count = r.number('a count');
        if (!Number.isInteger(count) || count < 1)
          throw r.invalid(`${name}: the count must be a whole number of 1 or more, got ${count}`);
      }
      r.done();
      return { text, name, count };
    }
  }
  throw new Error(`command-line bug: no parser for ${name}`);
}

/**
 * Parses a whole command line. Throws EditorError `unknown_command` (naming it), `invalid_point` (a
 * point that does not parse) or `invalid_command` (what was expected), with the command's text.
 */
export function parseCommandLine(line: string): Command[] {
  const state = { last: [0, 0, 0] as Point3 };
  const commands = scan(line).map(({ text, tokens }) => {
    const [head, ...args] = tokens as [Token, ...Token[]];
    const name = head.quoted ? undefined : dictGet(COMMAND_NAMES, head.text.toUpperCase());
    if (!name) {
      throw new EditorError(
        'unknown_command',
        `unknown command "${head.text}" (known: LINE, CIRCLE, ARC, TEXT, ERASE, MOVE, COPY, ROTATE, SCALE, LAYER, SELECT, ZOOM, UNDO, REDO)`,
        { command: text },
      );
    }
    return command(name, new Reader(name, text, args, state), text);
  });
  if (commands.length === 0) throw new EditorError('invalid_command', 'the command line holds no command');
  return commands;
}
