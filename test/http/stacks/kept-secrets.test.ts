/**
 * PUT /api/stacks/{name}/variables with a secret given as `value: null`: the secret keeps the value the
 * stack holds (the web page sends that for a secret left untouched, since secret values are never
 * answered); a null for a name the stack holds no secret under is refused as before.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { composeText, createStackDone, describeStacks, objectOf, serveStacks, stackDir } from './helpers.js';

const stacks = serveStacks();

const envFile = (name: string) => readFile(join(stackDir(stacks.server.dataDir, null, name), '.env'), 'utf8');

describeStacks('secrets kept across a variables save', () => {
  it('keeps a secret sent as null and changes the rest', async () => {
    const admin = stacks.server.as('admin');
    await createStackDone(admin, 'kept', null, {
      compose: composeText({ lines: ['x'] }),
      variables: [
        { name: 'DB_PASSWORD', value: 'correct-horse-battery', secret: true },
        { name: 'MODE', value: 'one', secret: false },
      ],
    });
    const reply = await admin.put('/api/stacks/kept/variables?env=null', {
      variables: [
        { name: 'DB_PASSWORD', value: null, secret: true },
        { name: 'MODE', value: 'two', secret: false },
      ],
    });
    expect(reply.status).toBe(200);
    expect(objectOf(reply).variables).toEqual([
      { name: 'DB_PASSWORD', secret: true, value: null },
      { name: 'MODE', secret: false, value: 'two' },
    ]);
    expect(reply.text).not.toContain('correct-horse-battery');
    const env = await envFile('kept');
    expect(env).toContain('correct-horse-battery');
    expect(env).toContain('two');
  });

  it('refuses a null for a name without a stored secret, and a null non-secret, leaving the stack as it was', async () => {
    const admin = stacks.server.as('admin');
    const before = await envFile('kept');
    for (const variables of [
      [{ name: 'OTHER', value: null, secret: true }],
      [{ name: 'MODE', value: null, secret: false }],
      [{ name: 'DB_PASSWORD', value: null, secret: false }],
    ]) {
      const reply = await admin.put('/api/stacks/kept/variables?env=null', { variables });
      expect(reply.status).toBe(400);
      expect(objectOf(reply).error).toMatch(/^variables\[0\]\.value \(\w+\) must be a string$/);
    }
    expect(await envFile('kept')).toBe(before);
  });
});
