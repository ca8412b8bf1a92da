import { describe, expect, it } from 'vitest';
import { applyStackEnv } from './client.js';
import { customer, ids, world } from './tickets-helpers.js';

/**
 * Full names at scale (docs/data-model.md, "Search index"): when each word of a name alone has
 * more contacts than one search reads ("Maria", "Silva"), the name typed in its order still finds
 * its contacts, in the ticket search and the contacts page, through the name-from-each-word
 * tokens. The migration that turns older single-word tokens into those is checked too.
 */
describe('search by a common full name', () => {
  it('finds the contacts of a name typed in order however common its words are; old tokens are migrated', async () => {
    const w = await world();
    applyStackEnv();
    const { findOrCreateContact } = await import('../../src/services/contacts.js');
    // Namesakes that sort before the wanted ones in every word's token range: 505 "Maria Abreu …"
    // (past the contacts page's 500 per word) and 110 "Paulo Silva Abreu …" (past the ticket
    // search's 100).
    let n = 0;
    const number = () => `55219${String(Date.now() % 1e4).padStart(4, '0')}${String(++n).padStart(4, '0')}`;
    const names = [...Array.from({ length: 505 }, (_, i) => `Maria Abreu ${i}`), ...Array.from({ length: 110 }, (_, i) => `Paulo Silva Abreu ${i}`)];
    for (let i = 0; i < names.length; i += 15) {
      await Promise.all(names.slice(i, i + 15).map((name) => findOrCreateContact(w.companyId, { number: number() }, { pushName: name })));
    }
    const santos = await customer(w.companyId, w.connectionId, { name: 'Maria Silva Santos', text: 'Oi' });
    const silvana = await customer(w.companyId, w.connectionId, { name: 'Maria Silvana Prado', text: 'Oi' });
    const daSilva = await customer(w.companyId, w.connectionId, { name: 'Maria da Silva', text: 'Oi' });

    const tickets = async (text: string) => {
      const res = await w.admin.get(`/tickets?searchParam=${encodeURIComponent(text)}&showAll=true`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return ids(res.body.tickets);
    };
    const contacts = async (text: string) => {
      const res = await w.admin.get(`/contacts?searchParam=${encodeURIComponent(text)}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return ids(res.body.contacts);
    };
    const sorted = (...xs: number[]) => [...xs].sort((a, b) => a - b);

    expect(await tickets('Maria Silva')).toEqual(sorted(santos.ticketId, silvana.ticketId));
    expect(await tickets('maria silva sant')).toEqual([santos.ticketId]);
    expect(await tickets('Maria da Silva')).toEqual([daSilva.ticketId]);
    expect(await contacts('Maria Silva')).toEqual(sorted(santos.contactId, silvana.contactId));
    expect(await contacts('maria da silva')).toEqual([daSilva.contactId]);

    // As an older version indexed it: one token per word. The migration puts it right, once.
    const { queryAll, deleteItem, putItem } = await import('../../src/core/db.js');
    const { pad } = await import('../../src/table/keys.js');
    const { reindexContactNames } = await import('../../src/services/migrations.js');
    const pk = `C#${w.companyId}#CTOK#${pad(santos.contactId)}`;
    for (const t of await queryAll<{ PK: string; SK: string }>(pk)) if (t.SK.startsWith('N#')) await deleteItem({ PK: t.PK, SK: t.SK });
    for (const word of ['maria', 'silva', 'santos']) {
      await putItem({ PK: pk, SK: `N#${word}`, GSI1PK: `C#${w.companyId}#SRCH#N`, GSI1SK: `${word}#${pad(santos.contactId)}`, entity: 'searchToken', contactId: santos.contactId });
    }
    // Each word alone is too common: only the phrase tokens (Silvana's) answer.
    expect(await tickets('Maria Silva')).toEqual([silvana.ticketId]);
    expect(await reindexContactNames(w.companyId)).toBe(names.length + 3);
    const migrated = await queryAll<{ SK: string }>(pk);
    expect(migrated.filter((t) => t.SK.startsWith('N#')).map((t) => t.SK).sort()).toEqual(['N#maria silva santos', 'N#santos', 'N#silva santos']);
    expect(await tickets('Maria Silva')).toEqual(sorted(santos.ticketId, silvana.ticketId));
    await reindexContactNames(w.companyId);
    expect(await queryAll(pk)).toEqual(migrated);
  }, 300_000);
});
