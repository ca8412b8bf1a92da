import { afterEach, expect, it, vi } from 'vitest';
import { AddressBook } from '../src/providers/baileys/address-book.js';
import type { SessionContext } from '../src/provider.js';
import { DynamoAuthStore } from '../src/host/auth-store.js';
import { FakeTable, ITEM_LIMIT, itemSize } from './dynamo-fake.js';

afterEach(() => vi.useRealTimers());

it('saves names learned after the credentials were wiped, like any other burst', async () => {
  vi.useFakeTimers();
  const writes: Record<string, string>[] = [];
  const ctx = { auth: { get: async () => undefined, set: async (v: Record<string, string>) => void writes.push(v) }, log: { warn() {} } } as unknown as SessionContext;
  const book = new AddressBook(ctx);
  book.add('5511900000001', 'Ana');
  book.reset(); // logged out: the store is empty, the pending save is dropped
  book.add('5511900000002', 'Bruno');
  await vi.advanceTimersByTimeAsync(5_000);
  expect(writes).toEqual([{ addressbook: JSON.stringify({ '5511900000002': 'Bruno' }) }]);
});

const FIRST = ['Ana', 'Bruno', 'Conceição', 'João', 'Márcia', 'Zé', 'Luíza', 'Anderson', 'Fernanda', 'Otávio'];
const LAST = ['Silva', 'Araújo', 'Gonçalves', 'Pereira', 'Assunção', 'Loja 🛒', 'Entregas 🚚', 'Magalhães'];

it('saves and loads 12 000 contacts through the table (chunked past the item limit, no item over 400 KB)', async () => {
  const table = new FakeTable();
  const store = () => new DynamoAuthStore('C#1#WAPP#7#AUTH', { client: table.client, tableName: 'balcao' });
  const ctx = (auth: DynamoAuthStore) => ({ auth, log: { warn() {} } }) as unknown as SessionContext;
  const book = new AddressBook(ctx(store()));
  await book.load();
  const contacts = Array.from({ length: 12_000 }, (_, i) => ({
    number: String(5511900000000 + i * 37),
    name: `${FIRST[i % FIRST.length]} ${LAST[(i * 7) % LAST.length]} ${i} (cliente desde ${2010 + (i % 15)}, indicação)`,
  }));
  for (const c of contacts) book.add(c.number, c.name);
  expect(await book.save()).toBe(true);

  const items = table.partition('C#1#WAPP#7#AUTH');
  expect(items.filter((i) => i.entity === 'wauthpart').length).toBeGreaterThanOrEqual(2);
  for (const item of items) expect(itemSize(item)).toBeLessThanOrEqual(ITEM_LIMIT);

  // The next session (another task): a fresh store and book.
  const again = new AddressBook(ctx(store()));
  expect(await again.list()).toEqual(contacts);
});

it('a failed save is tried again by the next timer; stop waits for a save under way', async () => {
  vi.useFakeTimers();
  const stored: string[] = [];
  let fail = 1;
  let release: (() => void) | undefined;
  const warn = vi.fn();
  const auth = {
    get: async () => undefined,
    set: async (v: Record<string, string>) => {
      if (fail-- > 0) throw new Error('table down');
      if (release === undefined) await new Promise<void>((r) => (release = r));
      stored.push(v.addressbook!);
    },
  };
  const book = new AddressBook({ auth, log: { warn } } as unknown as SessionContext);
  book.add('5511900000001', 'Ana');
  await vi.advanceTimersByTimeAsync(5_000);
  expect(warn).toHaveBeenCalledTimes(1);
  expect(stored).toEqual([]);
  await vi.advanceTimersByTimeAsync(5_000); // the retry, now hanging in the table
  book.add('5511900000002', 'Bruno');
  let stopped = false;
  const stop = book.save().then(() => (stopped = true));
  await vi.advanceTimersByTimeAsync(0);
  expect(stopped).toBe(false);
  release!();
  await stop;
  expect(stored.map((s) => Object.keys(JSON.parse(s)))).toEqual([['5511900000001'], ['5511900000001', '5511900000002']]);
});
