/**
 * The stacks OpenAPI document lists the failure codes of the catalogue (docs/errors.md): every code once
 * with its status and meaning, and on each error answer the codes of its status.
 */
import { describe, expect, it } from 'vitest';
import { withErrorCodes } from '../../../src/http/stacks/openapi-tidy.js';
import { STACKS_ERRORS } from '../../../src/stacks/errors.js';

const ERROR = { $ref: '#/components/schemas/Error' };
const document = () => ({
  paths: {
    '/api/stacks/{name}': {
      get: {
        responses: {
          '200': {
            description: 'The stack',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
          '404': { description: 'No such stack', content: { 'application/json': { schema: ERROR } } },
          '409': { description: 'Busy', content: { 'application/json': { schema: ERROR } } },
          '418': { description: 'No code has it', content: { 'application/json': { schema: ERROR } } },
        },
      },
    },
  },
  components: { schemas: { Error: { type: 'object' } } },
});

const codesOf = (status: number) =>
  Object.entries(STACKS_ERRORS)
    .filter(([, row]) => row.status === status)
    .map(([code]) => code)
    .sort();

describe("the stacks OpenAPI document's failure codes", () => {
  it('lists every code of the catalogue once, by name, with its status and meaning', () => {
    const listed = (withErrorCodes(document(), STACKS_ERRORS).components as Record<string, unknown>)[
      'x-error-codes'
    ] as Record<string, { status: number; meaning: string }>;
    expect(Object.keys(listed)).toEqual(Object.keys(STACKS_ERRORS).sort());
    expect(listed.compose_changed).toEqual({ status: 409, meaning: STACKS_ERRORS.compose_changed.meaning });
  });

  it('names on each error answer the codes of its status, and touches no other answer', () => {
    const responses = withErrorCodes(document(), STACKS_ERRORS).paths['/api/stacks/{name}'].get
      .responses as Record<string, Record<string, unknown>>;
    expect(responses['404']?.['x-error-codes']).toEqual(codesOf(404));
    expect(responses['404']?.['x-error-codes']).toContain('stack_not_found');
    expect(responses['409']?.['x-error-codes']).toContain('compose_changed');
    expect(responses['409']?.['x-error-codes']).not.toContain('stack_not_found');
    expect(responses['200']).not.toHaveProperty('x-error-codes');
    expect(responses['418']).not.toHaveProperty('x-error-codes');
    expect(responses['404']?.description).toBe('No such stack');
  });
});
