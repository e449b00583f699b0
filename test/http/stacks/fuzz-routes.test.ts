/**
 * A property test over the stacks routes of the real CLI: sequences of route calls
 * whose every name, id and key field — stack names, `env`, job ids, run ids, schedule types, variable
 * names, secret providers, settings keys, git stack fields, webhook delivery ids, query parameters, the
 * compose output itself — is often a property name of `Object.prototype`. Whatever the sequence, no
 * call answers 500 and the server never dies; at the end it still answers and stops cleanly.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { isRefusedVariableName } from '../../../src/stacks/compose/variable-names.js';
import { STACK_NAME_PATTERN } from '../../../src/stacks/names.js';
import { tempDir } from '../../cli/helpers.js';
import { lowerCasePrototypeNames, PROTOTYPE_NAMES, withPrototypeNames } from '../../fuzz-names.js';
import {
  composeText,
  describeStacks,
  type Reply,
  StacksClient,
  serveStacks,
  stacksConfig,
  TOKENS,
  USER_KINDS,
  type UserKind,
} from './helpers.js';

const protoNames = [...PROTOTYPE_NAMES];
/**
 * Stack names: a few ordinary ones (so that calls meet the stacks made before), the legal lower-case
 * traps (`constructor`, `tostring`), and now and then one the name rule refuses (`__proto__`).
 */
const stackName = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('web', 'db', ...lowerCasePrototypeNames(STACK_NAME_PATTERN)) },
  { weight: 1, arbitrary: fc.constantFrom(...protoNames) },
);
/** `env`: mostly one that exists, so that calls get past the environment check. */
const env = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('null', '1') },
  { weight: 1, arbitrary: fc.constantFrom(...protoNames) },
);
const anyName = withPrototypeNames(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,6}$/));
const kind = fc.oneof(
  { weight: 3, arbitrary: fc.constant<UserKind>('admin') },
  { weight: 2, arbitrary: fc.constantFrom(...USER_KINDS) },
);

interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  /** JSON text, so that `__proto__` can be a key. */
  body?: string;
  headers?: Record<string, string>;
  as: UserKind | null;
  /** The one answer this call may get, when the name decides it (an unknown job is 404 for all). */
  expect?: number;
}

/** A JSON object text with these keys (in order) and values. */
const objectText = (entries: ReadonlyArray<readonly [string, unknown]>) =>
  `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(', ')}}`;

/** Compose output in compose's own shapes, where names and state words are often prototype names. */
const compose = fc
  .array(
    fc.tuple(
      fc.constantFrom('Container', 'Image', 'Service', ''),
      anyName,
      fc.oneof(
        fc.constantFrom(...protoNames),
        fc.constantFrom('Created', 'Started', 'Pulled', 'Built'),
        anyName,
      ),
    ),
    { minLength: 1, maxLength: 6 },
  )
  .map((lines) => composeText({ lines: lines.map(([a, b, c]) => ` ${a} ${b}  ${c}`) }));

// A name of the refused kind (`LD_x`) answers 400 by design (variable-names.ts): not what this fuzzes.
const variables = fc
  .uniqueArray(
    anyName.filter((n) => !isRefusedVariableName(n)),
    { maxLength: 4 },
  )
  .map((names) => names.map((name, i) => ({ name, value: `value-of-${i}-${name}`, secret: i % 2 === 0 })));

const call: fc.Arbitrary<Call> = fc.oneof(
  fc
    .record({
      as: kind,
      env,
      name: stackName,
      compose,
      variables,
      provider: fc.oneof(
        { weight: 2, arbitrary: fc.constantFrom(null, 'constructor') },
        { weight: 1, arbitrary: fc.constantFrom(...protoNames) },
      ),
    })
    .map(({ as, env, name, compose, variables, provider }) => ({
      method: 'POST' as const,
      path: `/api/stacks?env=${env}`,
      body: JSON.stringify({ name, compose, variables, secretProvider: provider }),
      as,
    })),
  fc
    .record({ as: kind, env, name: stackName })
    .chain(({ as, env, name }) =>
      fc.constantFrom<Call>(
        { method: 'GET', path: `/api/stacks/${name}?env=${env}`, as },
        { method: 'GET', path: `/api/stacks?env=${env}&${name}=1&__proto__=x`, as },
        { method: 'DELETE', path: `/api/stacks/${name}?env=${env}`, as },
        { method: 'POST', path: `/api/stacks/${name}/deploy?env=${env}`, body: '{}', as },
        { method: 'POST', path: `/api/stacks/${name}/restart?env=${env}`, as },
        { method: 'POST', path: `/api/stacks/${name}/down?env=${env}`, as },
        { method: 'GET', path: `/api/stacks/${name}/deploys?env=${env}`, as },
        { method: 'GET', path: `/api/git-stacks/${name}?env=${env}`, as },
        { method: 'POST', path: `/api/git-stacks/${name}/deploy?env=${env}`, body: '{}', as },
      ),
    ),
  fc.record({ as: kind, env, name: stackName, variables }).map(({ as, env, name, variables }) => ({
    method: 'PUT' as const,
    path: `/api/stacks/${name}/variables?env=${env}`,
    body: JSON.stringify({ variables }),
    as,
  })),
  fc
    .record({
      as: kind,
      name: stackName,
      run: fc.oneof(fc.constantFrom('1', '2', '3'), fc.constantFrom(...protoNames)),
    })
    .chain(({ as, name, run }) =>
      fc.constantFrom<Call>(
        { method: 'GET', path: `/api/stacks/${name}/deploys/${run}`, as },
        { method: 'GET', path: `/api/stacks/${name}/deploys/${run}/log`, as },
        { method: 'DELETE', path: `/api/stacks/${name}/deploys/${run}`, as },
      ),
    ),
  fc
    .record({ as: kind, id: fc.constantFrom(...protoNames) })
    .chain(({ as, id }) =>
      fc.constantFrom<Call>(
        { method: 'GET', path: `/api/jobs/${id}`, as, expect: 404 },
        { method: 'GET', path: `/api/jobs/${id}/events`, as, expect: 404 },
        { method: 'POST', path: `/api/schedules/${id}/1/toggle`, as, expect: 404 },
        { method: 'POST', path: `/api/schedules/${id}/run`, as, expect: 404 },
        { method: 'GET', path: `/api/schedules/executions?${id}=1&limit=2`, as },
      ),
    ),
  fc
    .record({
      as: kind,
      key: fc.constantFrom(...protoNames, 'deployLogReconcileEnabled'),
      value: fc.jsonValue({ maxDepth: 1 }),
    })
    .map(({ as, key, value }) => ({
      method: 'POST' as const,
      path: '/api/settings/general',
      body: objectText([[key, value]]),
      as,
    })),
  fc
    .record({
      as: kind,
      env,
      name: stackName,
      key: fc.constantFrom(...protoNames),
      value: fc.jsonValue({ maxDepth: 1 }),
    })
    .chain(({ as, env, name, key, value }) =>
      fc.constantFrom<Call>(
        { method: 'PUT', path: `/api/git-stacks/${name}?env=${env}`, body: objectText([[key, value]]), as },
        {
          method: 'POST',
          path: `/api/git-stacks?env=${env}`,
          body: objectText([
            ['name', name],
            [key, value],
          ]),
          as,
        },
      ),
    ),
  fc
    .record({ env, name: stackName, delivery: fc.constantFrom(...protoNames) })
    .map(({ env, name, delivery }) => ({
      method: 'POST' as const,
      path: `/api/git-stacks/${name}/webhook?env=${env}`,
      body: '{"ref": "refs/heads/main"}',
      headers: { 'X-GitHub-Delivery': delivery, 'X-Hub-Signature-256': `sha256=${'0'.repeat(64)}` },
      as: null,
    })),
);

describeStacks('stacks routes with Object.prototype names (property)', () => {
  /** Answers by method and status, to show what the sequences reached. */
  const seen = new Map<string, number>();

  const stacks = serveStacks(async () => {
    const dir = await tempDir();
    const provider = join(dir, 'provider.mjs');
    await writeFile(provider, `process.stdout.write('{"__proto__": "proto-secret-value"}');\n`);
    return {
      config: stacksConfig({ secretProviders: { constructor: { command: [process.execPath, provider] } } }),
    };
  }, 30_000);

  const send = (c: Call): Promise<Reply> => {
    const client = new StacksClient(stacks.server.port, c.as === null ? null : TOKENS[c.as]);
    return client.call(c.method, c.path, {
      ...(c.body !== undefined ? { raw: c.body } : {}),
      headers: { ...(c.body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...c.headers },
    });
  };

  it('no sequence of calls gets a 500 or ends the server; a job or schedule type named so is 404 for all', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 12 }), async (sequence) => {
        for (const c of sequence) {
          const reply = await send(c);
          const key = `${c.method} ${c.path.split('?')[0]?.split('/').slice(0, 3).join('/')} ${reply.status}`;
          seen.set(key, (seen.get(key) ?? 0) + 1);
          expect(
            reply.status,
            `${c.method} ${c.path} ${c.body ?? ''} as ${c.as}: ${reply.text.slice(0, 300)}`,
          ).toBeLessThan(500);
          expect(reply.status).toBeGreaterThanOrEqual(200);
          if (c.expect !== undefined) expect(reply.status, `${c.method} ${c.path} as ${c.as}`).toBe(c.expect);
          expect(stacks.server.child.exitCode, stacks.server.stderr()).toBeNull();
        }
      }),
      { numRuns: 80 },
    );
    // The sequences reached the work, not only the refusals: stacks were made and jobs started.
    expect(seen.get('POST /api/stacks 202') ?? 0, JSON.stringify([...seen])).toBeGreaterThan(0);
    expect([...seen.keys()].some((k) => / 20[0-2]$/.test(k) && k.startsWith('GET /api/stacks'))).toBe(true);
    // Still serving, and no error escaped a consumer on the way.
    const settings = await stacks.server.as('admin').get('/api/settings/general');
    expect(settings.status).toBe(200);
    expect(stacks.server.stderr()).not.toContain('escaped a stream consumer');
    expect(stacks.server.stderr()).not.toContain('Internal error');
    const stopped = await stacks.server.stop();
    expect(stopped.code, stopped.stderr).toBe(0);
  }, 600_000);
});
