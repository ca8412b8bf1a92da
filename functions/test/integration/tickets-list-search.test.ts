import { beforeAll, describe, expect, it } from 'vitest';
import { applyStackEnv, member } from './client.js';
import { customer, ids, world } from './tickets-helpers.js';

/**
 * Word search of `GET /tickets` (issue 4 §1): contact name words (prefix, accents and case
 * folded), any 4+ digit run of the number, words of the messages (the customer's and the
 * agent's); every word of the text must match; bounded reads of the token index, never a Scan.
 */
describe('ticket search (searchParam)', () => {
  let w: Awaited<ReturnType<typeof world>>;
  let other: Awaited<ReturnType<typeof world>>;
  const T: Record<string, number> = {};

  beforeAll(async () => {
    [w, other] = await Promise.all([world(), world()]);
    const a = await customer(w.companyId, w.connectionId, { number: '5521976543210', name: 'João Conceição Silva', text: 'Quero cancelar o pedido número 77812' });
    const b = await customer(w.companyId, w.connectionId, { number: '5531912348888', name: 'Maria Joana', text: 'Bom dia, preciso de ajuda com a fatura' });
    const c = await customer(w.companyId, w.connectionId, { number: '5541933335555', name: 'Pedro Álvares', text: 'Obrigado pelo retorno' });
    // Another company with a namesake and the same words: never in this company's answers.
    const x = await customer(other.companyId, other.connectionId, { number: '5521976543210', name: 'João Conceição', text: 'meu pedido atrasou' });
    Object.assign(T, { A: a.ticketId, B: b.ticketId, C: c.ticketId, X: x.ticketId });
  }, 120_000);

  const search = async (api: typeof w.admin, text: string, extra = '') => {
    const res = await api.get(`/tickets?searchParam=${encodeURIComponent(text)}${extra}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return ids(res.body.tickets);
  };
  const sorted = (...names: string[]) => names.map((n) => T[n]).sort((a, b) => a - b);

  it('finds contacts by name words: prefixes, accents and case folded', async () => {
    expect(await search(w.admin, 'joao')).toEqual(sorted('A'));
    expect(await search(w.admin, 'JOÃO')).toEqual(sorted('A'));
    expect(await search(w.admin, 'conceicao')).toEqual(sorted('A'));
    expect(await search(w.admin, 'Concei')).toEqual(sorted('A'));
    expect(await search(w.admin, 'silva')).toEqual(sorted('A'));
    expect(await search(w.admin, 'silva joão')).toEqual(sorted('A'));
    expect(await search(w.admin, 'jo')).toEqual(sorted('A', 'B'));
    expect(await search(w.admin, 'álv')).toEqual(sorted('C'));
    expect(await search(w.admin, 'alvaresx')).toEqual([]);
  });

  it('finds contacts by any 4+ digit part of the number, typed with or without formatting', async () => {
    expect(await search(w.admin, '765432')).toEqual(sorted('A'));
    expect(await search(w.admin, '3210')).toEqual(sorted('A'));
    expect(await search(w.admin, '552197')).toEqual(sorted('A'));
    expect(await search(w.admin, '5521976543210')).toEqual(sorted('A'));
    expect(await search(w.admin, '+55 (21) 97654-3210')).toEqual(sorted('A'));
    expect(await search(w.admin, '1234')).toEqual(sorted('B'));
    expect(await search(w.admin, '5531912348889')).toEqual([]);
    expect(await search(w.admin, '0000')).toEqual([]);
  });

  it('finds words of messages; every word must match the contact or a message', async () => {
    expect(await search(w.admin, 'pedido')).toEqual(sorted('A'));
    expect(await search(w.admin, 'NÚMERO')).toEqual(sorted('A'));
    expect(await search(w.admin, 'numero')).toEqual(sorted('A'));
    expect(await search(w.admin, '77812')).toEqual(sorted('A'));
    expect(await search(w.admin, 'cancelar pedido')).toEqual(sorted('A'));
    expect(await search(w.admin, 'o pedido')).toEqual(sorted('A'));
    expect(await search(w.admin, 'joão pedido')).toEqual(sorted('A'));
    expect(await search(w.admin, 'maria pedido')).toEqual([]);
    expect(await search(w.admin, 'fatura')).toEqual(sorted('B'));
    expect(await search(w.admin, 'ajuda joana')).toEqual(sorted('B'));
    expect(await search(w.admin, 'fatur')).toEqual([]);
  });

  it('indexes what the agent sends', async () => {
    expect((await w.admin.put(`/tickets/${T.C}`, { status: 'open', userId: w.adminUser.id })).status).toBe(200);
    const sent = await w.admin.post(`/messages/${T.C}`, { body: 'Seu reembolso foi aprovado' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(await search(w.admin, 'reembolso')).toEqual(sorted('C'));
    expect(await search(w.admin, 'pedro reembolso aprovado')).toEqual(sorted('C'));
    // An edited text's new words are found too.
    const edited = await w.admin.post(`/messages/${T.C}`, { body: 'Seu estorno foi aprovado', editMsg: { id: sent.body.id } });
    expect(edited.status, JSON.stringify(edited.body)).toBeLessThan(300);
    expect(await search(w.admin, 'estorno')).toEqual(sorted('C'));
  });

  it('keeps a renamed contact findable by its new name only', async () => {
    applyStackEnv();
    const { findOrCreateContact, updateContactProfile } = await import('../../src/services/contacts.js');
    const { contactKey } = await import('../../src/table/keys.js');
    const { findOrCreateTicket } = await import('../../src/services/tickets.js');
    const { indexContact } = await import('../../src/services/search-index.js');
    const { updateItem } = await import('../../src/core/db.js');
    const number = '5511955554444';
    // No push name yet: the contact is named by its number.
    const contact = await findOrCreateContact(w.companyId, { number });
    const { ticket } = await findOrCreateTicket(w.companyId, w.connectionId, contact);
    expect(await search(w.admin, 'zelia')).toEqual([]);
    expect(await search(w.admin, '55554444')).toEqual([ticket.id]);
    await updateContactProfile(w.companyId, { number }, 'Zélia Nova');
    expect(await search(w.admin, 'zelia')).toEqual([ticket.id]);
    expect(await search(w.admin, 'nova zel')).toEqual([ticket.id]);
    // A later rename (the contacts service calls the same hook): old words stop matching.
    const renamed = await updateItem<{ id: number; name: string; number: string }>(contactKey(w.companyId, contact.id), { name: 'Zuleica Prado' });
    await indexContact(w.companyId, { name: 'Zélia Nova', number }, renamed);
    expect(await search(w.admin, 'zelia')).toEqual([]);
    expect(await search(w.admin, 'zuleica')).toEqual([ticket.id]);
    expect(await search(w.admin, 'z')).toEqual([ticket.id]);
  });

  it('applies statuses, visibility and the company', async () => {
    const n1 = await member(w.admin, { name: 'Nivel Um', profile: 'Nível 1', queueIds: [w.q1] });
    expect((await w.admin.put(`/tickets/${T.A}`, { status: 'pending', queueId: w.q1 })).status).toBe(200);
    expect((await w.admin.put(`/tickets/${T.B}`, { status: 'pending', queueId: w.q2 })).status).toBe(200);
    // Nível 1 sees the pending tickets of its queue only.
    expect(await search(n1.api, 'jo')).toEqual(sorted('A'));
    expect(await search(n1.api, 'fatura')).toEqual([]);
    expect(await search(n1.api, 'reembolso')).toEqual([]);
    // Closed tickets only when the status filter asks for them.
    expect((await w.admin.put(`/tickets/${T.C}`, { status: 'closed' })).status).toBe(200);
    expect(await search(w.admin, 'pedro')).toEqual([]);
    expect(await search(w.admin, 'pedro', '&isUseStatusFilter=true&statusFilter=["closed"]&showAll=true')).toEqual(sorted('C'));
    expect(await search(w.admin, 'jo', `&queueIds=[${w.q2}]`)).toEqual(sorted('B'));
    // The other company's namesake and words stay there.
    expect(await search(w.admin, 'atrasou')).toEqual([]);
    expect(await search(other.admin, 'joao')).toEqual([T.X]);
    expect(await search(other.admin, 'fatura')).toEqual([]);
    expect(await search(other.admin, '1234')).toEqual([]);
  });

  it('pages a search without duplicates or gaps, newest ticket first', async () => {
    const made: number[] = [];
    for (let i = 0; i < 45; i += 5) {
      const batch = await Promise.all(Array.from({ length: 5 }, (_, k) => customer(w.companyId, w.connectionId, { name: `Paginado ${i + k}`, text: `mensagem ${i + k}` })));
      made.push(...batch.map((c) => c.ticketId));
    }
    const first = await w.admin.get('/tickets?searchParam=paginado');
    expect(first.body.tickets).toHaveLength(40);
    // The count is known only once the whole result was read (docs/decisions.md, "Search pages").
    expect(first.body).toMatchObject({ hasMore: true });
    expect(first.body.count).toBeUndefined();
    const second = await w.admin.get(`/tickets?searchParam=paginado&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body.tickets).toHaveLength(5);
    expect(second.body).toMatchObject({ hasMore: false, nextCursor: null });
    const byCursor = [...ids(first.body.tickets), ...ids(second.body.tickets)];
    expect(new Set(byCursor).size).toBe(45);
    expect(byCursor.sort((a, b) => a - b)).toEqual(made.sort((a, b) => a - b));
    // Newest ticket first.
    const order = [...first.body.tickets, ...second.body.tickets].map((t: { id: number }) => t.id);
    expect(order).toEqual([...order].sort((a, b) => b - a));
    const page2 = await w.admin.get('/tickets?searchParam=paginado&pageNumber=2');
    expect(ids(page2.body.tickets)).toEqual(ids(second.body.tickets));
    // A search read to its end knows its count.
    const narrow = await w.admin.get('/tickets?searchParam=paginado%2044');
    expect(narrow.body).toMatchObject({ count: 1, hasMore: false, nextCursor: null });
    expect((await w.admin.get('/tickets?searchParam=paginado&cursor=abc')).status).toBe(400);
  });

  it('pages a common word through many matches: each visible ticket exactly once, reads bounded by the page', async () => {
    const made: { id: number; q: number }[] = [];
    for (let i = 0; i < 100; i += 10) {
      const batch = await Promise.all(Array.from({ length: 10 }, (_, k) => customer(w.companyId, w.connectionId, { name: `Cliente ${i + k}`, text: `minha garantia venceu ${i + k}` })));
      made.push(...batch.map((c, k) => ({ id: c.ticketId, q: (i + k) % 2 ? w.q1 : w.q2 })));
    }
    for (let i = 0; i < made.length; i += 10) {
      await Promise.all(made.slice(i, i + 10).map(async (t) => expect((await w.admin.put(`/tickets/${t.id}`, { queueId: t.q })).status).toBe(200)));
    }
    const n1 = await member(w.admin, { name: 'Nivel Um Busca', profile: 'Nível 1', queueIds: [w.q1] });
    const all = async (api: typeof w.admin) => {
      const seen: number[] = [];
      let cursor: string | null = null;
      for (let n = 0; n < 20; n++) {
        const res: { status: number; body: any } = await api.get(`/tickets?searchParam=garantia${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body.tickets.length).toBeLessThanOrEqual(40);
        seen.push(...res.body.tickets.map((t: { id: number }) => t.id));
        if (!res.body.hasMore) return seen;
        cursor = res.body.nextCursor;
        expect(cursor).toBeTruthy();
      }
      throw new Error('search pages never ended');
    };
    const byAdmin = await all(w.admin);
    expect(byAdmin).toEqual(made.map((t) => t.id).sort((a, b) => b - a));
    // Nível 1 of queue 1: the pending tickets of its queue, never the others.
    const byN1 = await all(n1.api);
    expect(byN1).toEqual(made.filter((t) => t.q === w.q1).map((t) => t.id).sort((a, b) => b - a));

    // Reads of each page, counted in-process on the functions' DynamoDB client.
    applyStackEnv();
    const { watchDynamoCalls } = await import('../../src/core/aws.js');
    const { getItem } = await import('../../src/core/db.js');
    const { keys } = await import('../../src/table/keys.js');
    const { authenticate } = await import('../../src/core/identity.js');
    const { listTickets } = await import('../../src/services/ticket-list.js');
    const identityOf = async (userId: number) =>
      authenticate({ sub: (await getItem<{ sub: string }>(keys.user(w.companyId, userId)))!.sub }, undefined, { skipSession: true });
    const [asN1, asAdmin] = await Promise.all([identityOf(n1.id), identityOf(w.adminUser.id)]);
    const log: { items: number; ticketIds: number[] }[] = [];
    let on = false;
    watchDynamoCalls('searchReadsTest', ({ commandName, output }) => {
      if (!on) return;
      const o = output as { ScannedCount?: number; Item?: unknown; Responses?: Record<string, { PK: string; SK: string }[]> };
      const answered = Object.values(o.Responses ?? {}).flat();
      const items = commandName === 'QueryCommand' ? (o.ScannedCount ?? 0) : commandName === 'GetCommand' ? (o.Item ? 1 : 0) : answered.length;
      const ticketIds = answered.filter((i) => i.SK === 'TICKET').map((i) => Number(i.PK.split('#').pop()));
      log.push({ items, ticketIds });
    });
    const page = async (cursor?: string, identity = asN1) => {
      log.length = 0;
      on = true;
      try {
        const r = await listTickets(identity, { searchParam: 'garantia', ...(cursor ? { cursor } : {}) });
        return { r, items: log.reduce((a, c) => a + c.items, 0), ticketIds: log.flatMap((c) => c.ticketIds) };
      } finally {
        on = false;
      }
    };
    const p1 = await page();
    const p2 = await page(p1.r.nextCursor!);
    const a1 = await page(undefined, asAdmin);
    on = false;
    expect(p1.r.tickets).toHaveLength(40);
    expect(p2.r.tickets).toHaveLength(10);
    expect(a1.r.tickets).toHaveLength(40);
    // Proportional to the page, not to the 100 matches: about a token item and a ticket per
    // ticket examined (all visible to the admin, half to Nível 1) and the page's contacts ...
    expect(a1.items).toBeLessThanOrEqual(5 * 40 + 20);
    expect(a1.ticketIds.length).toBeLessThanOrEqual(41 + 10);
    expect(p1.ticketIds.length).toBeLessThanOrEqual(2 * 41 + 20);
    expect(p1.items).toBeLessThanOrEqual(300);
    expect(p2.items).toBeLessThanOrEqual(5 * 10 + 60);
    // ... and the next page never reads a ticket of the first.
    const cut = Number(p1.r.nextCursor);
    expect(p2.ticketIds.length).toBeGreaterThan(0);
    expect(p2.ticketIds.every((id) => id < cut)).toBe(true);
  }, 180_000);
});
