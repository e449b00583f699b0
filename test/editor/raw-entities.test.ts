/** The read-out of HATCH tags (pure), as `query` answers it for entities read from files too. */
import { describe, expect, it } from 'vitest';
import { hatchReadout, rawReadout } from '../../src/editor/raw-entities.js';
import { raw } from './query/fixtures.js';

/** A HATCH's tags after its subclass marker, from group-code/value pairs. */
const hatch = (pairs: Array<[number, string | number]>) => raw('HATCH', [[100, 'AcDbHatch'], ...pairs]);

describe('hatchReadout', () => {
  it('reads a pattern fill, its trailer, and a loop of line edges; arc paths are left out', () => {
    const e = hatch([
      [10, 0],
      [20, 0],
      [30, 0],
      [2, 'ANSI31'],
      [70, 0],
      [71, 0],
      [91, 2],
      // An edge path of three lines.
      [92, 1],
      [93, 3],
      [72, 1],
      [10, 0],
      [20, 0],
      [11, 4],
      [21, 0],
      [72, 1],
      [10, 4],
      [20, 0],
      [11, 0],
      [21, 3],
      [72, 1],
      [10, 0],
      [20, 3],
      [11, 0],
      [21, 0],
      [97, 1],
      [330, 'AB'],
      // An edge path with an arc: not straight, left out.
      [92, 1],
      [93, 1],
      [72, 2],
      [10, 0],
      [20, 0],
      [40, 1],
      [50, 0],
      [51, 360],
      [73, 1],
      [97, 0],
      [75, 1],
      [76, 1],
      [52, 15],
      [41, 2.5],
      [77, 0],
      [78, 1],
      [53, 60],
      [43, 0],
      [44, 0],
      [45, -0.1],
      [46, 0.2],
      [79, 0],
      [98, 0],
    ]);
    expect(hatchReadout(e)).toEqual({
      solid: false,
      pattern: 'ANSI31',
      pattern_scale: 2.5,
      pattern_angle: 15,
      boundary: [
        [
          [0, 0],
          [4, 0],
          [0, 3],
        ],
      ],
    });
  });

  it('stops at a path with a spline edge (its own 97 would be misread) and keeps the loops before it', () => {
    const e = hatch([
      [2, 'SOLID'],
      [70, 1],
      [91, 2],
      [92, 2],
      [72, 0],
      [73, 1],
      [93, 3],
      [10, 0],
      [20, 0],
      [10, 1],
      [20, 0],
      [10, 1],
      [20, 1],
      [97, 0],
      [92, 1],
      [93, 1],
      [72, 4],
      [94, 3],
      [97, 2],
      [11, 0],
      [21, 0],
      [97, 0],
      [75, 1],
      [76, 1],
      [98, 0],
    ]);
    expect(hatchReadout(e)).toMatchObject({
      solid: true,
      pattern: 'SOLID',
      pattern_scale: null,
      boundary: [
        [
          [0, 0],
          [1, 0],
          [1, 1],
        ],
      ],
    });
  });

  it('a HATCH without paths has an empty boundary', () => {
    expect(hatchReadout(raw('HATCH', [[2, 'SOLID']])).boundary).toEqual([]);
  });
});

describe('rawReadout', () => {
  it('reads out a HATCH; other raw types read out nothing (SOLID and TRACE are modeled)', () => {
    expect(rawReadout(raw('HATCH', [[2, 'SOLID']]))).toMatchObject({ pattern: 'SOLID' });
    expect(rawReadout(raw('SPLINE', [[10, 1]]))).toEqual({});
  });
});
