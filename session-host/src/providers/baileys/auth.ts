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
import type { AuthStore } from '../../provider.js';

/**
 * Baileys credentials and signal keys kept in the table through the host's `AuthStore` (DESIGN §6:
 * never files). Values are JSON with Baileys' `BufferJSON` so Buffers and Uint8Arrays survive.
 *
 * Item names: `creds`, and `key:<type>:<id>` for every signal key type (`SignalDataTypeMap`).
 */

export const CREDS_KEY = 'creds';

/** Every key type of Baileys 7's `SignalDataTypeMap`; the compiler checks the list is complete. */
export const SIGNAL_KEY_TYPES = [
  'pre-key',
  'session',
  'sender-key',
  'sender-key-memory',
  'app-state-sync-key',
  'app-state-sync-version',
  'lid-mapping',
  'device-list',
  'tctoken',
  'identity-key',
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
      await Promise.all(
        ids.map(async (id) => {
          const text = await store.get(signalKey(type, id));
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
      for (const [type, byId] of Object.entries(data) as [keyof SignalDataTypeMap, Record<string, unknown>][]) {
        for (const [id, value] of Object.entries(byId ?? {})) {
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
