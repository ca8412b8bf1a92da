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
import { queryAll, putItem, getItem, deleteItem, tx, type TransactItem } from '../core/db.js';
import { dashboardPartition, keys } from '../table/keys.js';
import { publish } from '../core/realtime.js';
import { type SettingRecord } from '../table/items.js';
import { nowIso, ports } from '../core/ports.js';

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
  const before = key === 'timezone' ? await settingValue(companyId, key) : undefined;
  await putItem({ ...keys.setting(companyId, key), entity: 'setting', companyId, key, value, createdAt: now, updatedAt: now });
  if (key === 'timezone' && before !== value) await timeZoneChanged(companyId);
  const setting = { key, value: shown(key, value), companyId };
  await publish({ companyId, event: companyEvent(companyId, 'settings'), data: { action: 'update', setting }, audience: [{ kind: 'company' }] });
  return setting;
}

/**
 * The company's time zone, kept a minute per instance (every ticket write needs it for the
 * dashboard); per set of ports, so worlds of the unit tests never share it.
 */
const zoneCaches = new WeakMap<object, Map<number, { at: number; zone: string }>>();
const ZONE_KEPT_MS = 60_000;
const zoneCache = () => {
  const key = ports();
  let cache = zoneCaches.get(key);
  if (!cache) zoneCaches.set(key, (cache = new Map()));
  return cache;
};
export async function cachedTimeZone(companyId: number): Promise<string> {
  const zones = zoneCache();
  const hit = zones.get(companyId);
  if (hit && Date.now() - hit.at < ZONE_KEPT_MS) return hit.zone;
  const zone = await settingValue(companyId, 'timezone');
  if (zones.size > 10_000) zones.clear();
  zones.set(companyId, { at: Date.now(), zone });
  return zone;
}

/**
 * A new zone moves midnight: this instance uses it at once (others within ZONE_KEPT_MS), and the
 * dashboard's past-day rollups (decision 60), summed on the old calendar, go: the next read sums
 * the day items again.
 */
async function timeZoneChanged(companyId: number) {
  zoneCache().delete(companyId);
  const rollups = await queryAll<{ PK: string; SK: string }>(dashboardPartition(companyId), 'R#', { ProjectionExpression: 'PK, SK' });
  for (const r of rollups) await deleteItem({ PK: r.PK, SK: r.SK });
}

/** Default settings written when a company is created (server-behaviour §13). */
export function defaultSettingItems(companyId: number, now: string): TransactItem[] {
  return (Object.entries(DEFAULT_SETTINGS) as [SettingKey, string][]).map(([key, value]) =>
    tx.put({ ...keys.setting(companyId, key), entity: 'setting', companyId, key, value, createdAt: now, updatedAt: now }),
  );
}
