import { describe, expect, it } from 'vitest';
import { aciHex, entityAci } from '../../src/editor/colors.js';
import type { DxfDocumentModel, Entity } from '../../src/editor/model.js';

const model = {
  layers: {
    WALLS: {
      name: 'WALLS',
      handle: '10',
      color: 1,
      linetype: 'CONTINUOUS',
      lineweight: -3,
      off: false,
      frozen: false,
      locked: false,
    },
  },
} as unknown as DxfDocumentModel;
const line = (color: number, layer = 'WALLS') => ({ type: 'Line', layer, color }) as unknown as Entity;

describe('ACI colours', () => {
  it('maps the standard indexes to RGB', () => {
    expect(aciHex(1)).toBe('#ff0000');
    expect(aciHex(5)).toBe('#0000ff');
    expect(aciHex(7)).toBe('#ffffff');
    expect(aciHex(256)).toBe('#ffffff');
  });
  it('resolves BYLAYER, BYBLOCK and an entity colour', () => {
    expect(entityAci(line(256), model)).toBe(1);
    expect(entityAci(line(256, 'GONE'), model)).toBe(7);
    expect(entityAci(line(0), model, 3)).toBe(3);
    expect(entityAci(line(42), model)).toBe(42);
  });
});
