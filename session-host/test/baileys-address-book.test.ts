import { afterEach, expect, it, vi } from 'vitest';
import { AddressBook } from '../src/providers/baileys/address-book.js';
import type { SessionContext } from '../src/provider.js';

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
