import { SETTINGS_STREAM, type StacksEventMap } from '../streams/stacks.js';
import type { Projection } from './projection.js';

/** The general settings of `GET /api/settings/general` (spec, Settings fields). */
export interface GeneralSettings {
  deployLogReconcileCron: string;
  deployLogReconcileEnabled: boolean;
  /** The deploy-run retention schedule (docs/stacks.md#deploy-run-retention). */
  deployRunRetentionCron: string;
  deployRunRetentionEnabled: boolean;
}

/** Spec: the reconcile is enabled by default and runs daily by default (03:00, a quiet hour). */
export const DEFAULT_SETTINGS: Readonly<GeneralSettings> = Object.freeze({
  deployLogReconcileCron: '0 3 * * *',
  deployLogReconcileEnabled: true,
  // After the reconcile; runs are only deleted where a stack or environment sets keepRuns/keepDays.
  deployRunRetentionCron: '30 3 * * *',
  deployRunRetentionEnabled: true,
});

/** The settings with a change laid over them (a change names only the keys it sets). */
export function applySettingsChange(
  settings: GeneralSettings,
  change: StacksEventMap['SettingsChanged'],
): GeneralSettings {
  return {
    deployLogReconcileCron: change.deploy_log_reconcile_cron ?? settings.deployLogReconcileCron,
    deployLogReconcileEnabled: change.deploy_log_reconcile_enabled ?? settings.deployLogReconcileEnabled,
    deployRunRetentionCron: change.deploy_run_retention_cron ?? settings.deployRunRetentionCron,
    deployRunRetentionEnabled: change.deploy_run_retention_enabled ?? settings.deployRunRetentionEnabled,
  };
}

/** The settings read model: the defaults with every SettingsChanged of `stacks-settings` laid over them. */
export const generalSettings: Projection<GeneralSettings> = {
  name: 'stacks-settings',
  // 2: the deploy-run retention schedule's keys.
  version: 2,
  stream: SETTINGS_STREAM,
  initial: () => ({ ...DEFAULT_SETTINGS }),
  evolve(state, event) {
    if (event.type !== 'SettingsChanged') return state;
    return applySettingsChange(state, event.data as StacksEventMap['SettingsChanged']);
  },
};
