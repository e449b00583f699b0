import { describe, expect, it } from 'vitest';
import { EDITOR_ERRORS } from '../../src/editor/errors.js';
import { editorOpenApi } from '../../src/http/editor/openapi.js';

interface CodeSchema {
  type: string;
  enum: string[];
  'x-enumDescriptions': Record<string, string>;
}

const doc = editorOpenApi('0.0.0-test') as {
  components: { schemas: { Answer: { properties: { code: CodeSchema } } } };
};
const code = doc.components.schemas.Answer.properties.code;

describe("the OpenAPI document's failure codes", () => {
  it('lists every code of the catalogue, and nothing else, by name', () => {
    expect(code.type).toBe('string');
    expect(code.enum).toEqual(Object.keys(EDITOR_ERRORS).sort());
    expect(code.enum).toContain('nothing_to_undo');
    expect(code.enum).toContain('stale_state');
  });

  it('describes each code with its status and meaning from the catalogue', () => {
    expect(Object.keys(code['x-enumDescriptions'])).toEqual(code.enum);
    expect(code['x-enumDescriptions'].stale_state).toBe(`HTTP 409. ${EDITOR_ERRORS.stale_state.meaning}`);
    expect(code['x-enumDescriptions'].busy).toMatch(/^HTTP 503\. /);
    expect(code['x-enumDescriptions'].entity_absent).toMatch(/^HTTP 404\. /);
  });
});
