import type { PlanFlag, SettingKey } from '@balcao/shared';

/*
 * What the product does not do yet (issue 14 §8). A control for an unbuilt feature never pretends:
 * it calls no route that does not exist (a 404 in normal use), and says the feature is coming.
 * The issue that builds a feature removes it from these lists, which brings its controls to life.
 */

/**
 * Lists the queue and connection dialogs read: AI prompts (`GET /prompt`) and queue integrations
 * (`GET /queueIntegration`), built with issue 19; the plan's flags (useOpenAi, useIntegrations)
 * still decide whether a company has them.
 */
export const BUILT = { prompts: true, integrations: true } as const;

/** Plan flags whose feature is not built yet: still stored with the plan (sold ahead), marked as coming. */
export const UNBUILT_PLAN_FLAGS: readonly PlanFlag[] = [];

/** Settings whose feature is not built yet: shown, not editable (none since the queue bot and business hours, issue 18). */
export const UNBUILT_SETTINGS: readonly SettingKey[] = [];
