import { campaignSettingsFrom, type CampaignSettings } from '@balcao/shared';
import { call } from './call';

/**
 * Campaign settings (spec 002 §7, issue 20 §3): the API speaks the spec's key/value list with JSON
 * values; the console works with the settings object (defaults filled).
 */
export const campaignSettingsApi = {
  get: () => call('GET /campaign-settings').then(campaignSettingsFrom),
  save: (settings: CampaignSettings) => call('POST /campaign-settings', { body: settings }).then(campaignSettingsFrom),
};
