import { describe, expect, it } from 'vitest';
import { inboundEventSchema, type InboundEvent } from '@balcao/shared';
import { memoryAgent, memoryWorld } from '../fakes/world.js';

/**
 * Contacts WhatsApp names only by a LID (issue 17 item 11), on in-memory ports: a LID-only chat
 * opens a ticket for a contact without number; when an event tells the number with that LID, the
 * contact gets it, or is merged into the number's contact; two events at once never make two
 * contacts; the connection's own number is never paired with a LID.
 */
const { receiveInbound } = await import('../../src/services/inbound.js');
const { sendInTicket } = await import('../../src/services/outbound.js');
const { createContact } = await import('../../src/services/contacts.js');
const { startMerge } = await import('../../src/services/contact-merge.js');
const { getItem } = await import('../../src/core/db.js');
const { keys, lidMarker, numberMarker, contactTicketsPartition, contactTokensPartition } = await import('../../src/table/keys.js');

type World = Awaited<ReturnType<typeof memoryWorld>>;
type Row = Record<string, unknown> & { id: number };
let seq = 0;

function event(w: World, e: Record<string, unknown>): InboundEvent {
  return inboundEventSchema.parse({ v: 1, eventId: `ev-${++seq}`, companyId: w.companyId, connectionId: w.connectionId, at: new Date(w.ports.time).toISOString(), ...e });
}
const LID = '190000000000001';
const NUMBER = '5511955554444';
const byLid = { lid: LID, name: 'Cliente LID' };
const paired = { lid: LID, number: NUMBER, name: 'Cliente LID' };
const message = (w: World, chat: Record<string, unknown>, body: string) =>
  event(w, { type: 'message', waMessageId: `WA-${++seq}`, chat, fromMe: false, body, timestamp: w.ports.time });
const receive = (w: World, e: InboundEvent) => w.ports.run(() => receiveInbound(e));

const items = (w: World, entity: string) => w.ports.table.all().filter((i) => i.entity === entity) as Row[];
const messagesOf = (w: World, ticketId: number) => items(w, 'message').filter((m) => m.ticketId === ticketId).map((m) => m.body);
const usage = (w: World) => w.ports.run(() => getItem<{ contacts?: number }>(keys.usage(w.companyId)));
const marker = (w: World, key: { PK: string; SK: string }) => w.ports.run(() => getItem<Record<string, unknown>>(key, true));

describe('contacts known only by a LID (in-memory ports)', () => {
  it('a LID-only message opens a ticket for a contact without number, and replies go to the LID', async () => {
    const w = await memoryWorld();
    await receive(w, message(w, byLid, 'Oi, sou novo'));
    const [contact] = items(w, 'contact');
    expect(contact).toMatchObject({ number: '', lid: LID, name: 'Cliente LID', isGroup: false });
    expect(await marker(w, lidMarker(w.companyId, LID))).toMatchObject({ contactId: contact.id });
    const [ticket] = items(w, 'ticket');
    expect(ticket).toMatchObject({ status: 'pending', contactId: contact.id, unreadMessages: 1, contactView: { number: '', name: 'Cliente LID' } });
    expect(messagesOf(w, ticket.id)).toEqual(['Oi, sou novo']);
    expect((await usage(w))?.contacts).toBe(1);

    // The agent's reply is addressed by the LID alone (a number '' would be refused by the command schema).
    const t = await w.ports.run(() => getItem<import('../../src/table/items.js').TicketItem>({ PK: ticket.PK as string, SK: 'TICKET' }, true));
    await w.ports.run(() => sendInTicket(t!, { body: 'Olá! Como posso ajudar?' }));
    const send = w.ports.sentCommands.find((c) => c.type === 'send');
    expect(send).toMatchObject({ type: 'send', to: { lid: LID } });
    expect(send?.type === 'send' && send.to.number).toBeFalsy();
  });

  it('a LID-only message without a push name makes a contact with neither name nor number (the console shows "Contato sem número"); a later push name names it', async () => {
    const w = await memoryWorld();
    await receive(w, message(w, { lid: LID }, 'Oi'));
    expect(items(w, 'contact')[0]).toMatchObject({ number: '', name: '' });
    await receive(w, message(w, byLid, 'Sou eu'));
    expect(items(w, 'contact')).toEqual([expect.objectContaining({ number: '', name: 'Cliente LID' })]);
  });

  it('a later message with the number and that LID lands in the same contact and ticket, and the contact gets the number', async () => {
    const w = await memoryWorld();
    await receive(w, message(w, byLid, 'Primeira'));
    const [before] = items(w, 'contact');
    await receive(w, message(w, paired, 'Segunda'));
    await receive(w, message(w, { number: NUMBER }, 'Terceira, só pelo número'));

    const contacts = items(w, 'contact');
    expect(contacts).toHaveLength(1);
    expect(contacts[0]).toMatchObject({ id: before.id, number: NUMBER, lid: LID, name: 'Cliente LID' });
    expect(await marker(w, numberMarker(w.companyId, NUMBER))).toMatchObject({ contactId: before.id });
    const tickets = items(w, 'ticket');
    expect(tickets).toHaveLength(1);
    expect(tickets[0]).toMatchObject({ contactId: before.id, unreadMessages: 3, contactView: { number: NUMBER } });
    expect(messagesOf(w, tickets[0].id)).toEqual(['Primeira', 'Segunda', 'Terceira, só pelo número']);
    expect((await usage(w))?.contacts).toBe(1);
    // Found by its number now: the search tokens hold the digits.
    expect(w.ports.table.all().some((i) => i.GSI1SK === `${NUMBER.slice(-4)}#${String(before.id).padStart(10, '0')}`)).toBe(true);
  });

  it('a profile update that tells the number with the LID pairs them too, and one for an unknown person creates nothing', async () => {
    const w = await memoryWorld();
    await receive(w, message(w, byLid, 'Oi'));
    const [before] = items(w, 'contact');
    await receive(w, event(w, { type: 'contact', peer: { lid: LID, number: NUMBER }, name: 'Nome do perfil' }));
    expect(items(w, 'contact')).toEqual([expect.objectContaining({ id: before.id, number: NUMBER, lid: LID, name: 'Cliente LID' })]);
    expect(await marker(w, numberMarker(w.companyId, NUMBER))).toMatchObject({ contactId: before.id });

    await receive(w, event(w, { type: 'contact', peer: { lid: '190000000000077', number: '5511900007777' }, name: 'Desconhecido' }));
    expect(items(w, 'contact')).toHaveLength(1);
    expect((await usage(w))?.contacts).toBe(1);
  });

  it('a contact without number whose number already has a contact is merged into it: one contact, the ticket moves with its messages', async () => {
    const w = await memoryWorld();
    const admin = await memoryAgent(w, 'Admin', { profile: 'admin' });
    const known = await w.ports.run(() => createContact(admin, { name: 'Maria Cadastrada', number: NUMBER }));
    await receive(w, message(w, byLid, 'Oi, é a Maria'));
    const lidOnly = items(w, 'contact').find((c) => c.id !== known.id)!;
    expect(lidOnly).toMatchObject({ number: '', lid: LID });
    const [ticket] = items(w, 'ticket');
    expect(ticket.contactId).toBe(lidOnly.id);
    expect((await usage(w))?.contacts).toBe(2);

    await receive(w, message(w, paired, 'Agora com número'));
    const contacts = items(w, 'contact');
    expect(contacts).toHaveLength(1);
    expect(contacts[0]).toMatchObject({ id: known.id, number: NUMBER, lid: LID, name: 'Maria Cadastrada' });
    expect((await usage(w))?.contacts).toBe(1);
    expect(await marker(w, lidMarker(w.companyId, LID))).toEqual(expect.objectContaining({ contactId: known.id }));
    expect((await marker(w, lidMarker(w.companyId, LID)))?.mergingFrom).toBeUndefined();

    const tickets = items(w, 'ticket');
    expect(tickets).toHaveLength(1);
    expect(tickets[0]).toMatchObject({ id: ticket.id, contactId: known.id, status: 'pending', contactView: { name: 'Maria Cadastrada', number: NUMBER } });
    expect(messagesOf(w, ticket.id)).toEqual(['Oi, é a Maria', 'Agora com número']);
    // Messages name the contact too (edits and reactions read it): they follow the ticket.
    expect(items(w, 'message').map((m) => m.contactId)).toEqual([known.id, known.id]);
    // The ticket is listed under the number's contact (search), nothing is left under the merged one.
    const under = (id: number) => w.ports.table.all().filter((i) => i.PK === contactTicketsPartition(w.companyId, id));
    expect(under(known.id).map((i) => i.ticketId)).toEqual([ticket.id]);
    expect(under(lidOnly.id)).toEqual([]);
    expect(w.ports.events(`company-${w.companyId}-contact`)).toContainEqual({ action: 'delete', contactId: lidOnly.id });

    // Later LID-only messages find the number's contact and its ticket.
    await receive(w, message(w, byLid, 'De novo só pelo LID'));
    expect(items(w, 'contact')).toHaveLength(1);
    expect(messagesOf(w, ticket.id)).toEqual(['Oi, é a Maria', 'Agora com número', 'De novo só pelo LID']);
  });

  it("when the number's contact has its own ticket going on, that one goes on and the LID-only contact's is closed into its history", async () => {
    const w = await memoryWorld();
    await receive(w, message(w, { number: NUMBER, name: 'Maria' }, 'Pelo número'));
    const [numbered] = items(w, 'contact');
    const [numberTicket] = items(w, 'ticket');
    await receive(w, message(w, byLid, 'Pelo LID'));
    const lidTicket = items(w, 'ticket').find((t) => t.id !== numberTicket.id)!;

    await receive(w, message(w, paired, 'Os dois'));
    expect(items(w, 'contact')).toEqual([expect.objectContaining({ id: numbered.id, number: NUMBER, lid: LID })]);
    const tickets = items(w, 'ticket');
    expect(tickets.find((t) => t.id === lidTicket.id)).toMatchObject({ contactId: numbered.id, status: 'closed' });
    expect(tickets.find((t) => t.id === numberTicket.id)).toMatchObject({ contactId: numbered.id, status: 'pending' });
    expect(messagesOf(w, numberTicket.id)).toEqual(['Pelo número', 'Os dois']);
    expect(messagesOf(w, lidTicket.id)).toEqual(['Pelo LID']);
    expect((await usage(w))?.contacts).toBe(1);
  });

  it('a merge stopped after its first step is finished by the next event of that person', async () => {
    const w = await memoryWorld();
    const admin = await memoryAgent(w, 'Admin', { profile: 'admin' });
    const known = await w.ports.run(() => createContact(admin, { name: 'Maria Cadastrada', number: NUMBER }));
    await receive(w, message(w, byLid, 'Oi'));
    const lidOnly = items(w, 'contact').find((c) => c.id !== known.id)!;
    // Only the first step ran (the process died after it).
    const contactOf = (id: number) => items(w, 'contact').find((c) => c.id === id) as never;
    expect(await w.ports.run(() => startMerge(w.companyId, LID, contactOf(lidOnly.id), contactOf(known.id)))).toBe(true);
    expect(await marker(w, lidMarker(w.companyId, LID))).toMatchObject({ contactId: known.id, mergingFrom: lidOnly.id });

    await receive(w, message(w, byLid, 'Oi de novo'));
    expect(items(w, 'contact')).toEqual([expect.objectContaining({ id: known.id, lid: LID })]);
    const [ticket] = items(w, 'ticket');
    expect(ticket).toMatchObject({ contactId: known.id });
    expect(messagesOf(w, ticket.id)).toEqual(['Oi', 'Oi de novo']);
    expect((await marker(w, lidMarker(w.companyId, LID)))?.mergingFrom).toBeUndefined();
    expect((await usage(w))?.contacts).toBe(1);
  });

  it('two events at once never make two contacts: a new person by LID and by number+LID, and two merges of the same pair', async () => {
    const w = await memoryWorld();
    await Promise.all([receive(w, message(w, byLid, 'A')), receive(w, message(w, paired, 'B')), receive(w, message(w, byLid, 'C'))]);
    const contacts = items(w, 'contact');
    expect(contacts).toHaveLength(1);
    expect(contacts[0]).toMatchObject({ number: NUMBER, lid: LID });
    expect(items(w, 'ticket')).toHaveLength(1);
    expect(messagesOf(w, items(w, 'ticket')[0].id).sort()).toEqual(['A', 'B', 'C']);
    expect((await usage(w))?.contacts).toBe(1);

    const v = await memoryWorld();
    const admin = await memoryAgent(v, 'Admin', { profile: 'admin' });
    const known = await v.ports.run(() => createContact(admin, { name: 'Maria Cadastrada', number: NUMBER }));
    await receive(v, message(v, byLid, 'Oi'));
    await Promise.all([receive(v, message(v, paired, 'X')), receive(v, message(v, paired, 'Y')), receive(v, message(v, byLid, 'Z'))]);
    expect(items(v, 'contact')).toEqual([expect.objectContaining({ id: known.id, number: NUMBER, lid: LID })]);
    expect(items(v, 'ticket')).toHaveLength(1);
    expect(messagesOf(v, items(v, 'ticket')[0].id).sort()).toEqual(['Oi', 'X', 'Y', 'Z']);
    expect((await usage(v))?.contacts).toBe(1);
    // Searching finds only the contact that remains (the merged one's tokens are gone, whichever path ran).
    const tokenOwners = new Set(v.ports.table.all().filter((i) => String(i.PK).includes('#CTOK#')).map((i) => String(i.PK)));
    expect([...tokenOwners]).toEqual([contactTokensPartition(v.companyId, known.id)]);
  });

  it("never pairs the connection's own number with a LID", async () => {
    const w = await memoryWorld();
    const OWN = '5511900000001';
    await receive(w, event(w, { type: 'session', status: 'CONNECTED', number: OWN }));
    // A LID-only customer, then an event that pairs that LID with our own number.
    await receive(w, message(w, byLid, 'Cliente'));
    await receive(w, message(w, { number: OWN, lid: LID }, 'Par errado'));
    const lidContact = items(w, 'contact').find((c) => c.lid === LID)!;
    expect(lidContact).toMatchObject({ number: '' });
    expect(await marker(w, lidMarker(w.companyId, LID))).toMatchObject({ contactId: lidContact.id });
    expect(await marker(w, numberMarker(w.companyId, OWN))).toBeDefined();
    // A chat with ourselves (our LID and our number): the number's contact, no LID kept.
    await receive(w, event(w, { type: 'message', waMessageId: 'WA-SELF', chat: { number: OWN, lid: '190000000000999' }, fromMe: true, body: 'nota', timestamp: w.ports.time }));
    const own = items(w, 'contact').find((c) => c.number === OWN)!;
    expect(own.lid).toBeNull();
    expect(await marker(w, lidMarker(w.companyId, '190000000000999'))).toBeUndefined();
  });
});
