import cron from 'node-cron';
import type { GeneralSettings } from '../../../projections/settings.js';
import { SETTINGS_STREAM, type StacksEventMap, stacksEvent } from '../../../streams/stacks.js';
import type { EventStore } from '../../store/types.js';
import { StacksError } from '../errors.js';
import type { ReadModel } from '../jobs/job-book.js';

/** The settings a `POST /api/settings/general` may set; any other key is a 400. */
const SETTING_KEYS = [
  'deployLogReconcileCron',
  'deployLogReconcileEnabled',
  'deployRunRetentionCron',
  'deployRunRetentionEnabled',
] as const;

type SettingsPatch = Partial<GeneralSettings>;

/**
 * Why a cron expression is refused (node-cron's own check, 5 or 6 fields), or undefined when it is valid.
 * The message names the field and the problem, e.g. `minute: 61 is a invalid expression for minute`.
 */
export function cronProblem(expression: string): string | undefined {
  if (expression.trim() === '') return 'it is empty';
  const result = cron.validateDetailed(expression);
  if (result.valid) return undefined;
  const problems = result.errors.map((e) =>
    e.field === 'expression' ? e.message : `${e.field}: ${e.message}`,
  );
  return problems.length > 0 ? problems.join('; ') : 'it is not a valid cron expression';
}

/** A settings body: a JSON object with some of the known keys, each of the right type (400 otherwise). */
export function parseSettingsPatch(body: unknown): SettingsPatch {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new StacksError('invalid_body', 'The body must be a JSON object');
  const input = body as Record<string, unknown>;
  const unknown = Object.keys(input).filter((k) => !(SETTING_KEYS as readonly string[]).includes(k));
  if (unknown.length > 0)
    throw new StacksError(
      'invalid_settings',
      `Unknown setting ${unknown.map((k) => JSON.stringify(k)).join(', ')}: expected ${SETTING_KEYS.join(', ')}`,
    );
  const patch: SettingsPatch = {};
  for (const key of ['deployLogReconcileCron', 'deployRunRetentionCron'] as const) {
    const value = input[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new StacksError('invalid_settings', `${key} must be a string`);
    const problem = cronProblem(value);
    if (problem !== undefined)
      throw new StacksError(
        'invalid_cron',
        `${key} ${JSON.stringify(value)} is not a valid cron expression: ${problem}`,
      );
    patch[key] = value;
  }
  for (const key of ['deployLogReconcileEnabled', 'deployRunRetentionEnabled'] as const) {
    const value = input[key];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') throw new StacksError('invalid_settings', `${key} must be a boolean`);
    patch[key] = value;
  }
  return patch;
}

/** The event a patch records: only the keys it sets. */
export function settingsChangedEvent(
  patch: SettingsPatch,
  userId: string | null,
): StacksEventMap['SettingsChanged'] {
  return {
    ...(patch.deployLogReconcileCron !== undefined
      ? { deploy_log_reconcile_cron: patch.deployLogReconcileCron }
      : {}),
    ...(patch.deployLogReconcileEnabled !== undefined
      ? { deploy_log_reconcile_enabled: patch.deployLogReconcileEnabled }
      : {}),
    ...(patch.deployRunRetentionCron !== undefined
      ? { deploy_run_retention_cron: patch.deployRunRetentionCron }
      : {}),
    ...(patch.deployRunRetentionEnabled !== undefined
      ? { deploy_run_retention_enabled: patch.deployRunRetentionEnabled }
      : {}),
    user_id: userId,
  };
}

/** The general settings: read from their projection, changed by appending SettingsChanged. */
export class SettingsBook {
  constructor(
    private readonly store: EventStore,
    private readonly model: ReadModel<GeneralSettings>,
  ) {}

  get(): GeneralSettings {
    return { ...this.model.state };
  }

  /**
   * Records a change and resolves with the settings once the read model has it (and so once the
   * schedule, which follows the read model, has been set again). An empty patch records nothing.
   */
  async change(patch: SettingsPatch, userId: string | null): Promise<GeneralSettings> {
    if (Object.keys(patch).length === 0) return this.get();
    // A change sets keys, whatever came before it: the log's order decides, no revision to expect.
    const { position } = await this.store.append(
      SETTINGS_STREAM,
      [stacksEvent('SettingsChanged', settingsChangedEvent(patch, userId))],
      { expectedRevision: 'any' },
    );
    await this.model.waitFor(position);
    return this.get();
  }
}
