import { describe, expect, it } from 'vitest';
import { EditorError } from '../../src/editor/errors.js';
import type { DxfTag } from '../../src/editor/model.js';
import {
  describeAllowed,
  describeSysvar,
  findSysvar,
  findSysvarByHeader,
  formatDxfReal,
  getSysvar,
  InvalidSysvarValueError,
  inHeaderOf,
  parseSysvarValue,
  SYSVARS,
  type SysvarContext,
  type SysvarDef,
  SysvarError,
  sysvarDefault,
  sysvarFromHeader,
  sysvarToHeader,
  UnknownSysvarError,
} from '../../src/editor/sysvars.js';

const def = (name: string): SysvarDef => getSysvar(name);

/** The error `fn` throws, checked to be a SysvarError. */
function sysvarError(fn: () => unknown): SysvarError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SysvarError);
    return error as SysvarError;
  }
  throw new Error('expected a SysvarError');
}

const REQUIRED = [
  'CLAYER',
  'CECOLOR',
  'CELTYPE',
  'CELWEIGHT',
  'LTSCALE',
  'CELTSCALE',
  'PSLTSCALE',
  'MIRRTEXT',
  'OSMODE',
  'ORTHOMODE',
  'SNAPMODE',
  'GRIDMODE',
  'PDMODE',
  'PDSIZE',
  'TEXTSIZE',
  'TEXTSTYLE',
  'DIMSCALE',
  'DIMSTYLE',
  'INSUNITS',
  'INSBASE',
  'LUNITS',
  'LUPREC',
  'AUNITS',
  'AUPREC',
  'ANGBASE',
  'ANGDIR',
  'MEASUREMENT',
  'EXTMIN',
  'EXTMAX',
  'LIMMIN',
  'LIMMAX',
  'LIMCHECK',
  'FILLMODE',
  'QTEXTMODE',
  'REGENMODE',
  'ATTMODE',
  'PLINEWID',
  'THICKNESS',
  'ELEVATION',
  'CHAMFERA',
  'CHAMFERB',
  'FILLETRAD',
  'TILEMODE',
  'MAXACTVP',
  'PELLIPSE',
  'SPLINESEGS',
  'SURFTAB1',
  'SURFTAB2',
  'HANDSEED',
  'ACADVER',
  'DWGCODEPAGE',
  'FINGERPRINTGUID',
  'VERSIONGUID',
];

describe('the sysvar table', () => {
  it('holds at least 40 variables, every one required by the issue among them', () => {
    expect(SYSVARS.length).toBeGreaterThanOrEqual(40);
    for (const name of REQUIRED) expect(findSysvar(name), name).toBeDefined();
  });

  it('has unique uppercase names, sorted, with a description and a consistent binding', () => {
    const names = SYSVARS.map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(names);
    for (const d of SYSVARS) {
      expect(d.name).toMatch(/^[A-Z][A-Z0-9]*$/);
      expect(d.description.length).toBeGreaterThan(10);
      if (d.storage === 'header') expect(d.header?.variable).toBe(`$${d.name}`);
      if (d.storage === 'vport') expect(d.vport?.codes.length).toBeGreaterThan(0);
      if (d.header) {
        const expected = d.type === 'point3' ? [10, 20, 30] : d.type === 'point2' ? [10, 20] : undefined;
        if (expected) expect(d.header.codes).toEqual(expected);
        else expect(d.header.codes).toHaveLength(1);
        if (d.type === 'bool') expect(d.header.codes).toEqual([290]);
      }
    }
  });

  it('has defaults that its own parser accepts', () => {
    const ctx: SysvarContext = { allowReadOnly: true };
    for (const d of SYSVARS) {
      for (const system of ['imperial', 'metric'] as const) {
        const value = sysvarDefault(d, system);
        // EXTMIN/EXTMAX: the "empty drawing" sentinels +-1e20 are points like any other
        expect(parseSysvarValue(d, value, ctx), `${d.name} ${system}`).toEqual(value);
      }
    }
  });

  it('records the group codes of the DXF reference', () => {
    const codes = (name: string) => def(name).header?.codes;
    expect(codes('LTSCALE')).toEqual([40]);
    expect(codes('CLAYER')).toEqual([8]);
    expect(codes('INSUNITS')).toEqual([70]);
    expect(codes('EXTMIN')).toEqual([10, 20, 30]);
    expect(codes('LIMMAX')).toEqual([10, 20]);
    expect(codes('CECOLOR')).toEqual([62]);
    expect(codes('CELTYPE')).toEqual([6]);
    expect(codes('CELWEIGHT')).toEqual([370]);
    expect(codes('TEXTSTYLE')).toEqual([7]);
    expect(codes('DIMSTYLE')).toEqual([2]);
    expect(codes('HANDSEED')).toEqual([5]);
    expect(codes('ACADVER')).toEqual([1]);
    expect(codes('DWGCODEPAGE')).toEqual([3]);
    expect(codes('FINGERPRINTGUID')).toEqual([2]);
    expect(codes('ANGBASE')).toEqual([50]);
    expect(codes('SORTENTS')).toEqual([280]);
  });

  it('marks session-only and viewport variables', () => {
    expect(def('OSMODE').storage).toBe('session');
    expect(def('PICKBOX').storage).toBe('session');
    expect(def('PICKBOX').header).toBeUndefined();
    expect(def('GRIDMODE')).toMatchObject({ storage: 'vport', vport: { codes: [76] } });
    expect(def('SNAPMODE')).toMatchObject({ storage: 'vport', vport: { codes: [75] } });
    expect(def('LTSCALE').storage).toBe('header');
  });

  it('knows which DXF versions carry a header variable', () => {
    expect(inHeaderOf(def('LTSCALE'), 'AC1009')).toBe(true);
    expect(inHeaderOf(def('INSUNITS'), 'AC1009')).toBe(false);
    expect(inHeaderOf(def('INSUNITS'), 'AC1015')).toBe(true);
    expect(inHeaderOf(def('OSMODE'), 'AC1009')).toBe(true);
    expect(inHeaderOf(def('OSMODE'), 'AC1015')).toBe(false);
    expect(inHeaderOf(def('SORTENTS'), 'AC1015')).toBe(false);
    expect(inHeaderOf(def('SORTENTS'), 'AC1032')).toBe(true);
    expect(inHeaderOf(def('GRIDMODE'), 'AC1032')).toBe(false);
  });

  it('has imperial and metric initial values where AutoCAD templates differ', () => {
    expect(sysvarDefault(def('INSUNITS'))).toBe(1);
    expect(sysvarDefault(def('INSUNITS'), 'metric')).toBe(4);
    expect(sysvarDefault(def('TEXTSIZE'), 'metric')).toBe(2.5);
    expect(sysvarDefault(def('LIMMAX'), 'metric')).toEqual([420, 297]);
    expect(sysvarDefault(def('DIMSTYLE'), 'metric')).toBe('ISO-25');
    expect(sysvarDefault(def('LTSCALE'), 'metric')).toBe(1);
    expect(sysvarDefault(def('OSMODE'))).toBe(4133);
    // a copy: changing it does not change the table
    const p = sysvarDefault(def('INSBASE')) as number[];
    p[0] = 99;
    expect(def('INSBASE').default).toEqual([0, 0, 0]);
  });
});

describe('findSysvar / getSysvar', () => {
  it('finds names case-insensitively, with or without $', () => {
    expect(findSysvar('ltscale')?.name).toBe('LTSCALE');
    expect(findSysvar('LtScale')?.name).toBe('LTSCALE');
    expect(findSysvar('$clayer')?.name).toBe('CLAYER');
    expect(findSysvar(' OSMODE ')?.name).toBe('OSMODE');
    expect(findSysvar('NOSUCHVAR')).toBeUndefined();
    expect(findSysvar('')).toBeUndefined();
    expect(findSysvarByHeader('$LTSCALE')?.name).toBe('LTSCALE');
    expect(findSysvarByHeader('$gridmode')).toBeUndefined();
  });

  it('getSysvar throws unknown_sysvar naming the variable', () => {
    const error = sysvarError(() => getSysvar('NOSUCHVAR'));
    expect(error).toBeInstanceOf(UnknownSysvarError);
    expect(error).toBeInstanceOf(EditorError);
    expect(error.code).toBe('unknown_sysvar');
    expect(error.variable).toBe('NOSUCHVAR');
    expect(error.message).toContain('NOSUCHVAR');
    expect(sysvarError(() => getSysvar(42)).code).toBe('unknown_sysvar');
  });
});

describe('parseSysvarValue', () => {
  const invalid = (name: string, value: unknown, ctx?: SysvarContext) => {
    const error = sysvarError(() => parseSysvarValue(def(name), value, ctx));
    expect(error).toBeInstanceOf(InvalidSysvarValueError);
    expect(error.code).toBe('invalid_sysvar_value');
    expect(error.variable).toBe(name);
    return error as InvalidSysvarValueError;
  };

  describe('int', () => {
    it('accepts integers, integer strings and 0/1 booleans', () => {
      expect(parseSysvarValue(def('LUNITS'), 4)).toBe(4);
      expect(parseSysvarValue(def('LUNITS'), ' 3 ')).toBe(3);
      expect(parseSysvarValue(def('MIRRTEXT'), true)).toBe(1);
      expect(parseSysvarValue(def('MIRRTEXT'), false)).toBe(0);
      expect(parseSysvarValue(def('ORTHOMODE'), 1)).toBe(1);
      expect(parseSysvarValue(def('INSUNITS'), 24)).toBe(24);
      expect(parseSysvarValue(def('AUNITS'), 0)).toBe(0);
      expect(parseSysvarValue(def('ANGDIR'), 1)).toBe(1);
      expect(parseSysvarValue(def('ATTMODE'), 2)).toBe(2);
    });

    it('checks ranges, naming the variable, the value and the range', () => {
      const error = invalid('LUNITS', 6);
      expect(error.message).toContain('LUNITS');
      expect(error.message).toContain('6');
      expect(error.message).toContain('1..5');
      expect(error.allowed).toBe('an integer 1..5');
      invalid('LUNITS', 0);
      invalid('INSUNITS', 25);
      invalid('INSUNITS', -1);
      invalid('MIRRTEXT', 2);
      invalid('ANGDIR', -1);
      invalid('AUNITS', 5);
      invalid('ORTHOMODE', 2);
      invalid('MAXACTVP', 1);
      invalid('SURFTAB1', 1);
      invalid('SURFTAB2', 32767);
    });

    it('refuses what is not an integer', () => {
      invalid('LUNITS', 2.5);
      invalid('LUNITS', '2.5');
      invalid('LUNITS', 'two');
      invalid('LUNITS', null);
      invalid('LUNITS', undefined);
      invalid('LUNITS', [2]);
      invalid('LUNITS', Number.NaN);
      invalid('LUNITS', true); // booleans only for 0/1 switches
    });

    it('takes OSMODE as a bitcode, the 16384 "suppressed" bit included', () => {
      expect(parseSysvarValue(def('OSMODE'), 0)).toBe(0);
      expect(parseSysvarValue(def('OSMODE'), 16383)).toBe(16383);
      expect(parseSysvarValue(def('OSMODE'), 4133 + 16384)).toBe(20517);
      const error = invalid('OSMODE', 32768);
      expect(error.message).toContain('bitcode');
      expect(error.message).toContain('0..32767');
      invalid('OSMODE', -1);
    });

    it('takes PDMODE from its allowed values only', () => {
      for (const v of [0, 1, 2, 3, 4, 32, 33, 34, 35, 36, 64, 65, 66, 67, 68, 96, 97, 98, 99, 100])
        expect(parseSysvarValue(def('PDMODE'), v)).toBe(v);
      for (const v of [5, 31, 37, 63, 69, 95, 101]) invalid('PDMODE', v);
      expect(describeAllowed(def('PDMODE'))).toBe('one of 0-4, 32-36, 64-68, 96-100');
    });

    it('excludes 0 from SPLINESEGS and accepts negative values', () => {
      expect(parseSysvarValue(def('SPLINESEGS'), -8)).toBe(-8);
      expect(invalid('SPLINESEGS', 0).message).toContain('except 0');
    });

    it('takes colour and lineweight names', () => {
      expect(parseSysvarValue(def('CECOLOR'), 'bylayer')).toBe(256);
      expect(parseSysvarValue(def('CECOLOR'), 'BYBLOCK')).toBe(0);
      expect(parseSysvarValue(def('CECOLOR'), 1)).toBe(1);
      invalid('CECOLOR', 257);
      invalid('CECOLOR', 'red');
      expect(parseSysvarValue(def('CELWEIGHT'), 'ByLayer')).toBe(-1);
      expect(parseSysvarValue(def('CELWEIGHT'), 'default')).toBe(-3);
      expect(parseSysvarValue(def('CELWEIGHT'), 25)).toBe(25);
      expect(parseSysvarValue(def('CELWEIGHT'), 211)).toBe(211);
      invalid('CELWEIGHT', 24);
      invalid('CELWEIGHT', -4);
    });
  });

  describe('real', () => {
    it('accepts numbers and numeric strings', () => {
      expect(parseSysvarValue(def('LTSCALE'), 2.5)).toBe(2.5);
      expect(parseSysvarValue(def('LTSCALE'), '0.5')).toBe(0.5);
      expect(parseSysvarValue(def('PDSIZE'), -5)).toBe(-5);
      expect(parseSysvarValue(def('PDSIZE'), 0)).toBe(0);
      expect(parseSysvarValue(def('THICKNESS'), -1.25)).toBe(-1.25);
      expect(parseSysvarValue(def('ANGBASE'), 90)).toBe(90);
      expect(parseSysvarValue(def('DIMSCALE'), 0)).toBe(0);
      expect(parseSysvarValue(def('FILLETRAD'), 0)).toBe(0);
      expect(Object.is(parseSysvarValue(def('ELEVATION'), -0), 0)).toBe(true);
    });

    it('keeps LTSCALE, CELTSCALE and TEXTSIZE above 0 and others at or above 0', () => {
      const error = invalid('LTSCALE', 0);
      expect(error.message).toContain('LTSCALE');
      expect(error.message).toContain('> 0');
      invalid('LTSCALE', -1);
      invalid('CELTSCALE', 0);
      invalid('TEXTSIZE', 0);
      expect(invalid('TEXTSIZE', -2.5).message).toContain('-2.5');
      invalid('DIMSCALE', -1);
      invalid('PLINEWID', -0.1);
      invalid('CHAMFERA', -1);
      invalid('CHAMFERB', -1);
      invalid('FILLETRAD', -1);
    });

    it('refuses what is not a finite number', () => {
      invalid('PDSIZE', 'abc');
      invalid('PDSIZE', '');
      invalid('PDSIZE', Number.POSITIVE_INFINITY);
      invalid('PDSIZE', Number.NaN);
      invalid('PDSIZE', null);
      invalid('PDSIZE', true);
      invalid('PDSIZE', [1]);
    });
  });

  describe('string', () => {
    const layers = new Map([
      ['0', '0'],
      ['WALLS', 'Walls'],
    ]);
    const ctx: SysvarContext = {
      findRecord: (table, name) =>
        table === 'layer'
          ? layers.get(name.toUpperCase())
          : table === 'linetype'
            ? name.toUpperCase() === 'DASHED'
              ? 'DASHED'
              : undefined
            : name.toUpperCase() === 'STANDARD'
              ? 'Standard'
              : undefined,
    };

    it('CLAYER names an existing layer, answered as the document spells it', () => {
      expect(parseSysvarValue(def('CLAYER'), 'walls', ctx)).toBe('Walls');
      expect(parseSysvarValue(def('CLAYER'), '0', ctx)).toBe('0');
      const error = invalid('CLAYER', 'Doors', ctx);
      expect(error.message).toContain('CLAYER');
      expect(error.message).toContain('"Doors"');
      expect(error.message).toContain('no layer of that name');
      expect(error.allowed).toBe('the name of an existing layer');
    });

    it('without a lookup, checks the form of the name only', () => {
      expect(parseSysvarValue(def('CLAYER'), 'Doors')).toBe('Doors');
      invalid('CLAYER', '');
      invalid('CLAYER', 'a/b');
      invalid('CLAYER', 'a*');
      invalid('CLAYER', ' padded ');
      invalid('CLAYER', 'x'.repeat(256));
      invalid('CLAYER', 5);
      invalid('CLAYER', null);
    });

    it('CELTYPE takes ByLayer and ByBlock without a record, other names from the LTYPE table', () => {
      expect(parseSysvarValue(def('CELTYPE'), 'BYLAYER', ctx)).toBe('ByLayer');
      expect(parseSysvarValue(def('CELTYPE'), 'byblock', ctx)).toBe('ByBlock');
      expect(parseSysvarValue(def('CELTYPE'), 'dashed', ctx)).toBe('DASHED');
      expect(invalid('CELTYPE', 'HIDDEN', ctx).message).toContain('no linetype of that name');
    });

    it('TEXTSTYLE names an existing text style', () => {
      expect(parseSysvarValue(def('TEXTSTYLE'), 'standard', ctx)).toBe('Standard');
      expect(invalid('TEXTSTYLE', 'Romans', ctx).message).toContain('no text style of that name');
    });

    it('VERSIONGUID takes a GUID with or without braces and answers it braced in uppercase', () => {
      const guid = '1b2c3d4e-0000-4abc-8def-0123456789ab';
      expect(parseSysvarValue(def('VERSIONGUID'), guid)).toBe(`{${guid.toUpperCase()}}`);
      expect(parseSysvarValue(def('VERSIONGUID'), `{${guid}}`)).toBe(`{${guid.toUpperCase()}}`);
      invalid('VERSIONGUID', `{${guid}`);
      invalid('VERSIONGUID', 'not-a-guid');
      invalid('VERSIONGUID', guid.slice(1));
    });

    it('ACADVER, HANDSEED and DWGCODEPAGE are checked for form when the engine sets them', () => {
      const engine: SysvarContext = { allowReadOnly: true };
      expect(parseSysvarValue(def('ACADVER'), 'ac1015', engine)).toBe('AC1015');
      invalid('ACADVER', 'AC1099', engine);
      expect(parseSysvarValue(def('HANDSEED'), '2a0', engine)).toBe('2A0');
      invalid('HANDSEED', 'XYZ', engine);
      invalid('HANDSEED', '', engine);
      expect(parseSysvarValue(def('DWGCODEPAGE'), 'ANSI_1251', engine)).toBe('ANSI_1251');
      invalid('DWGCODEPAGE', 'ANSI 1251', engine);
    });
  });

  describe('read-only variables', () => {
    it.each([
      'HANDSEED',
      'ACADVER',
      'FINGERPRINTGUID',
      'EXTMIN',
      'EXTMAX',
      'DIMSTYLE',
      'DWGCODEPAGE',
      'PSTYLEMODE',
    ])('%s is refused with invalid_sysvar_value', (name) => {
      const d = def(name);
      expect(d.readOnly).toBe(true);
      const error = invalid(name, sysvarDefault(d));
      expect(error.message).toContain(`${name} is read-only`);
      expect(error.allowed).toMatch(/^read-only/);
    });

    it('the engine may set them', () => {
      expect(parseSysvarValue(def('EXTMIN'), [1, 2, 3], { allowReadOnly: true })).toEqual([1, 2, 3]);
    });
  });

  describe('points', () => {
    it('point3 takes 2 or 3 numbers (z = 0) or "x,y[,z]"', () => {
      expect(parseSysvarValue(def('INSBASE'), [1, 2])).toEqual([1, 2, 0]);
      expect(parseSysvarValue(def('INSBASE'), [1, 2, 3])).toEqual([1, 2, 3]);
      expect(parseSysvarValue(def('INSBASE'), '1.5, -2,3')).toEqual([1.5, -2, 3]);
      expect(parseSysvarValue(def('INSBASE'), ['1', '2'])).toEqual([1, 2, 0]);
    });

    it('point2 takes 2 numbers, or 3 with z = 0', () => {
      expect(parseSysvarValue(def('LIMMAX'), [420, 297])).toEqual([420, 297]);
      expect(parseSysvarValue(def('LIMMAX'), [420, 297, 0])).toEqual([420, 297]);
      expect(parseSysvarValue(def('SNAPUNIT'), '10,10')).toEqual([10, 10]);
      expect(invalid('LIMMIN', [0, 0, 5]).message).toContain('a 2D point has no z');
    });

    it('refuses what is not a point', () => {
      for (const bad of [
        [1],
        [1, 2, 3, 4],
        [1, 'a'],
        [1, Number.NaN],
        'x,y',
        '1',
        5,
        null,
        { x: 1, y: 2 },
        [1, null],
      ])
        invalid('INSBASE', bad);
      expect(invalid('LIMMIN', [1]).allowed).toBe('a 2D point [x, y]');
    });
  });

  describe('bool', () => {
    it('takes booleans, 0/1 and words', () => {
      const lw = def('LWDISPLAY');
      expect(parseSysvarValue(lw, true)).toBe(true);
      expect(parseSysvarValue(lw, 0)).toBe(false);
      expect(parseSysvarValue(lw, 1)).toBe(true);
      expect(parseSysvarValue(lw, 'ON')).toBe(true);
      expect(parseSysvarValue(lw, 'false')).toBe(false);
      expect(parseSysvarValue(lw, '0')).toBe(false);
    });

    it('refuses other values', () => {
      for (const bad of [2, -1, 'yes', '', null, [true]]) invalid('LWDISPLAY', bad);
    });
  });

  it('shows long values shortened in messages', () => {
    const error = invalid('LUNITS', 'x'.repeat(500));
    expect(error.message.length).toBeLessThan(250);
  });
});

describe('DXF header tags', () => {
  const tags = (...pairs: [number, string][]): DxfTag[] => pairs.map(([code, value]) => ({ code, value }));

  it('writes numbers as DXF writes them', () => {
    expect(formatDxfReal(1)).toBe('1.0');
    expect(formatDxfReal(0)).toBe('0.0');
    expect(formatDxfReal(-0)).toBe('0.0');
    expect(formatDxfReal(0.2)).toBe('0.2');
    expect(formatDxfReal(-2.5)).toBe('-2.5');
    expect(formatDxfReal(420)).toBe('420.0');
    expect(formatDxfReal(1e20)).toBe('1e+20');
    expect(formatDxfReal(-1e20)).toBe('-1e+20');
    expect(formatDxfReal(1e-9)).toBe('1e-9');
    expect(formatDxfReal(0.1 + 0.2)).toBe('0.30000000000000004');
    expect(() => formatDxfReal(Number.NaN)).toThrow(RangeError);
  });

  it('writes each type with its group codes', () => {
    expect(sysvarToHeader(def('LTSCALE'), 2)).toEqual(tags([40, '2.0']));
    expect(sysvarToHeader(def('CLAYER'), 'Walls')).toEqual(tags([8, 'Walls']));
    expect(sysvarToHeader(def('INSUNITS'), 4)).toEqual(tags([70, '4']));
    expect(sysvarToHeader(def('CELWEIGHT'), -1)).toEqual(tags([370, '-1']));
    expect(sysvarToHeader(def('LWDISPLAY'), true)).toEqual(tags([290, '1']));
    expect(sysvarToHeader(def('EXTMIN'), [1e20, 1e20, 1e20])).toEqual(
      tags([10, '1e+20'], [20, '1e+20'], [30, '1e+20']),
    );
    expect(sysvarToHeader(def('LIMMAX'), [420, 297])).toEqual(tags([10, '420.0'], [20, '297.0']));
  });

  it('refuses to write variables that are not in the header, or values of another type', () => {
    expect(() => sysvarToHeader(def('GRIDMODE'), 1)).toThrow(/not a DXF header variable/);
    expect(() => sysvarToHeader(def('PICKBOX'), 3)).toThrow(/not a DXF header variable/);
    expect(() => sysvarToHeader(def('LTSCALE'), Number.NaN)).toThrow(InvalidSysvarValueError);
    expect(() => sysvarToHeader(def('INSUNITS'), 1.5)).toThrow(InvalidSysvarValueError);
    expect(() => sysvarToHeader(def('INSBASE'), [1, 2] as unknown as [number, number, number])).toThrow(
      InvalidSysvarValueError,
    );
  });

  it('reads values as files have them: padded integers, exponents, 2D points written without z', () => {
    expect(sysvarFromHeader(def('INSUNITS'), tags([70, '     4']))).toBe(4);
    expect(sysvarFromHeader(def('LTSCALE'), tags([40, '1.000000000000000E+20']))).toBe(1e20);
    expect(sysvarFromHeader(def('CLAYER'), tags([8, 'Walls']))).toBe('Walls');
    expect(sysvarFromHeader(def('LWDISPLAY'), tags([290, '0']))).toBe(false);
    expect(sysvarFromHeader(def('INSBASE'), tags([10, '1'], [20, '2']))).toEqual([1, 2, 0]);
    expect(sysvarFromHeader(def('LIMMAX'), tags([10, '12.0'], [20, '9.0']))).toEqual([12, 9]);
    // the *Active VPORT record's tags for a viewport variable
    expect(sysvarFromHeader(def('GRIDMODE'), tags([75, '0'], [76, '1']))).toBe(1);
    expect(sysvarFromHeader(def('SNAPUNIT'), tags([14, '10.0'], [24, '5.0']))).toEqual([10, 5]);
  });

  it('reads out-of-range values as the file has them (range is checked on set only)', () => {
    expect(sysvarFromHeader(def('PDMODE'), tags([70, '5']))).toBe(5);
  });

  it('answers undefined when the file does not have the variable', () => {
    expect(sysvarFromHeader(def('LTSCALE'), undefined)).toBeUndefined();
    expect(sysvarFromHeader(def('LTSCALE'), [])).toBeUndefined();
    expect(sysvarFromHeader(def('LTSCALE'), tags([70, '1']))).toBeUndefined();
    expect(sysvarFromHeader(def('PICKBOX'), tags([70, '3']))).toBeUndefined();
  });

  it('throws invalid_sysvar_value on unreadable values', () => {
    expect(sysvarError(() => sysvarFromHeader(def('INSUNITS'), tags([70, 'four']))).code).toBe(
      'invalid_sysvar_value',
    );
    expect(() => sysvarFromHeader(def('LTSCALE'), tags([40, 'x']))).toThrow(InvalidSysvarValueError);
    expect(() => sysvarFromHeader(def('EXTMIN'), tags([10, '1'], [20, 'y'], [30, '0']))).toThrow(
      InvalidSysvarValueError,
    );
    expect(() => sysvarFromHeader(def('EXTMIN'), tags([10, '1'], [30, '0']))).toThrow(
      InvalidSysvarValueError,
    );
    expect(() => sysvarFromHeader(def('LWDISPLAY'), tags([290, 'true']))).toThrow(InvalidSysvarValueError);
  });

  it('round-trips every header variable through tags', () => {
    for (const d of SYSVARS) {
      if (!d.header) continue;
      for (const system of ['imperial', 'metric'] as const) {
        const value = sysvarDefault(d, system);
        expect(sysvarFromHeader(d, sysvarToHeader(d, value)), d.name).toEqual(value);
      }
    }
    const samples: [string, unknown][] = [
      ['LTSCALE', 0.1 + 0.2],
      ['PDSIZE', -1.5e-7],
      ['EXTMAX', [123456.789, -0.001, 1e-12]],
      ['CLAYER', 'Layer with spaces'],
      ['OSMODE', 20517],
      ['LWDISPLAY', true],
    ];
    for (const [name, value] of samples) {
      const d = def(name);
      const parsed = parseSysvarValue(d, value, { allowReadOnly: true });
      expect(sysvarFromHeader(d, sysvarToHeader(d, parsed)), name).toEqual(parsed);
    }
  });
});

describe('describeSysvar', () => {
  it('is plain JSON with the allowed values in words', () => {
    const d = describeSysvar(def('INSUNITS'));
    expect(d).toMatchObject({
      name: 'INSUNITS',
      type: 'int',
      default: 1,
      metric: 4,
      read_only: false,
      storage: 'header',
      header: { variable: '$INSUNITS', codes: [70] },
      allowed: 'an integer 0..24',
    });
    expect(JSON.parse(JSON.stringify(SYSVARS.map(describeSysvar)))).toHaveLength(SYSVARS.length);
    expect(describeSysvar(def('PICKBOX')).header).toBeUndefined();
    expect(describeAllowed(def('CECOLOR'))).toBe('an integer 0..256 (or BYBLOCK = 0, BYLAYER = 256)');
    expect(describeAllowed(def('PDSIZE'))).toBe('a number');
    expect(describeAllowed(def('DIMSCALE'))).toBe('a number >= 0');
    expect(describeAllowed(def('LWDISPLAY'))).toBe('true or false (1 or 0)');
    expect(describeAllowed(def('CELTYPE'))).toBe('ByLayer, ByBlock or the name of an existing linetype');
  });
});
