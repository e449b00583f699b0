/**
 * The local environment's permission rule over the real CLI (docs/security.md#the-local-environment): by default a
 * grant scoped to environment 1 also reaches the local environment (the spec's rule), the server warns of
 * it at start and the session says so; `"localEnvironment": "explicit"` makes the local environment
 * need `null` (or `"*"`) in a grant's list, for the list, the stack routes and a local run alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  composeText,
  createStackDone,
  describeStacks,
  expectStatus,
  type Json,
  objectOf,
  StacksClient,
  type StacksServer,
  stacksConfig,
  startStacks,
  USERS,
} from './helpers.js';

const LOCAL_EDITOR = {
  name: 'localeditor',
  token: 't-localeditor',
  grants: [{ resource: 'stacks', actions: ['view', 'edit'], environments: [null] }],
  environmentAccess: [],
};
const users = [...Object.values(USERS), LOCAL_EDITOR];

const sessionOf = async (server: StacksServer, token: string) =>
  objectOf(await new StacksClient(server.port, token).get('/api/session')).environments as Json[];

describeStacks('the local environment and grants scoped elsewhere', () => {
  describe('the default rule (the global check)', () => {
    let server: StacksServer;
    beforeAll(async () => {
      server = await startStacks({ config: stacksConfig({ users }) });
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('lets editor1 (a grant on environment 1) edit the local environment, warns at start, and the session says why', async () => {
      expectStatus(await server.as('editor1').get('/api/stacks?env=null'), 200);
      await createStackDone(server.as('editor1'), 'by-rule', null, { compose: composeText() });
      expect(server.stderr()).toContain(
        'chronicle stacks: warning: config users[3] (editor1) may edit the local environment\'s stacks only through the rule that the local environment uses the global check: grants[0] (environments [1]); list null in a grant\'s environments to mean it, or set "localEnvironment": "explicit"',
      );
      expect(server.stderr()).not.toContain('(localeditor)');
      expect(server.stderr()).not.toContain('(admin)');
      expect((await sessionOf(server, 't-editor1'))[0]).toEqual({
        id: null,
        name: 'local',
        view: true,
        edit: true,
        editByGlobalCheck: true,
      });
      expect((await sessionOf(server, 't-localeditor'))[0]).toMatchObject({
        edit: true,
        editByGlobalCheck: false,
      });
    });
  });

  describe('"localEnvironment": "explicit"', () => {
    let server: StacksServer;
    let localRun: number;
    beforeAll(async () => {
      server = await startStacks({
        config: { ...stacksConfig({ users }), localEnvironment: 'explicit' } as never,
      });
      localRun = (
        await createStackDone(new StacksClient(server.port, LOCAL_EDITOR.token), 'local-web', null, {
          compose: composeText(),
        })
      ).runId as number;
      await createStackDone(server.as('editor1'), 'edge-web', 1, { compose: composeText() });
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('refuses editor1 the local environment with a clear 403, and keeps its environment 1', async () => {
      const list = await server.as('editor1').get('/api/stacks?env=null');
      expectStatus(list, 403);
      expect(objectOf(list).error).toBe(
        'forbidden: needs the stacks view permission for the local environment',
      );
      const create = await server.as('editor1').post('/api/stacks?env=null', {
        name: 'sneaky',
        compose: composeText(),
      });
      expectStatus(create, 403);
      const run = await server.as('editor1').get(`/api/stacks/local-web/deploys/${localRun}`);
      expectStatus(run, 403);
      expect(objectOf(run).error).toBe(
        'forbidden: needs the stacks view permission for the local environment',
      );
      expectStatus(await server.as('editor1').get('/api/stacks?env=1'), 200);
      expectStatus(await server.as('editor1').get('/api/stacks/edge-web?env=1'), 200);
      // Nothing was made by the refused create.
      const all = (await server.as('admin').get('/api/stacks?env=null')).text;
      expect(all).toContain('local-web');
      expect(all).not.toContain('sneaky');
    });

    it('lets a grant listing null, or "*", reach it; a grant without environments does not', async () => {
      expectStatus(
        await new StacksClient(server.port, LOCAL_EDITOR.token).get(
          `/api/stacks/local-web/deploys/${localRun}`,
        ),
        200,
      );
      expectStatus(await server.as('viewer').get('/api/stacks?env=null'), 200);
      expectStatus(await server.as('globalviewer').get('/api/stacks?env=null'), 403);
      expect((await sessionOf(server, 't-editor1'))[0]).toEqual({
        id: null,
        name: 'local',
        view: false,
        edit: false,
        editByGlobalCheck: false,
      });
      expect(server.stderr()).not.toContain('warning: config users');
    });
  });
});
