import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyStackEnv } from './client.js';
import { customer, expectCountersMatchTickets, ticketItem, world } from './tickets-helpers.js';

/**
 * The contact's shown fields kept on its tickets (services/contact-view.ts, decision 31): a page of
 * tickets reads no contact, every change of those fields reaches all of the contact's tickets, a
 * ticket made while the contact changes ends with its latest fields, and the migration fills the
 * tickets stored before.
 */
describe('contact fields on tickets', () => {
  let w: Awaited<ReturnType<typeof world>>;
  let db: typeof import('../../src/core/db.js');
  let contactReads = 0;
  let recording = false;
  /** Run once, just before the next transaction that writes a ticket item. */
  let renameBeforeTicketWrite: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    w = await world();
    applyStackEnv();
    db = await import('../../src/core/db.js');
    const { dynamo } = await import('../../src/core/aws.js');
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        const out = await next(args);
        if (recording && /^BatchGet/.test(context.commandName ?? '')) {
          const answered = Object.values((out.output as { Responses?: Record<string, { entity?: string }[]> }).Responses ?? {}).flat();
          contactReads += answered.filter((i) => i.entity === 'contact').length;
        }
        return out;
      },
      { step: 'initialize', name: 'contactReadsTest' },
    );
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        const items = (args.input as { TransactItems?: { Put?: { Item?: { entity?: unknown } } }[] }).TransactItems;
        // The document client's input, or the marshalled one, depending on the step's order.
        const isTicket = (e: unknown) => e === 'ticket' || (e as { S?: string } | undefined)?.S === 'ticket';
        const hook = renameBeforeTicketWrite;
        if (hook && /^TransactWrite/.test(context.commandName ?? '') && items?.some((i) => isTicket(i.Put?.Item?.entity))) {
          renameBeforeTicketWrite = null;
          await hook();
        }
        return next(args);
      },
      { step: 'initialize', name: 'renameRaceTest' },
    );
  });
  afterAll(expectCountersMatchTickets);

  /** The admin's open + pending + closed list, run in this process so its reads are seen. */
  const adminList = async (query: Record<string, string> = {}) => {
    const { authenticate } = await import('../../src/core/identity.js');
    const { keys } = await import('../../src/table/keys.js');
    const { listTickets } = await import('../../src/services/ticket-list.js');
    const sub = (await db.getItem<{ sub: string }>(keys.user(w.companyId, w.adminUser.id)))!.sub;
    const identity = await authenticate({ sub }, undefined, { skipSession: true });
    contactReads = 0;
    recording = true;
    try {
      const res = await listTickets(identity, { status: 'pending', showAll: 'true', ...query });
      return { tickets: res.tickets, contactReads };
    } finally {
      recording = false;
    }
  };
  const contactOf = async (ticketId: number) => {
    const res = await w.admin.get(`/tickets/${ticketId}`);
    expect(res.status).toBe(200);
    return res.body.contact as { name: string; number: string; tags: { id: number; name: string }[] };
  };

  it('keeps the contact on a new ticket, so a page reads no contact', async () => {
    const a = await customer(w.companyId, w.connectionId, { name: 'Zuleide Marcondes' });
    expect((await ticketItem(w.companyId, a.ticketId))?.contactView).toMatchObject({ name: 'Zuleide Marcondes', tagIds: [] });
    const page = await adminList();
    expect(page.tickets.find((t) => t.id === a.ticketId)?.contact).toMatchObject({ id: a.contactId, name: 'Zuleide Marcondes', tags: [] });
    expect(page.contactReads).toBe(0);
    // The API answers the contact as before, never the stored copy itself.
    expect(page.tickets.find((t) => t.id === a.ticketId)).not.toHaveProperty('contactView');
  });

  it('writes a renamed or retagged contact on all its tickets, closed ones too', async () => {
    const a = await customer(w.companyId, w.connectionId, { name: 'Edite Fagundes' });
    expect((await w.admin.put(`/tickets/${a.ticketId}`, { status: 'closed' })).status).toBe(200);
    const second = await w.admin.post('/tickets', { contactId: a.contactId, queueId: w.q1, status: 'open' });
    expect(second.status).toBe(201);

    const renamed = await w.admin.put(`/contacts/${a.contactId}`, { name: 'Edite Fagundes Lima' });
    expect(renamed.status).toBe(200);
    for (const id of [a.ticketId, second.body.id]) {
      expect((await ticketItem(w.companyId, id))?.contactView?.name).toBe('Edite Fagundes Lima');
      expect((await contactOf(id)).name).toBe('Edite Fagundes Lima');
    }

    const tag = await w.admin.post('/tags', { name: `vip-${Date.now()}`, type: 'contact', color: '#aa3300' });
    expect(tag.status).toBe(201);
    expect((await w.admin.put(`/contacts/${a.contactId}`, { tags: [tag.body.id] })).status).toBe(200);
    expect((await ticketItem(w.companyId, a.ticketId))?.contactView?.tagIds).toEqual([tag.body.id]);
    const page = await adminList({ status: 'open' });
    expect(page.tickets.find((t) => t.id === second.body.id)?.contact?.tags).toMatchObject([{ id: tag.body.id, name: tag.body.name }]);
    expect(page.contactReads).toBe(0);
  });

  it('ends a ticket made, reopened or opened by an agent during a rename with the new name', async () => {
    const { findOrCreateContact } = await import('../../src/services/contacts.js');
    const { contactKey } = await import('../../src/table/keys.js');
    const { findOrCreateTicket } = await import('../../src/services/tickets.js');
    const { createTicket } = await import('../../src/services/ticket-lifecycle.js');
    const { authenticate } = await import('../../src/core/identity.js');
    const { keys } = await import('../../src/table/keys.js');
    // The race: the contact is renamed while the ticket's transaction is on its way, from a contact
    // read before the rename; the rename's own fan-out (left out here) listed the contact's tickets
    // before this one existed. The ticket must still end with the new name.
    const renameDuringNextTicketWrite = (contactId: number, name: string) => {
      renameBeforeTicketWrite = async () => {
        await db.updateItem(contactKey(w.companyId, contactId), { name });
      };
    };
    const nameOn = async (ticketId: number) => (await ticketItem(w.companyId, ticketId))?.contactView?.name;

    // A new ticket from an inbound message.
    const contact = await findOrCreateContact(w.companyId, { number: `55119${String(Date.now()).slice(-8)}` }, { pushName: 'Jandira Pestana', connectionId: w.connectionId });
    renameDuringNextTicketWrite(contact.id, 'Jandira Pestana Souto');
    const made = await findOrCreateTicket(w.companyId, w.connectionId, contact);
    expect(made.created).toBe(true);
    expect(renameBeforeTicketWrite).toBeNull();
    expect(await nameOn(made.ticket.id)).toBe('Jandira Pestana Souto');

    // The same ticket reopened by a message after it closed.
    expect((await w.admin.put(`/tickets/${made.ticket.id}`, { status: 'closed' })).status).toBe(200);
    renameDuringNextTicketWrite(contact.id, 'Jandira P. Souto');
    const reopened = await findOrCreateTicket(w.companyId, w.connectionId, { ...contact, name: 'Jandira Pestana Souto' });
    expect(reopened).toMatchObject({ reopened: true, ticket: { id: made.ticket.id } });
    expect(renameBeforeTicketWrite).toBeNull();
    expect(await nameOn(made.ticket.id)).toBe('Jandira P. Souto');

    // A ticket an agent opens (POST /tickets), closed first so the contact may have another.
    expect((await w.admin.put(`/tickets/${made.ticket.id}`, { status: 'closed' })).status).toBe(200);
    const sub = (await db.getItem<{ sub: string }>(keys.user(w.companyId, w.adminUser.id)))!.sub;
    const identity = await authenticate({ sub }, undefined, { skipSession: true });
    renameDuringNextTicketWrite(contact.id, 'Jandira Souto');
    const opened = await createTicket(identity, { contactId: contact.id, whatsappId: w.connectionId });
    expect(renameBeforeTicketWrite).toBeNull();
    expect(await nameOn(opened.id)).toBe('Jandira Souto');
  });

  it('moves the write version, so a whole-ticket write from an older read reads again', async () => {
    const a = await customer(w.companyId, w.connectionId, { name: 'Odila Brant' });
    const before = await ticketItem(w.companyId, a.ticketId);
    expect((await w.admin.put(`/contacts/${a.contactId}`, { name: 'Odila Brant Reis' })).status).toBe(200);
    const after = await ticketItem(w.companyId, a.ticketId);
    expect(after?.wv).toBe((before?.wv ?? 0) + 1);
    // Accepting it afterwards works (the guard reads the ticket again) and keeps the new name.
    expect((await w.admin.put(`/tickets/${a.ticketId}`, { status: 'open', userId: w.adminUser.id })).status).toBe(200);
    expect((await ticketItem(w.companyId, a.ticketId))?.contactView?.name).toBe('Odila Brant Reis');
    // A rename that changes nothing shown writes no ticket.
    expect((await w.admin.put(`/contacts/${a.contactId}`, { extraInfo: [{ name: 'CPF', value: '1' }] })).status).toBe(200);
    expect((await ticketItem(w.companyId, a.ticketId))?.wv).toBe((after?.wv ?? 0) + 1);
  });

  it('reads the contacts of tickets stored without the copy until the migration fills it', async () => {
    const a = await customer(w.companyId, w.connectionId, { name: 'Celina Prudente' });
    const { ticketKey } = await import('../../src/table/keys.js');
    await db.updateItem(ticketKey(w.companyId, a.ticketId), {}, { remove: ['contactView'] });
    const before = await adminList();
    expect(before.tickets.find((t) => t.id === a.ticketId)?.contact?.name).toBe('Celina Prudente');
    expect(before.contactReads).toBeGreaterThanOrEqual(1);

    const { fillTicketContactViews } = await import('../../src/services/migrations.js');
    expect(await fillTicketContactViews(w.companyId)).toBeGreaterThanOrEqual(1);
    expect((await ticketItem(w.companyId, a.ticketId))?.contactView?.name).toBe('Celina Prudente');
    expect((await adminList()).contactReads).toBe(0);
    // Again: nothing left to write.
    expect(await fillTicketContactViews(w.companyId)).toBe(0);
  });

  it('shows a renamed queue at once in the lists', async () => {
    const a = await customer(w.companyId, w.connectionId, { name: 'Genoveva Tolentino' });
    const moved = await w.admin.put(`/tickets/${a.ticketId}`, { status: 'open', userId: w.adminUser.id, queueId: w.q1 });
    expect(moved.status).toBe(200);
    const list = async () => (await w.admin.get('/tickets?status=open&showAll=true')).body.tickets.find((t: { id: number }) => t.id === a.ticketId)?.queue?.name;
    const name = await list();
    expect(name).toBeTruthy();
    expect((await w.admin.put(`/queue/${w.q1}`, { name: `${name} 2` })).status).toBe(200);
    expect(await list()).toBe(`${name} 2`);
    expect((await w.admin.put(`/queue/${w.q1}`, { name })).status).toBe(200);
  });
});
