/**
 * Secret providers are scoped to environments in the config (docs/security.md#secret-providers): a user of one
 * environment binds a provider that serves it, never another environment's (403), and a deploy gives
 * a provider's values to a stack outside its scope only while admins wrote all of it. A relative
 * provider command is found next to the config file, not in the stack's folder.
 */
import { chmod, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { expect, it } from 'vitest';
import { tempDir } from '../../cli/helpers.js';
import {
  argvCalls,
  composeText,
  createStackDone,
  deployDone,
  describeStacks,
  type Json,
  saveCompose,
  serveStacks,
  stacksConfig,
  waitRun,
  withStacks,
} from './helpers.js';

const PROD_SECRET = 'prod-db-password-9f2c71';
const EDGE_SECRET = 'edge-db-password-4a8e03';

/** The lines of a job's messages (stdout and stderr lines). */
const linesOf = (messages: Json[]) =>
  messages.filter((m) => m.type === 'line').map((m) => (m as { line: string }).line);

describeStacks('secret providers scoped to environments', () => {
  const stacks = serveStacks(async () => {
    const dir = await tempDir();
    const provider = async (name: string, value: string) => {
      const file = join(dir, `${name}.mjs`);
      await writeFile(
        file,
        `process.stdout.write(JSON.stringify({ DB_PASSWORD: ${JSON.stringify(value)} }));\n`,
      );
      return [process.execPath, file];
    };
    return {
      config: stacksConfig({
        secretProviders: {
          prod: { command: await provider('prod', PROD_SECRET), environments: [2] },
          edge: { command: await provider('edge', EDGE_SECRET), environments: [1] },
          everywhere: { command: await provider('everywhere', EDGE_SECRET), environments: '*' },
          admins: { command: await provider('admins', PROD_SECRET) },
        },
      }),
    };
  }, 30_000);

  const printsPassword = composeText({ env: ['DB_PASSWORD'], lines: ['deployed'] });

  it('an editor of environment 1 cannot bind a provider serving environment 2 or admins only (403, no stack made)', async () => {
    const editor = stacks.server.as('editor1');
    for (const provider of ['prod', 'admins']) {
      const reply = await editor.post('/api/stacks?env=1', {
        name: `steal-${provider}`,
        compose: printsPassword,
        secretProvider: provider,
      });
      expect(reply.status, reply.text).toBe(403);
      expect(reply.value).toEqual({
        error: `forbidden: secret provider "${provider}" does not serve stacks of environment 1 (config secretProviders["${provider}"].environments)`,
      });
      expect((await stacks.admin.get(`/api/stacks/steal-${provider}?env=1`)).status).toBe(404);
    }
    expect(JSON.stringify(await argvCalls(stacks.server))).not.toContain('steal-');
  }, 60_000);

  it('a provider serving the environment (listed or "*") is bound and its values reach compose', async () => {
    for (const provider of ['edge', 'everywhere']) {
      const done = await createStackDone(stacks.server.as('editor1'), `own-${provider}`, 1, {
        compose: printsPassword,
        secretProvider: provider,
      });
      expect(done.job.result, JSON.stringify(done.job)).toMatchObject({ success: true });
      expect(linesOf(done.job.messages)).toEqual(['deployed', 'DB_PASSWORD=***']);
    }
  }, 60_000);

  it('an admin may bind any provider; once an editor saved the compose file, a deploy gets no value from it', async () => {
    const created = await createStackDone(stacks.admin, 'admin-bound', 1, {
      compose: printsPassword,
      secretProvider: 'prod',
    });
    expect(created.job.result).toMatchObject({ success: true });
    expect(linesOf(created.job.messages)).toEqual(['deployed', 'DB_PASSWORD=***']);

    const editor = stacks.server.as('editor1');
    await saveCompose(editor, 'admin-bound', 1, composeText({ env: ['DB_PASSWORD'], lines: ['stolen'] }));
    const before = (await argvCalls(stacks.server)).length;
    const deployed = await deployDone(editor, 'admin-bound', 1);
    const error =
      'secret provider "prod" does not serve stacks of environment 1 (config secretProviders["prod"].environments) (checked because its compose file was last saved by editor1)';
    expect(deployed.job.result).toMatchObject({ success: false, error });
    expect(linesOf(deployed.job.messages)).toEqual([]);
    const run = await waitRun(stacks.admin, 'admin-bound', deployed.runId as number);
    expect(run).toMatchObject({ status: 'failed', errorMessage: error });
    // Compose never ran for that deploy.
    expect((await argvCalls(stacks.server)).length).toBe(before);

    // Saved again by an admin, the stack is the admins' again and deploys with the value.
    await saveCompose(stacks.admin, 'admin-bound', 1, printsPassword);
    const again = await deployDone(stacks.admin, 'admin-bound', 1);
    expect(again.job.result).toMatchObject({ success: true });
    expect(linesOf(again.job.messages)).toEqual(['deployed', 'DB_PASSWORD=***']);
  }, 120_000);

  it('the local environment is served only by a list naming null, or "*"', async () => {
    const editor = stacks.server.as('editor1');
    const refused = await editor.post('/api/stacks?env=null', {
      name: 'local-edge',
      compose: printsPassword,
      secretProvider: 'edge',
    });
    expect(refused.status, refused.text).toBe(403);
    expect(refused.value).toEqual({
      error:
        'forbidden: secret provider "edge" does not serve stacks of the local environment (config secretProviders["edge"].environments)',
    });
    const done = await createStackDone(editor, 'local-everywhere', null, {
      compose: printsPassword,
      secretProvider: 'everywhere',
    });
    expect(done.job.result).toMatchObject({ success: true });
    expect(linesOf(done.job.messages)).toEqual(['deployed', 'DB_PASSWORD=***']);
  }, 60_000);
});

describeStacks('a relative secret provider command', () => {
  it('is found in the config file folder, not the stack folder', async () => {
    const dataDir = await tempDir();
    const configFile = join(dataDir, 'config.json');
    const script = join(dirname(configFile), 'print-secrets.sh');
    await writeFile(script, `#!/bin/sh\nprintf '{"DB_PASSWORD": "%s"}' "${EDGE_SECRET}"\n`);
    await chmod(script, 0o755);
    await withStacks(
      {
        dataDir,
        config: stacksConfig({
          secretProviders: { vault: { command: ['./print-secrets.sh'], environments: [1] } },
        }),
      },
      async (server) => {
        expect(server.configFile).toBe(configFile);
        const done = await createStackDone(server.as('editor1'), 'relative', 1, {
          compose: composeText({ env: ['DB_PASSWORD'], lines: ['deployed'] }),
          secretProvider: 'vault',
        });
        expect(done.job.result, JSON.stringify(done.job)).toMatchObject({ success: true });
        expect(linesOf(done.job.messages)).toEqual(['deployed', 'DB_PASSWORD=***']);
      },
    );
  }, 60_000);
});
