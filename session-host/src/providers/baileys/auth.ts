import {
  BufferJSON,
  initAuthCreds,
  proto,
  type AuthenticationCreds,
  type AuthenticationState,
  type SignalDataSet,
  type SignalDataTypeMap,
  type SignalKeyStore,
} from '@whiskeysockets/baileys';
import type { AuthStore, Logger } from '../../provider.js';

/**
 * Baileys credentials and signal keys kept in the table through the host's `AuthStore` (DESIGN §6:
 * never files). Values are JSON with Baileys' `BufferJSON` so Buffers and Uint8Arrays survive.
 *
 * Item names: `creds`, and `key:<type>:<id>` for every signal key type (`SignalDataTypeMap`).
 */

export const CREDS_KEY = 'creds';

/**
 * Every key type of Baileys 7's `SignalDataTypeMap`, in the order `keys.set` writes them; the
 * compiler checks the list is complete.
 *
 * A set too big for one transaction (a first group send's sessions, the 812 first pre-keys) is
 * written in several, in this order, and a failure leaves the first ones written. `set` then
 * rejects, Baileys' transaction commit writes the same set again (up to 10 times) or the whole
 * operation fails and WhatsApp redelivers, so a prefix is only ever a state between two attempts.
 * Per type, a prefix written without the rest:
 * - `pre-key`: extra pre-keys nobody knows yet (uploaded only after the set); harmless.
 * - `session`: one record per device, each complete by itself; a device whose new session is not
 *   stored is negotiated again (retry receipt). Before `identity-key`: a changed identity deletes
 *   the session and stores the identity in one set, and an identity stored without that delete
 *   would keep the stale session.
 * - `sender-key`: our group chain; written before the memory of who received it.
 * - `app-state-sync-key`, `lid-mapping`, `device-list`, `tctoken`: independent records or caches
 *   WhatsApp sends again; harmless.
 * - `sender-key-memory` (which devices hold our sender key) and `app-state-sync-version` (how far
 *   the app state was applied) record progress over the keys above, so they come last: progress
 *   must never be stored ahead of what it points to (a device marked as holding a sender key that
 *   was never stored would not get the new one).
 * Within a type, entries keep Baileys' order (tctoken's index after its tokens). The order matters
 * for Baileys' transaction commits, which carry every type at once; outside a transaction Baileys
 * writes each type by itself anyway.
 */
export const SIGNAL_KEY_TYPES = [
  'pre-key',
  'session',
  'identity-key',
  'sender-key',
  'app-state-sync-key',
  'lid-mapping',
  'device-list',
  'tctoken',
  'sender-key-memory',
  'app-state-sync-version',
] as const satisfies readonly (keyof SignalDataTypeMap)[];
// A key type added by a future Baileys without being listed above fails to compile here.
type Missing = Exclude<keyof SignalDataTypeMap, (typeof SIGNAL_KEY_TYPES)[number]>;
const allKeyTypesListed: [Missing] extends [never] ? true : Missing = true;
void allKeyTypesListed;

export const signalKey = (type: keyof SignalDataTypeMap, id: string) => `key:${type}:${id}`;

export const serialize = (value: unknown): string => JSON.stringify(value, BufferJSON.replacer);
export const deserialize = <T>(text: string): T => JSON.parse(text, BufferJSON.reviver) as T;

/** The signal key store over the table; `set` resolves only once the write is durable. */
export function tableSignalKeyStore(store: AuthStore): SignalKeyStore {
  return {
    async get<T extends keyof SignalDataTypeMap>(type: T, ids: string[]) {
      const out: { [id: string]: SignalDataTypeMap[T] } = {};
      // One batch read when the store has it (a group's sessions come hundreds at a time).
      const texts = store.getMany ? await store.getMany(ids.map((id) => signalKey(type, id))) : undefined;
      await Promise.all(
        ids.map(async (id) => {
          const text = texts ? texts.get(signalKey(type, id)) : await store.get(signalKey(type, id));
          if (text === undefined) return;
          let value = deserialize<SignalDataTypeMap[T]>(text);
          // Baileys expects the protobuf object for this type, as its own file store returns it.
          if (type === 'app-state-sync-key' && value) {
            value = proto.Message.AppStateSyncKeyData.fromObject(value as object) as unknown as SignalDataTypeMap[T];
          }
          out[id] = value;
        }),
      );
      return out;
    },
    async set(data: SignalDataSet) {
      const entries: Record<string, string | null> = {};
      // In SIGNAL_KEY_TYPES' order (the store writes a set that does not fit one transaction in order);
      // a type this list does not know (a newer Baileys at run time) is still written, last.
      const types = [...SIGNAL_KEY_TYPES, ...Object.keys(data).filter((t) => !(SIGNAL_KEY_TYPES as readonly string[]).includes(t))];
      for (const type of types as (keyof SignalDataTypeMap)[]) {
        for (const [id, value] of Object.entries((data[type] ?? {}) as Record<string, unknown>)) {
          entries[signalKey(type, id)] = value === null || value === undefined ? null : serialize(value);
        }
      }
      // Awaited by Baileys (its transaction commit) before it acknowledges the stanza to WhatsApp.
      if (Object.keys(entries).length) await store.set(entries);
    },
  };
}

export async function loadCreds(store: AuthStore): Promise<AuthenticationCreds> {
  const text = await store.get(CREDS_KEY);
  return text ? deserialize<AuthenticationCreds>(text) : initAuthCreds();
}

export async function saveCreds(store: AuthStore, creds: AuthenticationCreds): Promise<void> {
  await store.set({ [CREDS_KEY]: serialize(creds) });
}

/** The raw (uncached) auth state; the session puts `makeCacheableSignalKeyStore` in front of `keys`. */
export async function loadAuthState(store: AuthStore): Promise<AuthenticationState> {
  return { creds: await loadCreds(store), keys: tableSignalKeyStore(store) };
}

/** How long `stop()` keeps trying to save credentials that did not land yet before it gives up. */
export const CREDS_FLUSH_MS = 10_000;
const CREDS_RETRY_BASE_MS = 500;
const CREDS_RETRY_CAP_MS = 30_000;

/**
 * Saves the credentials Baileys changes (`creds.update`; pairing, pre-key ids, account sync), one
 * write at a time. A failed write is tried again with backoff until it lands; updates arriving
 * meanwhile are coalesced into the latest snapshot, so the latest is what lands and an older one
 * never follows a newer one. Lost credentials cost a new QR scan, hence no fire-and-forget.
 */
export class CredsWriter {
  /** The latest snapshot not yet durable. */
  private pending?: string;
  private busy = false;
  private idle: Promise<void> = Promise.resolve();
  private attempt = 0;
  /** Set while the session stops: past it, a failed write is not tried again. */
  private deadline?: number;
  private wake?: () => void;

  constructor(
    private readonly store: AuthStore,
    private readonly log: Logger,
    private readonly random: () => number = Math.random,
  ) {}

  save(creds: AuthenticationCreds): void {
    // Serialised now: Baileys mutates the same object later, the snapshot is this update's state.
    this.pending = serialize(creds);
    if (!this.busy) {
      this.busy = true;
      this.idle = this.drain();
    }
  }

  /**
   * Waits for the pending snapshot to land (the session stops). A write waiting out its backoff is
   * tried at once; failures go on being retried for `limitMs`, then the snapshot is dropped with an
   * error: the lease may be moving to another task, whose credentials a late write would overwrite.
   */
  async flush(limitMs = CREDS_FLUSH_MS): Promise<void> {
    this.deadline = Date.now() + limitMs;
    this.wake?.();
    try {
      while (this.busy) await this.idle;
    } finally {
      this.deadline = undefined;
    }
  }

  /** Drops what is not written yet and waits for a write under way (the credentials are being wiped). */
  async discard(): Promise<void> {
    this.pending = undefined;
    this.wake?.();
    while (this.busy) await this.idle;
  }

  private async drain(): Promise<void> {
    for (;;) {
      const text = this.pending;
      if (text === undefined) {
        this.busy = false; // in the same turn as the check, so the next save starts a new drain
        return;
      }
      try {
        await this.store.set({ [CREDS_KEY]: text });
        if (this.pending === text) this.pending = undefined;
        this.attempt = 0;
      } catch (err) {
        this.attempt++;
        const left = this.deadline === undefined ? Infinity : this.deadline - Date.now();
        if (left <= 0) {
          this.log.error({ err, attempts: this.attempt }, 'baileys: credentials not saved before the session stopped');
          this.pending = undefined;
          this.attempt = 0;
          this.busy = false;
          return;
        }
        this.log.warn({ err, attempt: this.attempt }, 'baileys: saving credentials failed; retrying');
        await this.pause(Math.min(left, this.delay()));
      }
    }
  }

  /** Exponential with equal jitter, so the sessions of a task that lost the table do not retry in step. */
  private delay(): number {
    const step = Math.min(CREDS_RETRY_CAP_MS, CREDS_RETRY_BASE_MS * 2 ** (this.attempt - 1));
    return Math.round(step / 2 + this.random() * (step / 2));
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}
