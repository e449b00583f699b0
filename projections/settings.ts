import { SETTINGS_STREAM, type StacksEventMap } from '../streams/stacks.js';
import type { Projection } from './projection.js';

/** The general settings of `GET /api/settings/general` (spec, Settings fields). */
export interface GeneralSettings {
  deployLogReconcileCron: string;
  deployLogReconcileEnabled: boolean;
}

/** Spec: the reconcile is enabled by default and runs daily by default (03:00, a quiet hour). */
export const DEFAULT_SETTINGS: Readonly<GeneralSettings> = Object.freeze({
  deployLogReconcileCron: '0 3 * * *',
  deployLogReconcileEnabled: true,
});

/** The settings with a change laid over them (a change names only the keys it sets). */
export function applySettingsChange(
  settings: GeneralSettings,
  change: StacksEventMap['SettingsChanged'],
): GeneralSettings {
  return {
    deployLogReconcileCron: change.deploy_log_reconcile_cron ?? settings.deployLogReconcileCron,
    deployLogReconcileEnabled: change.deploy_log_reconcile_enabled ?? settings.deployLogReconcileEnabled,
  };
}

/** The settings read model: the defaults with every SettingsChanged of `stacks-settings` laid over them. */
export const generalSettings: Projection<GeneralSettings> = {
  name: 'stacks-settings',
  version: 1,
  stream: SETTINGS_STREAM,
  initial: () => ({ ...DEFAULT_SETTINGS }),
  evolve(state, event) {
    if (event.type !== 'SettingsChanged') return state;
    return applySettingsChange(state, event.data as StacksEventMap['SettingsChanged']);
  },
};
