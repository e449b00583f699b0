/**
 * A drawing of a dozen small requests that nests blocks five deep, 16 references a level: one Insert
 * stands for 16 + 16^2 + ... + 16^5 entities, past the expansion limit of 500,000.
 */
import { expect } from 'vitest';
import { body, type Client, createEntities, str } from './helpers.js';

/** The expansion limit of one operation (docs/security.md#the-editor). */
export const EXPANSION_LIMIT = 500_000;

/** What the outermost Insert expands to: 16 + 16^2 + ... + 16^5 entities, the references among them. */
export const NEST_EXPANDED = 16 + 16 ** 2 + 16 ** 3 + 16 ** 4 + 16 ** 5;

/** Name of the outermost block. */
export const OUTER_BLOCK = 'NEST4';

/**
 * Builds the nest through the REST API in the active document; the handle of its one top-level Insert
 * (block_define leaves an Insert where the entities were).
 */
export async function nest(client: Client): Promise<string> {
  const lines = Array.from({ length: 16 }, (_, i) => ({ type: 'Line', start: [i, 0], end: [i, 1] }));
  let handles = await createEntities(client, lines);
  let insert = '';
  for (let level = 0; level < 5; level++) {
    const defined = await client.post('/api/v1/blocks', { name: `NEST${level}`, handles });
    expect(defined.status, defined.text).toBe(201);
    insert = str(body(defined), 'result.insert');
    if (level === 4) break;
    const more = Array.from({ length: 15 }, (_, i) => ({
      type: 'Insert',
      name: `NEST${level}`,
      position: [(i + 1) * 20 ** (level + 1), 0],
    }));
    handles = [insert, ...(await createEntities(client, more))];
  }
  return insert;
}
