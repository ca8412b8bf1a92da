import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyStackEnv } from './client.js';
import { customer, expectCountersMatchTickets, world } from './tickets-helpers.js';

/**
 * Contacts' ticket lists (search-index.ts `ContactTicketList`): every ticket creation appends to
 * its contact's list, the search reads the lists of the matched contacts at once instead of
 * querying each contact's `CTK#` partition, and the migration builds the lists of contacts made
 * before they existed (`ticketListsSince`), falling back to `CTK#` until it has.
 */
describe('contact ticket lists in the search', () => {
  let w: Awaited<ReturnType<typeof world>>;
  let db: typeof import('../../src/core/db.js');
  let tableKeys: typeof import('../../src/table/keys.js');
  const ctkQueries: string[] = [];
  let recording = false;

  beforeAll(async () => {
    w = await world();
    applyStackEnv();
    db = await import('../../src/core/db.js');
    tableKeys = await import('../../src/table/keys.js');
    const { watchDynamoCalls } = await import('../../src/core/aws.js');
    watchDynamoCalls('ctkQueriesTest', ({ commandName, input, output }) => {
      if (!recording) return;
      const pk = String((input as { ExpressionAttributeValues?: Record<string, unknown> }).ExpressionAttributeValues?.[':pk'] ?? '');
      if (commandName === 'QueryCommand' && pk.includes('#CTK#')) ctkQueries.push(pk);
      if (/^BatchGet/.test(commandName)) {
        const answered = Object.values((output as { Responses?: Record<string, { PK: string; SK: string; entity?: string }[]> }).Responses ?? {}).flat();
        contactReads += answered.filter((i) => i.entity === 'contact').length;
        ticketReads.push(...answered.filter((i) => i.SK === 'TICKET').map((i) => Number(i.PK.split('#').pop())));
      }
    });
  });
  afterAll(expectCountersMatchTickets);

  /**
   * The admin's search for `text`, run in this process (so its DynamoDB calls are seen): the ticket
   * ids found, and how many `CTK#` partitions it queried.
   */
  const search = async (text: string) => {
    const { authenticate } = await import('../../src/core/identity.js');
    const { keys } = await import('../../src/table/keys.js');
    const { listTickets } = await import('../../src/services/ticket-list.js');
    const sub = (await db.getItem<{ sub: string }>(keys.user(w.companyId, w.adminUser.id)))!.sub;
    const identity = await authenticate({ sub }, undefined, { skipSession: true });
    ctkQueries.length = 0;
    ticketReads.length = 0;
    contactReads = 0;
    recording = true;
    try {
      const res = await listTickets(identity, { searchParam: text, isUseStatusFilter: 'true', statusFilter: '["pending","open","closed"]' });
      return { ids: res.tickets.map((t) => t.id), queried: ctkQueries.length, truncated: 'truncated' in res ? res.truncated : undefined, ticketReads: [...ticketReads], contactReads };
    } finally {
      recording = false;
    }
  };
  /** Ticket items and contact items the last `search` read (BatchGet). */
  const ticketReads: number[] = [];
  let contactReads = 0;
  const listOf = (contactId: number) => db.getItem<{ ids: number[]; n: number; base?: boolean }>(tableKeys.contactTicketListKey(w.companyId, contactId), true);

  it('appends every new ticket to its contact list and answers the search from it', async () => {
    const a = await customer(w.companyId, w.connectionId, { name: 'Quitéria Zanforlin' });
    expect(await listOf(a.contactId)).toMatchObject({ ids: [a.ticketId], n: 1 });
    // The inbound ticket is closed; the agent opens another one for the same contact.
    expect((await w.admin.put(`/tickets/${a.ticketId}`, { status: 'closed' })).status).toBe(200);
    const second = await w.admin.post('/tickets', { contactId: a.contactId, queueId: w.q1, status: 'open' });
    expect(second.status).toBe(201);
    expect(await listOf(a.contactId)).toMatchObject({ ids: [a.ticketId, second.body.id], n: 2 });

    const found = await search('quiteria zanforlin');
    expect(found.ids).toEqual([second.body.id, a.ticketId]);
    expect(found.queried).toBe(0);
  });

  it('queries the contact tickets of a contact older than the lists until the migration builds its list', async () => {
    const b = await customer(w.companyId, w.connectionId, { name: 'Belmira Tavolaro' });
    const c = await customer(w.companyId, w.connectionId, { name: 'Belmira Tavolaro' });
    // As stored before the lists existed: no list, the contacts made before the company's date.
    const { contactKey } = tableKeys;
    for (const x of [b, c]) {
      await db.deleteItem(tableKeys.contactTicketListKey(w.companyId, x.contactId));
      await db.updateItem(contactKey(w.companyId, x.contactId), { createdAt: '2020-01-01T00:00:00.000Z' });
    }
    const expected = [c.ticketId, b.ticketId];
    const before = await search('belmira tavolaro');
    expect(before.ids).toEqual(expected);
    expect(before.queried).toBe(2);

    // A ticket made before the migration reaches the contact starts a list that is not whole.
    expect((await w.admin.put(`/tickets/${c.ticketId}`, { status: 'closed' })).status).toBe(200);
    const late = await w.admin.post('/tickets', { contactId: c.contactId, queueId: w.q1, status: 'open' });
    expect(late.status).toBe(201);
    expect(await listOf(c.contactId)).toMatchObject({ ids: [late.body.id], n: 1 });
    expect((await search('belmira tavolaro')).ids).toEqual([late.body.id, ...expected]);

    const { buildContactTicketLists } = await import('../../src/services/migrations.js');
    await buildContactTicketLists(w.companyId);
    expect(await listOf(b.contactId)).toMatchObject({ ids: [b.ticketId], n: 1, base: true });
    expect(await listOf(c.contactId)).toMatchObject({ ids: [c.ticketId, late.body.id], n: 2, base: true });
    const after = await search('belmira tavolaro');
    expect(after.ids).toEqual([late.body.id, ...expected]);
    expect(after.queried).toBe(0);
    // Running it again changes nothing.
    await buildContactTicketLists(w.companyId);
    expect(await listOf(c.contactId)).toMatchObject({ ids: [c.ticketId, late.body.id], n: 2, base: true });
  });

  it('answers a full name of common words from its phrase, without walking the message hits of its first name', async () => {
    applyStackEnv();
    const { findOrCreateContact } = await import('../../src/services/contacts.js');
    let k = 0;
    const number = () => `55319${String(Date.now() % 1e4).padStart(4, '0')}${String(++k).padStart(4, '0')}`;
    // "Silva" alone has more contacts than a search lists; "Odete" is said in many messages.
    const silvas = Array.from({ length: 105 }, (_, i) => `Abel Silva Abreu ${i}`);
    for (let i = 0; i < silvas.length; i += 15) {
      await Promise.all(silvas.slice(i, i + 15).map((name) => findOrCreateContact(w.companyId, { number: number() }, { pushName: name })));
    }
    const mentions = await Promise.all(Array.from({ length: 30 }, () => customer(w.companyId, w.connectionId, { text: 'A Odete ligou ontem' })));
    const wanted = await customer(w.companyId, w.connectionId, { name: 'Odete Silva Paranhos', text: 'Bom dia' });

    const found = await search('odete silva');
    expect(found.ids).toEqual([wanted.ticketId]);
    // Other contacts matching both words out of order may exist beyond the phrase.
    expect(found.truncated).toBe(true);
    // Neither the first hundred "Silva" contacts nor the tickets that only mention "Odete" are read.
    expect(found.contactReads).toBeLessThanOrEqual(2);
    expect(found.ticketReads.filter((id) => mentions.some((m) => m.ticketId === id))).toEqual([]);
    expect(found.ticketReads.length).toBeLessThanOrEqual(2);
    // The word alone still finds them (and the phrase's contact).
    expect((await search('odete')).ids.sort()).toEqual([...mentions.map((m) => m.ticketId), wanted.ticketId].sort());
  }, 120_000);
});
