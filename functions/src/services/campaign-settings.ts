import {
  CAMPAIGN_GREATER_INTERVALS,
  CAMPAIGN_LONGER_INTERVAL_AFTER,
  CAMPAIGN_MESSAGE_INTERVALS,
  CAMPAIGN_SETTINGS_DEFAULTS,
  campaignSettingEntries,
  campaignSettingsSchema,
  parseOrThrow,
  type CampaignSettingEntry,
  type CampaignSettings,
} from '@balcao/shared';
import { getItem, updateItem } from '../core/db.js';
import type { Identity } from '../core/identity.js';
import { nowIso } from '../core/ports.js';
import { campaignSettingsKey } from '../table/keys.js';
import type { CampaignSettingsItem } from '../table/items.js';

/**
 * Campaign settings (issue 20 §3; spec 002 §3, §7, §9): the company's pacing of campaign messages
 * and its custom variables, one item in the company's partition. The API answers the spec's
 * key/value list with JSON values; what was never saved is its default (20 s, 20 messages, 60 s).
 */

const allowed = (v: unknown, list: readonly number[]): v is number => typeof v === 'number' && list.includes(v);

/** The company's settings, defaults filled: what the campaign dispatcher paces and fills messages with. */
export async function getCampaignSettings(companyId: number): Promise<CampaignSettings> {
  const item = await getItem<CampaignSettingsItem>(campaignSettingsKey(companyId), true);
  const d = CAMPAIGN_SETTINGS_DEFAULTS;
  return {
    messageInterval: allowed(item?.messageInterval, CAMPAIGN_MESSAGE_INTERVALS) ? item.messageInterval : d.messageInterval,
    longerIntervalAfter: allowed(item?.longerIntervalAfter, CAMPAIGN_LONGER_INTERVAL_AFTER) ? item.longerIntervalAfter : d.longerIntervalAfter,
    greaterInterval: allowed(item?.greaterInterval, CAMPAIGN_GREATER_INTERVALS) ? item.greaterInterval : d.greaterInterval,
    variables: Array.isArray(item?.variables) ? item.variables.map((v) => ({ key: v.key, value: v.value })) : [],
  };
}

/** `GET /campaign-settings`: `[{key, value}]`, each value JSON-encoded. */
export const listCampaignSettings = async (identity: Identity): Promise<CampaignSettingEntry[]> => campaignSettingEntries(await getCampaignSettings(identity.companyId));

/**
 * `POST /campaign-settings`: the settings object (`{messageInterval, longerIntervalAfter,
 * greaterInterval, variables}`; the reference's `{settings: {…}}` wrapping is accepted too). Fields
 * left out keep their saved values; `variables` is the whole list. Each field is set on its own, so
 * two admins saving different fields at once both keep theirs. Answers the settings as saved.
 */
export async function saveCampaignSettings(identity: Identity, body: unknown): Promise<CampaignSettingEntry[]> {
  const wrapped = body && typeof body === 'object' && 'settings' in body && typeof (body as { settings: unknown }).settings === 'object' ? (body as { settings: unknown }).settings : body;
  const data = parseOrThrow(campaignSettingsSchema, wrapped ?? {});
  const companyId = identity.companyId;
  await updateItem(
    campaignSettingsKey(companyId),
    { entity: 'campaignSettings', companyId, ...data, updatedAt: nowIso() },
    // Created by the first save: the item needs no earlier version.
    { condition: 'attribute_not_exists(PK) OR attribute_exists(PK)' },
  );
  return listCampaignSettings(identity);
}
