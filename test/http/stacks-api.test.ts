/**
 * The stacks API's schemas as pure functions: the words of their refusals (the ones the routes always
 * used), the serializer that checks an answer without changing it, the document's tidying, and the
 * typed client pieces.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import type { Run } from '../../src/http/stacks/api/answers.js';
import {
  routeMethod,
  routePath,
  type StacksAnswer,
  type StacksBody,
  type StacksParams,
  type StacksQuery,
  type StacksStatus,
} from '../../src/http/stacks/api/client.js';
import type { LogPage } from '../../src/http/stacks/api/history-answers.js';
import {
  CreateStackBody,
  DeployBody,
  EnvQuery,
  executionsQuery,
  NewGitStackBody,
  pathText,
  RunParams,
  SettingsBody,
  VariablesBody,
} from '../../src/http/stacks/api/requests.js';
import { answerSerializer } from '../../src/http/stacks/openapi.js';
import {
  openApiPath,
  withErrorExamples,
  withOptionalBodies,
  withoutUnusedComponents,
} from '../../src/http/stacks/openapi-tidy.js';
import { envMessage, runIdMessage, stackNameMessage } from '../../src/stacks/names.js';

/** The message a route answers for a request part: its schema's first issue. */
const refusal = (schema: z.ZodType, value: unknown) => {
  const result = z.safeParse(schema, value);
  if (result.success) throw new Error(`${JSON.stringify(value)} was accepted`);
  return result.error.issues[0]?.message;
};

describe('request schemas', () => {
  it('name a place as the routes do', () => {
    expect(pathText(['variables', 0, 'name'])).toBe('variables[0].name');
    expect(pathText(['pull'])).toBe('pull');
    expect(pathText([])).toBe('');
  });

  it('refuse in the words the routes always used', () => {
    expect(refusal(CreateStackBody, { name: 'Bad Name', compose: '' })).toBe(stackNameMessage('Bad Name'));
    expect(refusal(CreateStackBody, { compose: '' })).toBe(stackNameMessage(undefined));
    expect(refusal(CreateStackBody, { name: 'web', compose: 5 })).toBe(
      'compose must be the compose file text',
    );
    expect(refusal(CreateStackBody, [])).toBe('The body must be a JSON object');
    expect(refusal(DeployBody, { pull: 'yes' })).toBe('pull must be a boolean');
    expect(refusal(DeployBody, 'text')).toBe('The body must be a JSON object');
    expect(refusal(VariablesBody, { variables: [{ name: '1x', value: 'v' }] })).toBe(
      'variables[0].name must be a variable name (letters, digits and _, not starting with a digit)',
    );
    expect(refusal(VariablesBody, { variables: 'x' })).toBe('variables must be an array');
    expect(refusal(SettingsBody, { colour: 'red' })).toBe(
      'Unknown setting "colour": expected deployLogReconcileCron, deployLogReconcileEnabled, deployRunRetentionCron, deployRunRetentionEnabled',
    );
    expect(refusal(SettingsBody, { deployLogReconcileEnabled: 'no' })).toBe(
      'deployLogReconcileEnabled must be a boolean',
    );
    expect(refusal(NewGitStackBody, { name: 'site', repository: 'r', a: 1, b: 2 })).toBe(
      'Unknown fields "a", "b"',
    );
    expect(refusal(NewGitStackBody, { name: 'site', repository: 7 })).toBe('repository must be a string');
    expect(refusal(EnvQuery, { env: '1.5' })).toBe(envMessage('1.5'));
    expect(refusal(EnvQuery, { env: '99999999999999999999' })).toBe(envMessage('99999999999999999999'));
    expect(refusal(RunParams, { name: 'web', runId: '0' })).toBe(runIdMessage('0'));
    expect(refusal(executionsQuery(50, 500), { limit: '501' })).toBe(
      'Invalid limit "501": expected an integer from 1 to 500',
    );
  });

  it('give the routes what they always read: defaults, numbers', () => {
    expect(z.parse(DeployBody, null)).toEqual({});
    expect(z.parse(DeployBody, undefined)).toEqual({});
    expect(z.parse(EnvQuery, {})).toEqual({ env: null });
    expect(z.parse(EnvQuery, { env: '2' })).toEqual({ env: 2 });
    expect(z.parse(EnvQuery, { env: 'null' })).toEqual({ env: null });
    expect(z.parse(RunParams, { name: 'web', runId: '12' })).toEqual({ name: 'web', runId: 12 });
    expect(z.parse(executionsQuery(50, 500), {})).toEqual({ limit: 50, offset: 0 });
  });
});

describe('the answer serializer', () => {
  const serialize = answerSerializer({
    schema: z.object({ id: z.number() }),
    method: 'GET',
    url: '/x',
    httpStatus: '200',
  });

  it('sends the answer as the route made it: a field the schema does not list is kept', () => {
    expect(JSON.parse(serialize({ id: 1, extra: 'kept' }))).toEqual({ id: 1, extra: 'kept' });
  });

  it('refuses an answer that breaks its schema, naming the route and the field', () => {
    expect(() => serialize({ id: 'one' })).toThrow(
      /The 200 answer of GET \/x does not match its schema: id:/,
    );
  });
});

describe('tidying the generated document', () => {
  it('drops the components nothing reaches, keeps the ones a description names', () => {
    const doc = {
      paths: {
        '/a': {
          get: {
            description: 'events carry #/components/schemas/Event',
            responses: { 200: { $ref: '#/components/schemas/A' } },
          },
        },
      },
      components: {
        schemas: {
          A: { properties: { b: { $ref: '#/components/schemas/B' } } },
          B: { type: 'string' },
          Event: { type: 'object' },
          AInput: { type: 'object' },
        },
      },
    };
    expect(Object.keys(withoutUnusedComponents(doc).components?.schemas ?? {}).sort()).toEqual([
      'A',
      'B',
      'Event',
    ]);
  });

  it('gives an error answer the message its description names', () => {
    const error = (description: string) => ({
      description,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    });
    const doc = {
      paths: {
        '/a': {
          get: {
            responses: {
              401: error('No `Authorization`, or an unknown token (`unauthorized`).'),
              404: error('No environment (`Environment not found`), or no stack (`Stack not found`).'),
              400: error('The `env` is wrong.'),
            },
          },
        },
      },
    };
    const examples = Object.values(withErrorExamples(doc).paths['/a'].get.responses).map(
      (answer) => (answer.content['application/json'] as { example?: unknown }).example,
    );
    expect(examples).toEqual([undefined, { error: 'unauthorized' }, { error: 'Stack not found' }]);
  });

  it('marks the bodies a client may leave out', () => {
    const doc = { paths: { '/api/x/{id}': { post: { requestBody: { required: true } } } } };
    withOptionalBodies(doc, [{ method: 'POST', url: '/api/x/:id' }]);
    expect(doc.paths['/api/x/{id}'].post.requestBody.required).toBe(false);
    expect(openApiPath('/api/stacks/:name/deploys/:runId')).toBe('/api/stacks/{name}/deploys/{runId}');
  });
});

describe('the typed client pieces', () => {
  it('fill a route path, its parameters encoded, and its query', () => {
    expect(routePath('getRun', { name: 'web', runId: '1' })).toBe('/api/stacks/web/deploys/1');
    expect(routePath('listStacks', undefined, { env: '1' })).toBe('/api/stacks?env=1');
    expect(routePath('getJob', { id: 'a/b' })).toBe('/api/jobs/a%2Fb');
    expect(routeMethod('deleteRun')).toBe('DELETE');
  });

  it('type each route from its schemas', () => {
    expectTypeOf<StacksParams<'getRun'>>().toEqualTypeOf<{ name: string; runId: string }>();
    expectTypeOf<StacksQuery<'listStacks'>>().toEqualTypeOf<{ env?: string | undefined }>();
    expectTypeOf<StacksBody<'deployStack'>>().toEqualTypeOf<
      { pull?: boolean | null; build?: boolean | null; forceRecreate?: boolean | null } | null | undefined
    >();
    expectTypeOf<StacksBody<'createStack'>>().toHaveProperty('compose').toEqualTypeOf<string>();
    expectTypeOf<StacksAnswer<'getRun', 200>>().toEqualTypeOf<z.output<typeof Run>>();
    expectTypeOf<StacksAnswer<'listRuns', 200>>().toEqualTypeOf<Array<z.output<typeof Run>>>();
    // The text (or its event stream), or with `fromLine`/`limit`/`q` a JSON page (docs/stacks.md#run-logs-download-range-search).
    expectTypeOf<StacksAnswer<'getRunLog', 200>>().toEqualTypeOf<string | z.output<typeof LogPage>>();
    expectTypeOf<StacksAnswer<'getStack', 404>>().toEqualTypeOf<{
      error: string;
      message?: string | undefined;
      reason?: string | undefined;
      composeHash?: string | undefined;
    }>();
    expectTypeOf<StacksStatus<'deleteRun'>>().toEqualTypeOf<200 | 400 | 401 | 403 | 404 | 409>();
    // A renamed field breaks the build of a client that reads it.
    expectTypeOf<StacksAnswer<'getRun', 200>>().toHaveProperty('entityName');
    expectTypeOf<StacksAnswer<'getRun', 200>>().not.toHaveProperty('stackName');
  });
});
