/**
 * A variable whose value is too short to replace (`TAG=1`) withholds every output line holding it, as
 * the spec requires; saving one is answered with a warning of how many lines of the stack's last run it
 * withholds (the fake compose prints v2's progress lines: every container line holds `-1`).
 */
import { expect, it } from 'vitest';
import {
  composeText,
  createStackDone,
  describeStacks,
  expectStatus,
  type Json,
  objectOf,
  q,
  serveStacks,
} from './helpers.js';

describeStacks('variables too short to replace', () => {
  const stacks = serveStacks();

  it('PUT variables warns of each short value, counting the lines of the last run holding it; long ones pass', async () => {
    const admin = stacks.admin;
    // No x-fake: v2's typical `up` output, two of its six lines per container name `tagged-web-1`.
    await createStackDone(admin, 'tagged', null, { compose: composeText() });
    const reply = await admin.put(`/api/stacks/tagged/variables${q(null)}`, {
      variables: [
        { name: 'TAG', value: '1', secret: false },
        { name: 'PIN', value: 'web', secret: true },
        { name: 'LONG', value: 'long-enough-value', secret: false },
        { name: 'EMPTY', value: '', secret: false },
      ],
    });
    expectStatus(reply, 200, 'PUT variables');
    const body = objectOf(reply);
    expect((body.variables as Json[]).map((v) => v.name)).toEqual(['TAG', 'PIN', 'LONG', 'EMPTY']);
    expect(body.warnings).toEqual([
      {
        variable: 'TAG',
        secret: false,
        withheldLines: 4,
        loggedLines: 6,
        message:
          "TAG's value has 1 character, too few to replace with ***: every output line holding it is withheld from the job, the log and errors (4 of the 6 lines of the stack's last run hold it)",
      },
      {
        variable: 'PIN',
        secret: true,
        withheldLines: 4,
        loggedLines: 6,
        message:
          "PIN's value has 3 characters, too few to replace with ***: every output line holding it is withheld from the job, the log and errors (4 of the 6 lines of the stack's last run hold it)",
      },
    ]);
    // A secret's value is never in the answer.
    expect(JSON.stringify(body.warnings)).not.toContain('"web"');

    const fine = await admin.put(`/api/stacks/tagged/variables${q(null)}`, {
      variables: [{ name: 'LONG', value: 'long-enough-value', secret: false }],
    });
    // None: the answer is GET's, without `warnings`.
    expect(objectOf(fine)).not.toHaveProperty('warnings');
  });

  it('a stack without a run: the warning without counts', async () => {
    const admin = stacks.admin;
    await createStackDone(admin, 'fresh', null, { compose: composeText({ lines: [] }) });
    // Its one run printed nothing: no log file.
    const reply = await admin.put(`/api/stacks/fresh/variables${q(null)}`, {
      variables: [{ name: 'N', value: '22', secret: false }],
    });
    expect(objectOf(reply).warnings).toMatchObject([
      { variable: 'N', withheldLines: null, loggedLines: null },
    ]);
  });
});
