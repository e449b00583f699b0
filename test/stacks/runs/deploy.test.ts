/**
 * The deploy pipeline's stages and its one output, without a service: a fake job and run keep what they
 * are told, fake parts stand for the engines, the providers and the history, a fake compose prints what
 * it is given.
 */
import { describe, expect, it } from 'vitest';
import {
  cancelledMessage,
  Deploy,
  queuedStatus,
  runDeploy,
  START_CREATES_MESSAGE,
} from '../../../src/stacks/runs/deploy.js';
import { DeployOutput, withheldNotice } from '../../../src/stacks/runs/deploy-output.js';
import { FakeCompose, FakeJob, FakeRun, group, inputOf, partsOf, stackOf } from './deploy-fakes.js';

const LONG = 's3cret-value';
const SHORT = 'abc';

const outputOf = (values: string[], options: { forwardLines?: boolean; run?: FakeRun | null } = {}) => {
  const job = new FakeJob();
  const run = options.run === null ? undefined : (options.run ?? new FakeRun());
  const output = new DeployOutput(job, run, values, {
    forwardLines: options.forwardLines ?? true,
    budgetNotice: 'budget reached',
  });
  return { job, run, output };
};

const line = (text: string) => ({ stream: 'stdout' as const, line: text });

describe('DeployOutput: the one way out of a deploy', () => {
  it('given a value of the stack, when compose prints it, then the log and the job get the same masked line', () => {
    const { job, run, output } = outputOf([LONG]);
    expect(output.output(line(`password=${LONG}`))).toBe('password=***');
    output.output(line('plain line'));
    expect(run?.lines).toEqual(['password=***', 'plain line']);
    expect(job.lines).toEqual(['password=***', 'plain line']);
  });

  it('given a short value, when a line holds it, then it is withheld: the run keeps its place, the job says how many where they were', () => {
    const { job, run, output } = outputOf([SHORT]);
    output.output(line('first'));
    expect(output.output(line(`x ${SHORT} y`))).toBeNull();
    output.output(line(`again ${SHORT}`));
    output.output(line('second'));
    output.output(line(`last ${SHORT}`));
    output.endStep();
    expect(run?.lines).toEqual(['first', 'second']);
    expect(run?.withheldAt).toEqual([1, 1, 2]);
    expect(job.told).toEqual([
      { line: 'first' },
      { status: withheldNotice(2) },
      { line: 'second' },
      { status: withheldNotice(1) },
    ]);
  });

  it('a cut line is redacted whole, then cut: a value crossing the cut never shows its start', () => {
    const { job, output } = outputOf([LONG]);
    output.output({ stream: 'stdout', line: `ab${LONG}`, cut: { keep: 5, marker: ' [cut]' } });
    expect(job.lines).toEqual(['ab*** [cut]']);
  });

  it('given a deploy whose lines go to the log only, then the job gets none of them nor a withheld count, but the lines chronicle adds', () => {
    const { job, run, output } = outputOf([SHORT], { forwardLines: false });
    output.output(line('compose says'));
    output.output(line(`holds ${SHORT}`));
    output.endStep();
    output.say('Removed container 0123456789ab_web-web-1: an interrupted compose left it renamed');
    expect(run?.lines).toEqual([
      'compose says',
      'Removed container 0123456789ab_web-web-1: an interrupted compose left it renamed',
    ]);
    expect(job.told).toEqual([
      { line: 'Removed container 0123456789ab_web-web-1: an interrupted compose left it renamed' },
    ]);
  });

  it('when the log budget is reached, then the job takes no more lines and hears the notice', () => {
    const run = new FakeRun();
    run.budgetLines = 1;
    const { job, output } = outputOf([], { run });
    output.output(line('one'));
    output.output(line('two'));
    output.output(line('three'));
    expect(run.lines).toEqual(['one']);
    expect(job.told).toEqual([
      { line: 'one' },
      { budgetReached: 'budget reached' },
      { budgetReached: 'budget reached' },
    ]);
  });

  it('extends its one redactor with values it does not hold, and keeps hiding the earlier ones', () => {
    const { job, output } = outputOf([LONG]);
    const first = output.redactor;
    output.extend([LONG]);
    expect(output.redactor).toBe(first);
    output.extend(['provider-token-1', 'provider-token-1']);
    expect(output.redactor).not.toBe(first);
    output.output(line(`${LONG} provider-token-1`));
    expect(job.lines).toEqual(['*** ***']);
  });

  it('records the compose process group in the run when there is one, else in the job', () => {
    const withRun = outputOf([]);
    withRun.output.composeStarted(group(41));
    expect(withRun.run?.groups).toEqual([41]);
    expect(withRun.job.told).toEqual([]);
    const jobOnly = outputOf([], { run: null });
    jobOnly.output.composeStarted(group(42));
    expect(jobOnly.job.told).toEqual([{ composeStarted: 42 }]);
  });

  it("holds back as much as the longer of the job's and the log's queues, plus the log's write in flight", () => {
    const { job, run, output } = outputOf([]);
    job.backlogBytes = 300;
    if (run) {
      run.queuedLineBytes = 200;
      run.backlogBytes = 250;
    }
    expect(output.backlogBytes).toBe(350);
    expect(outputOf([], { run: null }).output.backlogBytes).toBe(0);
  });

  it("statuses a variant reports are redacted; chronicle's own notices are not", () => {
    const { job, output } = outputOf([SHORT, LONG]);
    output.status(`Fetched with ${LONG}`);
    output.status(`Token ${SHORT}`);
    output.notice('Running compose up');
    expect(job.statuses).toEqual(['Fetched with ***', 'Running compose up']);
  });
});

describe('the deploy stages', () => {
  it('given a queued job, when its turn comes, then it says where it waited and both the run and the job record the dequeue', async () => {
    const input = inputOf({
      slot: { ticket: { queued: true, ahead: 2, limit: 4, granted: Promise.resolve() } },
    });
    await new Deploy(partsOf(new FakeCompose()), input).waitTurn();
    expect(input.job.told).toEqual([{ status: queuedStatus({ ahead: 2, limit: 4 }) }, { dequeued: true }]);
    expect((input.run as FakeRun).dequeuedAt).toBe(0);
  });

  it('resolve source: the variant reports and adds values to hide, then the stack is read again and changed hashes recorded', async () => {
    const changed = stackOf({
      compose: 'services:\n  web:\n    image: nginx:1.27\n',
      variables: [{ name: 'TOKEN', value: 'from-the-repository', secret: true }],
    });
    const compose = new FakeCompose({ lines: ['from-the-repository cred-1234567 s3cret-value'] });
    const input = inputOf({
      variant: {
        resolve: async (source) => {
          source.redact(['cred-1234567']);
          source.status('Fetched with cred-1234567');
          await source.details({ commit: 'abc123' });
        },
      },
    });
    const parts = partsOf(compose, { readStack: async () => changed });
    const result = await runDeploy(parts, input);
    expect(result.success).toBe(true);
    const run = input.run as FakeRun;
    expect(run.sources).toEqual([
      { extra: { commit: 'abc123' } },
      { composeHash: parts.hashes(changed).compose, envHash: parts.hashes(changed).env },
    ]);
    expect(input.job.statuses[0]).toBe('Fetched with ***');
    // The values of the stack as the run started stay hidden beside the new ones.
    expect(run.lines).toEqual(['*** *** ***']);
  });

  it("resolve secrets: the provider's values go to compose's environment and are hidden from its output", async () => {
    const compose = new FakeCompose({ lines: ['connecting with vault-token-999'] });
    const input = inputOf({ stack: stackOf({ secretProvider: 'vault' }) });
    const parts = partsOf(compose, { resolveProvider: async () => ({ API_TOKEN: 'vault-token-999' }) });
    await runDeploy(parts, input);
    expect(input.job.statuses).toContain('Resolving secrets from vault');
    expect(compose.invocations[0]?.env.API_TOKEN).toBe('vault-token-999');
    expect((input.run as FakeRun).lines).toEqual(['connecting with ***']);
  });

  it('record content: an up with a run records what it deploys; an operation without a run records none', async () => {
    const deploy = inputOf();
    const prepared = await new Deploy(partsOf(new FakeCompose()), deploy).recordContent();
    expect((deploy.run as FakeRun).notes).toEqual(['RunContentRecorded']);
    expect(prepared.env.DB_PASSWORD).toBe(LONG);
    expect(prepared.target.project).toBe('web');
    const stop = inputOf({ operation: 'stop', run: undefined });
    const none = await new Deploy(partsOf(new FakeCompose()), stop).recordContent();
    expect(none.renamed).toBeUndefined();
  });

  it("compose steps: the process group is recorded in the run, the process is the slot's, a failure names its last stderr lines, redacted", async () => {
    const compose = new FakeCompose({
      pid: 4242,
      exitCode: 1,
      lines: [
        { stream: 'stderr', line: 'Error response from daemon' },
        { stream: 'stderr', line: `bad password ${LONG}` },
      ],
    });
    const input = inputOf();
    const deploy = new Deploy(partsOf(compose), input);
    const result = await deploy.run();
    const run = input.run as FakeRun;
    expect(run.groups).toEqual([4242]);
    expect(input.job.told).not.toContainEqual({ composeStarted: 4242 });
    expect(input.slot.process).toBeDefined();
    expect(result.success).toBe(false);
    expect(result.error).toBe('Compose exited with code 1:\nError response from daemon\nbad password ***');
    expect(run.completion?.success).toBe(false);
    expect(run.completion?.outputLines).toBe(2);
  });

  it('compose steps: a start after a down finds no container, so an up creates them', async () => {
    const compose = new FakeCompose(
      { exitCode: 1, lines: [{ stream: 'stderr', line: 'service "web" has no container to start' }] },
      { lines: ['Container web-web-1  Started'] },
    );
    const input = inputOf({ operation: 'start', run: undefined });
    const result = await runDeploy(partsOf(compose), input);
    expect(compose.subcommands).toEqual(['start', 'up']);
    expect(input.job.statuses).toContain(START_CREATES_MESSAGE);
    expect(result.success).toBe(true);
  });

  it('before an up, containers an interrupted compose left renamed are removed: lines of the output, names in the run', async () => {
    const compose = new FakeCompose({});
    const input = inputOf();
    const parts = partsOf(compose, {
      lookForRenamed: async () => [{ id: 'c1', name: '0123456789ab_web-web-1' }],
      removeRenamed: async () => ({ removed: ['0123456789ab_web-web-1'], failed: [] }),
    });
    await runDeploy(parts, input);
    const run = input.run as FakeRun;
    expect(run.removed).toEqual([['0123456789ab_web-web-1']]);
    expect(run.lines[0]).toMatch(/^Removed container 0123456789ab_web-web-1/);
    expect(input.job.lines[0]).toBe(run.lines[0]);
  });

  it('a cancel before compose: nothing is spawned, the run and the job end cancelled by who asked', async () => {
    const compose = new FakeCompose({});
    const input = inputOf({ slot: { cancel: { userId: 'bob' } } });
    const result = await runDeploy(partsOf(compose), input);
    expect(compose.invocations).toEqual([]);
    expect(result.error).toBe(cancelledMessage('bob'));
    expect((input.run as FakeRun).completion?.cancelledBy).toBe('bob');
  });

  it('complete: the error is redacted with what the provider gives at the end too, the stack is let go before the run completes', async () => {
    const compose = new FakeCompose({
      exitCode: 2,
      lines: [{ stream: 'stderr', line: 'rotated-secret-42 refused' }],
    });
    const input = inputOf({ stack: stackOf({ secretProvider: 'vault' }) });
    let calls = 0;
    let releasedAtCompletion = -1;
    const run = input.run as FakeRun;
    const complete = run.complete.bind(run);
    run.complete = (completion) => {
      releasedAtCompletion = input.released();
      return complete(completion);
    };
    const parts = partsOf(compose, {
      resolveProvider: async (): Promise<Record<string, string>> =>
        calls++ === 0 ? {} : { KEY: 'rotated-secret-42' },
    });
    const result = await runDeploy(parts, input);
    expect(releasedAtCompletion).toBe(1);
    expect(result.error).toContain('*** refused');
    expect(result.error).not.toContain('rotated-secret-42');
    expect(input.job.finished?.success).toBe(false);
  });

  it('a stack operation without a run is kept for its Activity before the job finishes', async () => {
    const order: string[] = [];
    const input = inputOf({
      operation: 'stop',
      run: undefined,
      recordOperation: async (outcome) => {
        order.push(`activity:${outcome.success}`);
      },
    });
    const finish = input.job.finish.bind(input.job);
    input.job.finish = (outcome) => {
      order.push('finish');
      return finish(outcome);
    };
    await runDeploy(partsOf(new FakeCompose({})), input);
    expect(order).toEqual(['activity:true', 'finish']);
  });
});
