import { describe, expect, it } from 'vitest';
import { applyStackEnv } from './client.js';
import { customer, ids, world } from './tickets-helpers.js';

/**
 * The search-index backfill (services/migrations.ts, run once by the versioned seed): contacts,
 * tickets and messages stored before the index existed become searchable; running it again
 * changes nothing.
 */
describe('search index backfill', () => {
  it('indexes contacts, tickets and messages stored without index items; idempotent', async () => {
    const w = await world();
    const other = await world();
    applyStackEnv();
    const { queryAll, deleteItem } = await import('../../src/core/db.js');
    const { pad, contactTicketsPartition: contactTicketsPk } = await import('../../src/table/keys.js');
    const { messageTokens } = await import('../../src/services/search-index.js');
    const { backfillSearchIndex } = await import('../../src/services/migrations.js');

    const text = 'Quero trocar o liquidificador quebrado';
    const a = await customer(w.companyId, w.connectionId, { name: 'Zuleika Antiquária', text });
    const b = await customer(other.companyId, other.connectionId, { name: 'Zuleika Outra', text });
    // As an older version stored them: the same items, none of the index's.
    for (const [companyId, c] of [[w.companyId, a], [other.companyId, b]] as const) {
      for (const t of await queryAll<{ PK: string; SK: string }>(`C#${companyId}#CTOK#${pad(c.contactId)}`)) await deleteItem({ PK: t.PK, SK: t.SK });
      await deleteItem({ PK: contactTicketsPk(companyId, c.contactId), SK: pad(c.ticketId) });
      for (const word of messageTokens(text)) await deleteItem({ PK: `C#${companyId}#TOK#M#${word}`, SK: pad(c.ticketId) });
    }
    const tickets = async (q: string) => ids((await w.admin.get(`/tickets?searchParam=${encodeURIComponent(q)}&showAll=true`)).body.tickets);
    const contacts = async (q: string) => ids((await w.admin.get(`/contacts?searchParam=${encodeURIComponent(q)}`)).body.contacts);
    expect(await tickets('liquidificador')).toEqual([]);
    expect(await tickets('zuleika')).toEqual([]);
    expect(await contacts('antiquaria')).toEqual([]);
    expect(await contacts(a.number.slice(-6))).toEqual([]);

    const counts = await backfillSearchIndex({ companyId: w.companyId });
    expect(counts).toMatchObject({ contacts: 1, tickets: 1, messages: 1 });
    expect(await tickets('liquidificador')).toEqual([a.ticketId]);
    expect(await tickets('zuleika quebrado')).toEqual([a.ticketId]);
    expect(await tickets(a.number.slice(-6))).toEqual([a.ticketId]);
    expect(await contacts('antiquaria')).toEqual([a.contactId]);
    expect(await contacts(a.number.slice(-6))).toEqual([a.contactId]);
    // Limited to the company asked: the other one is still unindexed.
    expect(await queryAll(`C#${other.companyId}#CTOK#${pad(b.contactId)}`)).toEqual([]);

    // Again: the same items, nothing more.
    const tokens = await queryAll(`C#${w.companyId}#CTOK#${pad(a.contactId)}`);
    expect(tokens.length).toBeGreaterThan(10);
    expect(await backfillSearchIndex({ companyId: w.companyId })).toEqual(counts);
    expect(await queryAll(`C#${w.companyId}#CTOK#${pad(a.contactId)}`)).toEqual(tokens);
    expect(await tickets('liquidificador')).toEqual([a.ticketId]);
  }, 120_000);
});
