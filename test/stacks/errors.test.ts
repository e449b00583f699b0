import { describe, expect, it } from 'vitest';
import {
  composeChanged,
  isStacksErrorCode,
  STACKS_ERRORS,
  StacksError,
  statusOf,
  storeFailed,
} from '../../src/stacks/errors.js';

describe('the stacks error catalogue', () => {
  it("gives a StacksError the status of its code's row", () => {
    expect(new StacksError('stack_not_found', 'Stack not found').status).toBe(404);
    expect(new StacksError('stack_busy', 'Stack has a job running').status).toBe(409);
    expect(new StacksError('invalid_compose', 'Compose file is not valid YAML: x').status).toBe(400);
    for (const code of Object.keys(STACKS_ERRORS))
      if (isStacksErrorCode(code)) expect(new StacksError(code, 'm').status).toBe(STACKS_ERRORS[code].status);
  });

  it('keeps the message and the fields as given, apart from the code', () => {
    const error = composeChanged('abc');
    expect(error.code).toBe('compose_changed');
    expect(error.message).toBe('compose_changed');
    expect(error.status).toBe(409);
    expect(error.fields?.composeHash).toBe('abc');
    const failed = storeFailed({ reason: 'disk full', clears: 'restart' });
    expect([failed.code, failed.message, failed.status, failed.fields?.reason]).toEqual([
      'store_failed',
      'store_failed',
      503,
      'disk full',
    ]);
  });

  it('holds only failure statuses and a one-line meaning for each code', () => {
    for (const [code, { status, meaning }] of Object.entries(STACKS_ERRORS)) {
      expect(code).toMatch(/^[a-z][a-z_]*[a-z]$/);
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
      expect(meaning, code).toMatch(/^[A-Z].*\.$/);
      expect(meaning, code).not.toContain('\n');
    }
  });

  it('knows its codes and nothing else', () => {
    expect(isStacksErrorCode('run_not_found')).toBe(true);
    expect(isStacksErrorCode('not_a_code')).toBe(false);
    expect(isStacksErrorCode('toString')).toBe(false);
    expect(statusOf('webhook_signature')).toBe(401);
  });
});
