import type { Key } from '../core/db.js';

/**
 * Agents, queues and connections named by ticket pages, kept per instance for a short while (a
 * company's few names; decision 31). The service that changes one drops it here; other instances
 * show the old name for up to REF_CACHE_MS.
 */
const REF_CACHE_MS = 15_000;
const REFS_KEPT = 5_000;
type Ref = { PK: string; SK: string; entity: string; id: number };
const refCache = new Map<string, { at: number; item: Ref }>();
const refId = (k: Key) => `${k.PK}|${k.SK}`;

export function cachedRef(key: Key, now = Date.now()): Ref | undefined {
  const hit = refCache.get(refId(key));
  return hit && now - hit.at < REF_CACHE_MS ? hit.item : undefined;
}

export function keepRef(item: Ref, now = Date.now()) {
  if (refCache.size >= REFS_KEPT) refCache.delete(refCache.keys().next().value!);
  refCache.set(refId(item), { at: now, item });
}

/** Drops a cached agent, queue or connection after a change of it. */
export function forgetTicketRef(key: Key) {
  refCache.delete(refId(key));
}
