import { describe, expect, it } from 'vitest';
import { EditorError } from '../../src/editor/errors.js';
import {
  findPaper,
  formatScale,
  PAPER_SIZES,
  PageSetupError,
  pageSize,
  parseOrientation,
  parsePaper,
  parseScale,
  scaleFactor,
} from '../../src/editor/paper.js';

function pageSetupError(fn: () => unknown): PageSetupError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(PageSetupError);
    expect(error).toBeInstanceOf(EditorError);
    return error as PageSetupError;
  }
  throw new Error('expected a PageSetupError');
}

describe('paper sizes', () => {
  it('are the ISO A0-A4 and ANSI A-E sheets', () => {
    expect(PAPER_SIZES.map((p) => p.name)).toEqual([
      'ISO A0',
      'ISO A1',
      'ISO A2',
      'ISO A3',
      'ISO A4',
      'ANSI A',
      'ANSI B',
      'ANSI C',
      'ANSI D',
      'ANSI E',
    ]);
  });

  it.each([
    ['ISO A0', 841, 1189],
    ['ISO A1', 594, 841],
    ['ISO A2', 420, 594],
    ['ISO A3', 297, 420],
    ['ISO A4', 210, 297],
  ])('%s is %i x %i mm', (name, width, height) => {
    const p = parsePaper(name);
    expect(p.units).toBe('mm');
    expect(p.mm).toEqual({ width, height });
    expect(p.inches.width).toBeCloseTo(width / 25.4, 10);
    expect(p.inches.height).toBeCloseTo(height / 25.4, 10);
  });

  it.each([
    ['ANSI A', 8.5, 11, 215.9, 279.4],
    ['ANSI B', 11, 17, 279.4, 431.8],
    ['ANSI C', 17, 22, 431.8, 558.8],
    ['ANSI D', 22, 34, 558.8, 863.6],
    ['ANSI E', 34, 44, 863.6, 1117.6],
  ])('%s is %f x %f in (%f x %f mm)', (name, w, h, wmm, hmm) => {
    const p = parsePaper(name);
    expect(p.units).toBe('in');
    expect(p.inches).toEqual({ width: w, height: h });
    expect(p.mm).toEqual({ width: wmm, height: hmm });
    expect(p.mm.width).toBeCloseTo(w * 25.4, 10);
    expect(p.mm.height).toBeCloseTo(h * 25.4, 10);
  });

  it('each halves into the next ISO size', () => {
    const iso = PAPER_SIZES.filter((p) => p.family === 'ISO');
    for (let i = 1; i < iso.length; i++) {
      const big = iso[i - 1]?.mm;
      const small = iso[i]?.mm;
      expect(small?.height).toBe(big?.width);
      expect(small?.width).toBe(Math.floor((big?.height ?? 0) / 2));
    }
  });

  it('carry AutoCAD canonical media names', () => {
    expect(parsePaper('ISO A4').media).toBe('ISO_A4_(210.00_x_297.00_MM)');
    expect(parsePaper('ISO A0').media).toBe('ISO_A0_(841.00_x_1189.00_MM)');
    expect(parsePaper('ANSI A').media).toBe('ANSI_A_(8.50_x_11.00_Inches)');
    expect(parsePaper('ANSI E').media).toBe('ANSI_E_(34.00_x_44.00_Inches)');
  });
});

describe('findPaper', () => {
  it.each([
    ['ISO A4', 'ISO A4'],
    ['A4', 'ISO A4'],
    ['a4', 'ISO A4'],
    ['iso_a4', 'ISO A4'],
    ['ISO_A4', 'ISO A4'],
    ['ISO-A3', 'ISO A3'],
    ['  ISO  A0 ', 'ISO A0'],
    ['ISO_A4_(210.00_x_297.00_MM)', 'ISO A4'],
    ['ISO_A4_(297.00_x_210.00_MM)', 'ISO A4'],
    ['iso_a1_(594.00_x_841.00_mm)', 'ISO A1'],
    ['ISO_full_bleed_A3_(420.00_x_297.00_MM)', 'ISO A3'],
    ['ISO_expand_A2_(420.00_x_594.00_MM)', 'ISO A2'],
    ['ANSI A', 'ANSI A'],
    ['ANSI_A', 'ANSI A'],
    ['ansi-b', 'ANSI B'],
    ['ANSI_A_(8.50_x_11.00_Inches)', 'ANSI A'],
    ['ANSI_A_(11.00_x_8.50_Inches)', 'ANSI A'],
    ['ANSI_full_bleed_B_(17.00_x_11.00_Inches)', 'ANSI B'],
    ['ANSI_D_(22.00_x_34.00_Inches)', 'ANSI D'],
    ['Letter', 'ANSI A'],
    ['LETTER', 'ANSI A'],
    ['Tabloid', 'ANSI B'],
    ['Ledger', 'ANSI B'],
  ])('finds %j as %s', (name, expected) => {
    expect(findPaper(name)?.name).toBe(expected);
  });

  it.each([
    'A5',
    'ISO A5',
    'B4',
    'ANSI F',
    'Legal',
    'A',
    '',
    'ISO_A4_(200.00_x_297.00_MM)',
    'ISO_A4_(8.27_x_11.69_Inches)',
    'ANSI_A_(215.90_x_279.40_MM)',
    'ISO_A_(8.50_x_11.00_Inches)',
    'ISO_A4_(210.00_x_297.00_MM',
  ])('does not find %j', (name) => {
    expect(findPaper(name)).toBeUndefined();
  });

  it('parsePaper throws invalid_paper listing the known papers', () => {
    const error = pageSetupError(() => parsePaper('A5'));
    expect(error.code).toBe('invalid_paper');
    expect(error.message).toContain('"A5"');
    expect(error.message).toContain('ISO A4');
    expect(error.message).toContain('ANSI E');
    expect(pageSetupError(() => parsePaper(4)).code).toBe('invalid_paper');
    expect(pageSetupError(() => parsePaper(null)).code).toBe('invalid_paper');
  });
});

describe('pageSize', () => {
  it('lays the sheet out portrait or landscape in its own units', () => {
    const a4 = parsePaper('A4');
    expect(pageSize(a4, 'portrait')).toEqual({ width: 210, height: 297, units: 'mm' });
    expect(pageSize(a4, 'landscape')).toEqual({ width: 297, height: 210, units: 'mm' });
    const letter = parsePaper('Letter');
    expect(pageSize(letter, 'portrait')).toEqual({ width: 8.5, height: 11, units: 'in' });
    expect(pageSize(letter, 'landscape')).toEqual({ width: 11, height: 8.5, units: 'in' });
  });

  it('converts on request', () => {
    expect(pageSize(parsePaper('ANSI D'), 'landscape', 'mm')).toEqual({
      width: 863.6,
      height: 558.8,
      units: 'mm',
    });
    const a3 = pageSize(parsePaper('ISO A3'), 'portrait', 'in');
    expect(a3.units).toBe('in');
    expect(a3.width).toBeCloseTo(11.693, 3);
    expect(a3.height).toBeCloseTo(16.535, 3);
  });
});

describe('parseOrientation', () => {
  it('takes portrait and landscape', () => {
    expect(parseOrientation('portrait')).toBe('portrait');
    expect(parseOrientation(' Landscape ')).toBe('landscape');
  });

  it.each(['sideways', '', 1, null, undefined])('refuses %j with invalid_orientation', (value) => {
    const error = pageSetupError(() => parseOrientation(value));
    expect(error.code).toBe('invalid_orientation');
    expect(error.message).toContain('portrait or landscape');
  });
});

describe('parseScale', () => {
  it.each<[unknown, [number, number]]>([
    ['1:50', [1, 50]],
    ['1 : 100', [1, 100]],
    ['2:1', [2, 1]],
    ['1:1', [1, 1]],
    ['1=100', [1, 100]],
    ['1:2.5', [1, 2.5]],
    ['.5:1', [0.5, 1]],
  ])('takes the ratio %j', (value, expected) => {
    expect(parseScale(value)).toEqual(expected);
  });

  it.each<[string, number]>([
    [`1/4" = 1'-0"`, 48],
    [`1/4"=1'-0"`, 48],
    [`1/8" = 1'-0"`, 96],
    [`3/16" = 1'-0"`, 64],
    [`3/32" = 1'-0"`, 128],
    [`1/128" = 1'-0"`, 1536],
    [`3/8" = 1'-0"`, 32],
    [`1/2" = 1'-0"`, 24],
    [`3/4" = 1'-0"`, 16],
    [`1" = 1'-0"`, 12],
    [`1 1/2" = 1'-0"`, 8],
    [`1-1/2" = 1'-0"`, 8],
    [`3" = 1'-0"`, 4],
    [`6" = 1'-0"`, 2],
    [`1'-0" = 1'-0"`, 1],
    [`1" = 10'`, 120],
    [`1" = 20'`, 240],
    [`1" = 100'`, 1200],
    [`1/4\u2033 = 1\u2032-0\u2033`, 48],
  ])('takes the architectural or engineering scale %s as 1:%i', (value, drawing) => {
    expect(parseScale(value)).toEqual([1, drawing]);
  });

  it('takes a factor paper / drawing as a number or string', () => {
    expect(parseScale(0.02)).toEqual([1, 50]);
    expect(parseScale(1)).toEqual([1, 1]);
    expect(parseScale(2)).toEqual([2, 1]);
    expect(parseScale(0.01)).toEqual([1, 100]);
    expect(parseScale(1 / 48)).toEqual([1, 48]);
    expect(parseScale('0.02')).toEqual([1, 50]);
    expect(parseScale('1/50')).toEqual([1, 50]);
    expect(parseScale('4')).toEqual([4, 1]);
  });

  it('takes [paper, drawing] pairs and objects as given', () => {
    expect(parseScale([1, 50])).toEqual([1, 50]);
    expect(parseScale([2.5, 1])).toEqual([2.5, 1]);
    expect(parseScale({ paper: 1, drawing: 20 })).toEqual([1, 20]);
  });

  it.each<unknown>([
    0,
    -1,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    '',
    'fit',
    'abc',
    '1:0',
    '0:1',
    '-1:50',
    '1:50:2',
    '1/0',
    '0/5',
    `1/4" = 0'-0"`,
    `1/4" = banana`,
    `x = 1'-0"`,
    '=',
    [1],
    [1, 2, 3],
    [0, 50],
    [1, -50],
    [1, '50'],
    { paper: 1 },
    { paper: 0, drawing: 1 },
    null,
    undefined,
    true,
  ])('refuses %j with invalid_scale', (value) => {
    const error = pageSetupError(() => parseScale(value));
    expect(error.code).toBe('invalid_scale');
    expect(error.message).toMatch(/^invalid scale /);
  });

  it('formats and converts scales', () => {
    expect(formatScale([1, 50])).toBe('1:50');
    expect(formatScale(parseScale(`1/4" = 1'-0"`))).toBe('1:48');
    expect(scaleFactor([1, 50])).toBe(0.02);
    expect(scaleFactor([2, 1])).toBe(2);
  });
});
