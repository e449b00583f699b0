/**
 * Redaction of values that trip naive redactors, over the real CLI: regular-expression and replacement
 * metacharacters, unicode (astral, combining marks), a multi-line PEM key, and values that are
 * substrings of each other. Printed by compose, none of them reaches the job, the run log or its route.
 */
import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import {
  composeText,
  createStackDone,
  describeStacks,
  type Json,
  logPath,
  serveStacks,
  type VariableJson,
} from './helpers.js';

const PEM = [
  '-----BEGIN PRIVATE KEY-----',
  'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj',
  'MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu',
  '-----END PRIVATE KEY-----',
].join('\n');

const VALUES: VariableJson[] = [
  { name: 'REGEX', value: '.*+?^${}()|[]\\d\\', secret: true },
  { name: 'REPLACEMENT', value: "$&$1$$$'$`-tail", secret: true },
  { name: 'ASTRAL', value: 'päss-🔑-wörd-𝔸', secret: true },
  { name: 'COMBINING', value: 'secret1\u0301e\u0301', secret: true },
  { name: 'PEM', value: PEM, secret: true },
  { name: 'SHORTER', value: 'abcdefgh', secret: false },
  { name: 'LONGER', value: 'xxabcdefghijklyy', secret: true },
];

const lineValues = VALUES.flatMap((v) => v.value.split('\n')).filter((v) => v.length > 5);

describeStacks('redaction of awkward values', () => {
  const stacks = serveStacks();

  it('no value, nor a line of the PEM key, reaches the job, the log file or the log route', async () => {
    const done = await createStackDone(stacks.admin, 'awkward', null, {
      compose: composeText({
        env: VALUES.map((v) => v.name),
        lines: [`all at once: ${VALUES.map((v) => v.value.replace(/\n/g, ' ')).join(' | ')}`],
      }),
      variables: VALUES,
    });
    expect(done.job.result).toMatchObject({ success: true });
    const jobLines = done.job.messages
      .filter((m: Json) => m.type === 'line')
      .map((m: Json) => m.line as string);
    const file = await readFile(logPath(stacks.server.dataDir, null, done.runId as number), 'utf8');
    const route = (await stacks.admin.get(`/api/stacks/awkward/deploys/${done.runId}/log`)).text;
    for (const [where, text] of [
      ['job', jobLines.join('\n')],
      ['file', file],
      ['route', route],
    ] as const) {
      for (const value of lineValues) expect(text.includes(value), `${where} holds ${value}`).toBe(false);
      // The lines were there, masked: nothing was simply dropped.
      expect(text, where).toContain('REGEX=***');
      expect(text, where).toContain('LONGER=***');
    }
    expect(jobLines).toContain('PEM=***');
    expect(jobLines.filter((l) => l === '***')).toHaveLength(3);
  }, 60_000);
});
