import {
  AppError,
  DEFAULT_SETTINGS,
  SECRET_SETTING_KEYS,
  SETTING_SCHEMAS,
  isSettingKey,
  maskSecret,
  parseOrThrow,
  companyEvent,
  type SettingKey,
  type SettingItem,
} from '@balcao/shared';
import { z } from 'zod';
import { queryAll, putItem, getItem, tx, type TransactItem } from '../core/db.js';
import { keys } from '../table/keys.js';
import { publish } from '../core/realtime.js';
import { type SettingRecord } from '../table/items.js';
import { nowIso } from '../core/ports.js';

const shown = (key: string, value: string) => (SECRET_SETTING_KEYS.includes(key as SettingKey) ? maskSecret(value) : value);

/** The company's settings: stored values over the defaults, secrets masked. */
export async function listSettings(companyId: number): Promise<SettingItem[]> {
  const stored = await queryAll<SettingRecord>(keys.companyPartition(companyId), keys.settingPrefix());
  const values = new Map<string, string>(Object.entries(DEFAULT_SETTINGS));
  for (const s of stored) values.set(s.key, s.value);
  return [...values.entries()].map(([key, value]) => ({ key, value: shown(key, value), companyId }));
}

/** Raw values for server-side use (never answered as is). */
export async function settingValue(companyId: number, key: SettingKey): Promise<string> {
  const item = await getItem<SettingRecord>(keys.setting(companyId, key));
  return item?.value ?? DEFAULT_SETTINGS[key];
}

export async function getSetting(companyId: number, key: string): Promise<SettingItem> {
  if (!isSettingKey(key)) throw new AppError(404, 'ERR_NO_SETTING_FOUND');
  return { key, value: shown(key, await settingValue(companyId, key)), companyId };
}

export async function updateSetting(companyId: number, key: string, input: Record<string, unknown>): Promise<SettingItem> {
  if (!isSettingKey(key)) throw new AppError(404, 'ERR_NO_SETTING_FOUND');
  const { value } = parseOrThrow(z.object({ value: SETTING_SCHEMAS[key] }), { value: input.value });
  const now = nowIso();
  await putItem({ ...keys.setting(companyId, key), entity: 'setting', companyId, key, value, createdAt: now, updatedAt: now });
  const setting = { key, value: shown(key, value), companyId };
  await publish({ companyId, event: companyEvent(companyId, 'settings'), data: { action: 'update', setting }, audience: [{ kind: 'company' }] });
  return setting;
}

/** Default settings written when a company is created (server-behaviour §13). */
export function defaultSettingItems(companyId: number, now: string): TransactItem[] {
  return (Object.entries(DEFAULT_SETTINGS) as [SettingKey, string][]).map(([key, value]) =>
    tx.put({ ...keys.setting(companyId, key), entity: 'setting', companyId, key, value, createdAt: now, updatedAt: now }),
  );
}
