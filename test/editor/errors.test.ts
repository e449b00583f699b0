import { describe, expect, it } from 'vitest';
import {
  EDITOR_ERRORS,
  EditorError,
  type EditorErrorCode,
  fail,
  isEditorErrorCode,
} from '../../src/editor/errors.js';
import { statusOfCode } from '../../src/http/editor/status.js';

/** The codes answered with a status other than 400, as the spec's error rules and the audit routes give them. */
const NOT_400: Record<string, number> = {
  entity_absent: 404,
  unknown_route: 404,
  session_absent: 404,
  document_absent: 404,
  revision_absent: 404,
  stale_state: 409,
  session_changed: 409,
  document_not_active: 409,
  gui_required: 409,
  forbidden_host: 403,
  origin_forbidden: 403,
  method_not_allowed: 405,
  json_required: 415,
  busy: 503,
};

const codes = Object.keys(EDITOR_ERRORS) as EditorErrorCode[];

describe('the editor error catalogue', () => {
  it('gives the spec statuses to their codes and 400 to every other code', () => {
    for (const [code, status] of Object.entries(NOT_400)) expect(statusOfCode(code), code).toBe(status);
    for (const code of codes.filter((c) => !(c in NOT_400))) expect(statusOfCode(code), code).toBe(400);
  });

  it('has no default: a code outside the catalogue has no status', () => {
    expect(() => statusOfCode('no_such_code')).toThrow(/no_such_code/);
    expect(() => statusOfCode(undefined)).toThrow(TypeError);
    // A member of Object.prototype is no code either.
    expect(() => statusOfCode('toString')).toThrow(TypeError);
    expect(isEditorErrorCode('constructor')).toBe(false);
  });

  it('holds the codes an op used to build at run time as codes of their own', () => {
    expect(isEditorErrorCode('nothing_to_undo')).toBe(true);
    expect(isEditorErrorCode('nothing_to_redo')).toBe(true);
  });

  it('gives every code a one-line meaning, ending as a sentence', () => {
    for (const code of codes) {
      const { meaning } = EDITOR_ERRORS[code];
      expect(meaning, code).toMatch(/^[A-Za-z`"'].*\.$/);
      expect(meaning, code).not.toContain('\n');
    }
  });

  it('types EditorError and fail by the catalogue', () => {
    const error = new EditorError('stale_state', 'document 1 is at revision 2, not 1');
    expect(error.code).toBe('stale_state');
    expect(() => fail('invalid_point', 'nope')).toThrow(EditorError);
    // @ts-expect-error a code outside the catalogue does not compile
    expect(new EditorError('stale_stat', 'typo').code).toBe('stale_stat');
  });
});
