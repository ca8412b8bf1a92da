import type { CacheStore } from '@whiskeysockets/baileys';

/**
 * The signal key cache in front of the table: a bounded map, per session and dropped with it (the
 * default cache runs a timer per instance, which would outlive sessions that are wiped and rebuilt).
 */
export class KeyCache implements CacheStore {
  private map = new Map<string, unknown>();
  constructor(private readonly max: number) {}
  get<T>(key: string): T | undefined {
    return this.map.get(key) as T | undefined;
  }
  set<T>(key: string, value: T): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
  del(key: string): void {
    this.map.delete(key);
  }
  flushAll(): void {
    this.map.clear();
  }
}

/** A small set that forgets its oldest entries, for ids seen recently. */
export class RecentSet {
  private items = new Set<string>();
  constructor(private readonly max: number) {}
  has(k: string) {
    return this.items.has(k);
  }
  add(k: string) {
    this.items.delete(k);
    this.items.add(k);
    if (this.items.size > this.max) this.items.delete(this.items.values().next().value as string);
  }
  delete(k: string) {
    this.items.delete(k);
  }
}

/** A map that forgets its least recently set entries past `max` (learned facts a session can ask again). */
export class BoundedMap<K, V> {
  private map = new Map<K, V>();
  constructor(private readonly max: number) {}
  get size() {
    return this.map.size;
  }
  get(k: K): V | undefined {
    return this.map.get(k);
  }
  has(k: K): boolean {
    return this.map.has(k);
  }
  set(k: K, v: V): this {
    this.map.delete(k);
    this.map.set(k, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as K);
    return this;
  }
  delete(k: K): boolean {
    return this.map.delete(k);
  }
  clear(): void {
    this.map.clear();
  }
}
