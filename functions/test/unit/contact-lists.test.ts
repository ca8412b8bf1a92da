import { describe, expect, it } from 'vitest';
import { memoryAgent, memoryWorld, run, refusal } from '../fakes/world.js';

/**
 * Contact lists and their items (issue 20 §2) on in-memory ports: validations, name order and
 * pages, search by name, number or e-mail, no number twice in a list, the count moved with each
 * item, a rename that moves the item in its list, deletes, and the campaigns gate.
 */
const s = await import('../../src/services/campaign-contact-lists.js');
const { authorizeRoute } = await import('../../src/core/identity.js');
const { routes } = await import('../../src/routes.js');

describe('contact lists', () => {
  it('lists by name with pages and search; the name is 2-50 characters', async () => {
    const w = await memoryWorld();
    const me = await memoryAgent(w, 'Ana', { profile: 'admin' });
    expect(await refusal(run(w, () => s.createContactList(me, { name: 'A' })))).toMatchObject({ status: 400, fields: [{ field: 'name', message: 'Too Short!' }] });
    expect(await refusal(run(w, () => s.createContactList(me, {})))).toMatchObject({ status: 400, fields: [{ field: 'name', message: 'Required' }] });
    for (let i = 0; i < 22; i++) await run(w, () => s.createContactList(me, { name: `Lista ${String(22 - i).padStart(2, '0')}` }));
    await run(w, () => s.createContactList(me, { name: 'Clientes VIP' }));
    const first = await run(w, () => s.listContactLists(me, {}));
    expect(first).toMatchObject({ count: 23, hasMore: true });
    expect(first.records[0]).toMatchObject({ name: 'Clientes VIP', contactsCount: 0 });
    expect((await run(w, () => s.listContactLists(me, { pageNumber: '2' }))).records.map((l) => l.name)).toEqual(['Lista 20', 'Lista 21', 'Lista 22']);
    expect((await run(w, () => s.listContactLists(me, { searchParam: 'vip' }))).records.map((l) => l.name)).toEqual(['Clientes VIP']);
    expect(await run(w, () => s.listAllContactLists(me))).toHaveLength(23);
  });

  it('items: normalised numbers, none twice in a list, name order, search, pages, the count kept with them', async () => {
    const w = await memoryWorld();
    const me = await memoryAgent(w, 'Ana', { profile: 'admin' });
    const list = await run(w, () => s.createContactList(me, { name: 'Promoção' }));
    const other = await run(w, () => s.createContactList(me, { name: 'Outra' }));
    const item = await run(w, () => s.createContactListItem(me, { name: 'Zélia Souza', number: '+55 (11) 98877-6655', email: 'Zelia@Example.com', contactListId: list.id }));
    expect(item).toMatchObject({ number: '5511988776655', email: 'zelia@example.com', isWhatsappValid: null, contactListId: list.id });
    expect(await refusal(run(w, () => s.createContactListItem(me, { name: 'Outra Zélia', number: '5511988776655', contactListId: list.id })))).toMatchObject({ status: 409, code: 'ERR_DUPLICATED_LIST_ITEM' });
    // The same number in another list is another recipient.
    await run(w, () => s.createContactListItem(me, { name: 'Zélia', number: '5511988776655', contactListId: other.id }));
    expect(await refusal(run(w, () => s.createContactListItem(me, { name: 'Bia', number: '123', contactListId: list.id })))).toMatchObject({ status: 400, fields: [{ field: 'number', message: 'Too Short!' }] });
    expect(await refusal(run(w, () => s.createContactListItem(me, { name: 'Bia', number: '5511900001111', email: 'não-é-email', contactListId: list.id })))).toMatchObject({ status: 400, fields: [{ field: 'email', message: 'Invalid email' }] });
    expect(await refusal(run(w, () => s.createContactListItem(me, { name: 'Bia', number: '5511900001111', contactListId: 999 })))).toMatchObject({ status: 400, fields: [{ field: 'contactListId' }] });
    for (let i = 0; i < 44; i++) await run(w, () => s.createContactListItem(me, { name: `Cliente ${String(i).padStart(2, '0')}`, number: `55119000${String(i).padStart(5, '0')}`, contactListId: list.id }));
    expect(await run(w, () => s.getContactList(me, list.id))).toMatchObject({ contactsCount: 45 });
    const page1 = await run(w, () => s.listContactListItems(me, { contactListId: String(list.id) }));
    expect(page1).toMatchObject({ count: 45, hasMore: true });
    expect(page1.contacts[0].name).toBe('Cliente 00');
    const page2 = await run(w, () => s.listContactListItems(me, { contactListId: String(list.id), pageNumber: '2' }));
    expect(page2.contacts.map((c) => c.name)).toEqual(['Cliente 40', 'Cliente 41', 'Cliente 42', 'Cliente 43', 'Zélia Souza']);
    expect(page2.hasMore).toBe(false);
    expect((await run(w, () => s.listContactListItems(me, { contactListId: String(list.id), searchParam: 'ZELIA' }))).contacts.map((c) => c.id)).toEqual([item.id]);
    expect((await run(w, () => s.listContactListItems(me, { contactListId: String(list.id), searchParam: 'cliente 1' }))).contacts.map((c) => c.name)).toEqual(['Cliente 10', 'Cliente 11', 'Cliente 12', 'Cliente 13', 'Cliente 14', 'Cliente 15', 'Cliente 16', 'Cliente 17', 'Cliente 18', 'Cliente 19']);
    expect((await run(w, () => s.listContactListItems(me, { contactListId: String(list.id), searchParam: '5511900000043' }))).contacts.map((c) => c.name)).toEqual(['Cliente 43']);

    // A rename moves the item in the order; a number taken in the list is refused.
    const renamed = await run(w, () => s.updateContactListItem(me, item.id, { name: 'Ana Zélia' }));
    expect(renamed.name).toBe('Ana Zélia');
    expect((await run(w, () => s.listContactListItems(me, { contactListId: String(list.id) }))).contacts[0].id).toBe(item.id);
    expect(await refusal(run(w, () => s.updateContactListItem(me, item.id, { number: '5511900000003' })))).toMatchObject({ status: 409, code: 'ERR_DUPLICATED_LIST_ITEM' });
    await run(w, () => s.updateContactListItem(me, item.id, { number: '5511911112222' }));
    // The old number is free again.
    await run(w, () => s.createContactListItem(me, { name: 'Nova', number: '5511988776655', contactListId: list.id }));

    await run(w, () => s.deleteContactListItem(me, item.id));
    expect(await run(w, () => s.getContactList(me, list.id))).toMatchObject({ contactsCount: 45 });
    expect(await refusal(run(w, () => s.getContactListItem(me, item.id)))).toMatchObject({ status: 404 });
  });

  it('deleting a list takes its items and their pointers; the events reach the admins', async () => {
    const w = await memoryWorld();
    const me = await memoryAgent(w, 'Ana', { profile: 'admin' });
    const list = await run(w, () => s.createContactList(me, { name: 'Temporária' }));
    const a = await run(w, () => s.createContactListItem(me, { name: 'Um', number: '5511900000001', contactListId: list.id }));
    await run(w, () => s.createContactListItem(me, { name: 'Dois', number: '5511900000002', contactListId: list.id }));
    expect(w.ports.events(`company-${w.companyId}-ContactListItem`).map((e) => e.action)).toEqual(['create', 'create']);
    await run(w, () => s.deleteContactList(me, list.id));
    expect(await refusal(run(w, () => s.getContactList(me, list.id)))).toMatchObject({ status: 404 });
    expect(await refusal(run(w, () => s.getContactListItem(me, a.id)))).toMatchObject({ status: 404 });
    expect(w.ports.table.all().filter((i) => String(i.PK).includes('#CLI#') || String(i.SK).startsWith('CLITEM#'))).toEqual([]);
    expect(w.ports.events(`company-${w.companyId}-ContactList`).at(-1)).toEqual({ action: 'delete', id: list.id });
  });

  it('the routes need the plan’s useCampaigns and the company’s campaignsEnabled', async () => {
    const w = await memoryWorld();
    const me = await memoryAgent(w, 'Ana', { profile: 'admin' });
    const route = routes.find((r) => r.path === '/contact-lists' && r.method === 'GET')!;
    expect(() => authorizeRoute(me, route)).not.toThrow();
    expect(() => authorizeRoute({ ...me, company: { ...me.company, campaignsEnabled: false } }, route)).toThrow('ERR_PLAN_FEATURE_DISABLED');
    expect(() => authorizeRoute({ ...me, plan: { ...me.plan!, useCampaigns: false } }, route)).toThrow('ERR_PLAN_FEATURE_DISABLED');
    const agent = await memoryAgent(w, 'Beto');
    expect(() => authorizeRoute(agent, route)).toThrow('ERR_NO_PERMISSION');
  });
});
