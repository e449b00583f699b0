import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { blankDocument, fingerprintGuid, readDxf, templateDxf } from '../../../src/editor/dxf/index.js';

const templatesDir = join(dirname(fileURLToPath(import.meta.url)), '../../../src/editor/dxf/templates');

describe('built-in templates', () => {
  it.each(['metric', 'imperial'] as const)('%s: the embedded copy is the committed .dxf file', (name) => {
    expect(templateDxf(name)).toBe(readFileSync(join(templatesDir, `${name}.dxf`), 'utf8'));
  });

  it('metric is millimetres, imperial is inches', () => {
    const metric = readDxf(templateDxf('metric')).header;
    const imperial = readDxf(templateDxf('imperial')).header;
    expect([metric.$MEASUREMENT?.[0]?.value, metric.$INSUNITS?.[0]?.value]).toEqual(['1', '4']);
    expect([imperial.$MEASUREMENT?.[0]?.value, imperial.$INSUNITS?.[0]?.value]).toEqual(['0', '1']);
  });

  it('blankDocument is metric, R2018, with a new file identity each time', () => {
    const a = blankDocument();
    const b = blankDocument();
    expect(a.version).toBe('AC1032');
    expect(a.header.$MEASUREMENT?.[0]?.value).toBe('1');
    expect(fingerprintGuid(a)).not.toBe(fingerprintGuid(b));
    expect(Object.keys(a.layouts).sort()).toEqual(['Layout1', 'Model']);
    expect(a.layers['0']).toBeDefined();
  });
});
