import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyStackEnv, member } from './client.js';
import { customer, expectCountersMatchTickets, ids, setSetting, world } from './tickets-helpers.js';

type Api = Awaited<ReturnType<typeof world>>['admin'];

/** Sets attributes of an item the way the tags service and time would (the contract: `tagIds`). */
async function patch(kind: 'ticket' | 'contact', companyId: number, id: number, set: Record<string, unknown>) {
  applyStackEnv();
  const { updateItem } = await import('../../src/core/db.js');
  const { ticketKey, contactKey } = await import('../../src/table/keys.js');
  const { pad } = await import('../../src/table/keys.js');
  if (typeof set.updatedAt === 'string') Object.assign(set, Object.fromEntries(['GSI1SK', 'GSI2SK', 'GSI3SK'].map((k) => [k, `${set.updatedAt}#${pad(id)}`])));
  await updateItem(kind === 'ticket' ? ticketKey(companyId, id) : contactKey(companyId, id), set);
  // A contact's shown fields are also kept on its tickets, as the contact services do.
  if (kind === 'contact') await (await import('../../src/services/contact-view.js')).refreshContactViews(companyId, id);
}

/**
 * `GET /tickets` parameters, exact counts (`GET /tickets/counts`) per profile, paging and tenancy.
 * One company: P1 pending q1, P2 pending q2, P0 pending without queue (no unread), O1 open q1
 * (Nível 1's), O3 open q1 (Nível 2's), O2 open q2 (admin's), O0 open without queue (admin's),
 * C1 closed q1 (admin's).
 */
describe('ticket list: parameters, counts, visibility', () => {
  let w: Awaited<ReturnType<typeof world>>;
  let n1: Awaited<ReturnType<typeof member>>;
  let n2: Awaited<ReturnType<typeof member>>;
  let n3: Awaited<ReturnType<typeof member>>;
  let allT: Awaited<ReturnType<typeof member>>;
  const T: Record<string, number> = {};
  const contactOf: Record<string, number> = {};
  /** The customers' own tickets closed before the agents opened theirs. */
  const firstClosed: number[] = [];

  beforeAll(async () => {
    w = await world();
    [n1, n2, n3, allT] = await Promise.all([
      member(w.admin, { name: 'Nivel Um', profile: 'Nível 1', queueIds: [w.q1] }),
      member(w.admin, { name: 'Nivel Dois', profile: 'Nível 2', queueIds: [w.q1] }),
      member(w.admin, { name: 'Nivel Tres', profile: 'Nível 3', queueIds: [] }),
      member(w.admin, { name: 'Todos', profile: 'Nível 1', queueIds: [], allTicket: 'enabled' }),
    ]);
    const mk = async (name: string, text: string | null = 'Olá') => {
      const c = await customer(w.companyId, w.connectionId, { text });
      contactOf[name] = c.contactId;
      return c;
    };
    const p1 = await mk('P1');
    expect((await w.admin.put(`/tickets/${p1.ticketId}`, { status: 'pending', queueId: w.q1 })).status).toBe(200);
    const p2 = await mk('P2');
    expect((await w.admin.put(`/tickets/${p2.ticketId}`, { status: 'pending', queueId: w.q2 })).status).toBe(200);
    const p0 = await mk('P0', null);
    const opened: Record<string, number> = {};
    for (const [name, api, queueId] of [
      ['O1', n1.api, w.q1],
      ['O3', n2.api, w.q1],
      ['O2', w.admin, w.q2],
      ['O0', w.admin, undefined],
      ['C1', w.admin, w.q1],
    ] as [string, Api, number | undefined][]) {
      const c = await mk(name, null);
      // The customer's own pending ticket is closed first; the agent opens a new one.
      expect((await w.admin.put(`/tickets/${c.ticketId}`, { status: 'closed', isJustFinish: true })).status).toBe(200);
      firstClosed.push(c.ticketId);
      const res = await api.post('/tickets', { contactId: c.contactId, queueId, status: 'open' });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      opened[name] = res.body.id;
    }
    expect((await w.admin.put(`/tickets/${opened.C1}`, { status: 'closed' })).status).toBe(200);
    Object.assign(T, { P1: p1.ticketId, P2: p2.ticketId, P0: p0.ticketId, ...opened });
  }, 180_000);

  const list = async (api: Api, qs: string) => {
    const res = await api.get(`/tickets?${qs}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return ids(res.body.tickets);
  };
  const counts = async (api: Api, qs = '') => {
    const res = await api.get(`/tickets/counts?${qs}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { me: number; others: number; pending: number };
  };
  const sorted = (...names: string[]) => names.map((n) => T[n]).sort((a, b) => a - b);

  it('counts each tab exactly, as each profile sees it, and the lists agree', async () => {
    const expected: [string, Api, { me: string[]; others: string[]; pending: string[] }][] = [
      ['admin', w.admin, { me: ['O2', 'O0'], others: ['O1', 'O3'], pending: ['P1', 'P2', 'P0'] }],
      ['Nível 3', n3.api, { me: [], others: ['O1', 'O3', 'O2', 'O0'], pending: ['P1', 'P2', 'P0'] }],
      ['Nível 2', n2.api, { me: ['O3'], others: ['O1'], pending: ['P1'] }],
      ['Nível 1', n1.api, { me: ['O1'], others: [], pending: ['P1'] }],
      ['allTicket', allT.api, { me: [], others: [], pending: ['P0'] }],
    ];
    for (const [who, api, tabs] of expected) {
      expect(await counts(api), who).toEqual({ me: tabs.me.length, others: tabs.others.length, pending: tabs.pending.length });
      expect(await list(api, 'status=open&assigned=me'), who).toEqual(sorted(...tabs.me));
      expect(await list(api, 'status=open&assigned=others'), who).toEqual(sorted(...tabs.others));
      expect(await list(api, 'status=pending'), who).toEqual(sorted(...tabs.pending));
      // The list's own count is exact for pending and open lists.
      expect((await api.get('/tickets?status=pending&withCount=true')).body.count, who).toBe(tabs.pending.length);
    }
  });

  it('counts follow the selected queues and the list filters', async () => {
    // Tickets without a queue stay under a queue selection (visibility still applies).
    expect(await counts(w.admin, `queueIds=[${w.q1}]`)).toEqual({ me: 1, others: 2, pending: 2 });
    expect(await counts(w.admin, `queueIds=${w.q2}`)).toEqual({ me: 2, others: 0, pending: 2 });
    expect(await counts(n2.api, `queueIds=[${w.q2}]`)).toEqual({ me: 0, others: 0, pending: 0 });
    expect(await counts(w.admin, 'withUnreadMessages=true')).toEqual({ me: 0, others: 0, pending: 2 });
    expect((await w.admin.get('/tickets/counts?queueIds=abc')).status).toBe(400);
  });

  it('status, showAll, queueIds, users, unread and the search tab status filter', async () => {
    expect(await list(w.admin, 'status=open')).toEqual(sorted('O2', 'O0'));
    expect(await list(w.admin, 'status=open&showAll=true')).toEqual(sorted('O1', 'O3', 'O2', 'O0'));
    expect(await list(w.admin, `status=pending&queueIds=[${w.q1}]`)).toEqual(sorted('P1', 'P0'));
    expect(await list(w.admin, `status=open&showAll=true&queueIds=${w.q1},${w.q2}`)).toEqual(sorted('O1', 'O3', 'O2', 'O0'));
    expect(await list(w.admin, `status=open&showAll=true&users=[${n1.id},${n2.id}]`)).toEqual(sorted('O1', 'O3'));
    expect(await list(w.admin, 'status=pending&withUnreadMessages=true')).toEqual(sorted('P1', 'P2'));
    const closed = [...firstClosed, T.C1].sort((a, b) => a - b);
    expect(await list(w.admin, 'status=closed&showAll=true')).toEqual(closed);
    expect(await list(w.admin, 'status=closed')).toEqual(sorted('C1'));
    expect(await list(n1.api, 'status=closed&showAll=true')).toEqual([]);
    expect(await list(w.admin, 'isUseStatusFilter=true&statusFilter=["pending","closed"]&showAll=true')).toEqual([...sorted('P1', 'P2', 'P0'), ...closed].sort((a, b) => a - b));
    // Without isUseStatusFilter the tab's status wins.
    expect(await list(w.admin, 'status=pending&statusFilter=["closed"]')).toEqual(sorted('P1', 'P2', 'P0'));
    expect(await list(n2.api, 'isUseStatusFilter=true&statusFilter=["open","pending"]&showAll=true')).toEqual(sorted('O1', 'O3', 'P1'));
  });

  it('ticket tags and contact tags: a ticket with ANY of the chosen tags', async () => {
    await patch('ticket', w.companyId, T.P1, { tagIds: [901] });
    await patch('ticket', w.companyId, T.O2, { tagIds: [901, 902] });
    await patch('ticket', w.companyId, T.P2, { tagIds: [902] });
    await patch('contact', w.companyId, contactOf.P0, { tagIds: [951] });
    await patch('contact', w.companyId, contactOf.O1, { tagIds: [952] });
    const all = 'isUseStatusFilter=true&statusFilter=["pending","open"]&showAll=true';
    expect(await list(w.admin, `${all}&tags=[901]`)).toEqual(sorted('P1', 'O2'));
    expect(await list(w.admin, `${all}&tags=[901,902]`)).toEqual(sorted('P1', 'O2', 'P2'));
    expect(await list(w.admin, `${all}&tags=[903]`)).toEqual([]);
    expect(await list(w.admin, `${all}&tagsContact=[951]`)).toEqual(sorted('P0'));
    expect(await list(w.admin, `${all}&tagsContact=[951,952]`)).toEqual(sorted('P0', 'O1'));
    expect(await list(w.admin, `${all}&tagsContact=[951]&tags=[901]`)).toEqual([]);
    // Tag filters apply to the counts too; Nível 1 still sees only its own.
    expect(await counts(w.admin, 'tagsContact=[951,952]')).toEqual({ me: 0, others: 1, pending: 1 });
    expect(await list(n1.api, `${all}&tagsContact=[951,952]`)).toEqual(sorted('O1'));
  });

  it('date and updatedAt are days of the company time zone', async () => {
    // 02:30 UTC on March 10th is still March 9th in São Paulo (UTC-3), the default zone.
    await patch('ticket', w.companyId, T.P0, { createdAt: '2020-03-10T02:30:00.000Z' });
    await patch('ticket', w.companyId, T.O0, { updatedAt: '2020-03-10T02:30:00.000Z' });
    expect(await list(w.admin, 'status=pending&date=2020-03-09')).toEqual(sorted('P0'));
    expect(await list(w.admin, 'status=pending&date=2020-03-10')).toEqual([]);
    expect(await list(w.admin, 'status=open&updatedAt=2020-03-09')).toEqual(sorted('O0'));
    expect(await list(w.admin, 'status=open&updatedAt=2020-03-10')).toEqual([]);
    expect(await list(n3.api, 'status=open&showAll=true&updatedAt=2020-03-09T10:00:00')).toEqual(sorted('O0'));
    await setSetting(w.admin, 'timezone', 'UTC');
    try {
      expect(await list(w.admin, 'status=pending&date=2020-03-10')).toEqual(sorted('P0'));
      expect(await list(w.admin, 'status=open&updatedAt=2020-03-10')).toEqual(sorted('O0'));
      expect(await list(w.admin, 'status=open&updatedAt=2020-03-09')).toEqual([]);
    } finally {
      await setSetting(w.admin, 'timezone', 'America/Sao_Paulo');
    }
  });

  it('answers 400 with the field for bad parameters', async () => {
    for (const [qs, field] of [
      ['status=aberto', 'status'],
      ['pageNumber=0', 'pageNumber'],
      ['pageNumber=x', 'pageNumber'],
      ['queueIds=[1,"x"]', 'queueIds'],
      ['tags=-1', 'tags'],
      ['updatedAt=2024-02-30', 'updatedAt'],
      ['date=ontem', 'date'],
      ['assigned=todos', 'assigned'],
      ['statusFilter=["aberto"]', 'statusFilter'],
    ]) {
      const res = await w.admin.get(`/tickets?${qs}`);
      expect(res.status, qs).toBe(400);
      expect(res.body.fields?.[0]?.field, qs).toMatch(new RegExp(`^${field}`));
    }
  });

  it('another company sees none of it', async () => {
    const other = await world();
    await customer(other.companyId, other.connectionId);
    expect(await counts(other.admin)).toEqual({ me: 0, others: 0, pending: 1 });
    const mine = await list(other.admin, 'isUseStatusFilter=true&statusFilter=["pending","open","closed"]&showAll=true');
    expect(mine).toHaveLength(1);
    expect(await list(other.admin, `status=open&showAll=true&users=[${n1.id}]`)).toEqual([]);
    expect(await list(other.admin, `status=pending&queueIds=[${w.q1}]`)).toEqual(mine);
  });
});

describe('ticket list paging', () => {
  it('pages by cursor and by pageNumber without duplicates or gaps', async () => {
    const w = await world();
    const made: number[] = [];
    // Five customers at a time (the order is checked on the answers' updatedAt, not on creation).
    for (let i = 0; i < 85; i += 5) made.push(...(await Promise.all(Array.from({ length: 5 }, () => customer(w.companyId, w.connectionId)))).map((c) => c.ticketId));
    const seen: number[] = [];
    const stamps: string[] = [];
    let cursor: string | null = null;
    const sizes: number[] = [];
    do {
      const res: { status: number; body: any } = await w.admin.get(`/tickets?status=pending&withCount=true${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      // Counted on the first page only: a next page reads its own items, not the whole list.
      if (cursor) expect(res.body.count).toBeUndefined();
      else expect(res.body.count).toBe(85);
      sizes.push(res.body.tickets.length);
      seen.push(...res.body.tickets.map((t: { id: number }) => t.id));
      stamps.push(...res.body.tickets.map((t: { id: number; updatedAt: string }) => `${t.updatedAt}#${String(t.id).padStart(10, '0')}`));
      cursor = res.body.nextCursor;
      expect(res.body.hasMore).toBe(!!cursor);
    } while (cursor);
    expect(sizes).toEqual([40, 40, 5]);
    // All of them, once, newest first.
    expect(new Set(seen).size).toBe(85);
    expect([...seen].sort((a, b) => a - b)).toEqual([...made].sort((a, b) => a - b));
    expect(stamps).toEqual([...stamps].sort().reverse());
    const byNumber: number[] = [];
    for (const n of [1, 2, 3]) {
      const res = await w.admin.get(`/tickets?status=pending&pageNumber=${n}`);
      expect(res.body.hasMore).toBe(n < 3);
      byNumber.push(...res.body.tickets.map((t: { id: number }) => t.id));
    }
    expect(byNumber).toEqual(seen);
    // A page past the end is empty, not an error.
    const past = await w.admin.get('/tickets?status=pending&pageNumber=4');
    expect(past.body).toMatchObject({ tickets: [], hasMore: false, nextCursor: null });
  }, 180_000);
});

describe('ticket list paging over several partitions', () => {
  it('merges queues and agents unevenly filled, page after page, each visible ticket once, newest first', async () => {
    const w = await world();
    const n2 = await member(w.admin, { name: 'Nina Dois', profile: 'Nível 2', queueIds: [w.q1, w.q2], allTicket: 'enabled' });
    // Pending: most in queue 1, a few in queue 2, some without a queue (seen through allTicket);
    // open: Nina's own and others' in her queues, so both partitions feed the showAll list.
    const where = (i: number) => (i % 9 === 0 ? w.q2 : i % 7 === 0 ? null : w.q1);
    const made: { id: number; q: number | null }[] = [];
    for (let i = 0; i < 90; i += 6) {
      const batch = await Promise.all(Array.from({ length: 6 }, () => customer(w.companyId, w.connectionId)));
      await Promise.all(
        batch.map(async (c, k) => {
          const q = where(i + k);
          if (q !== null) expect((await w.admin.put(`/tickets/${c.ticketId}`, { queueId: q })).status).toBe(200);
          made.push({ id: c.ticketId, q });
        }),
      );
    }
    const open = made.filter((_, i) => i % 3 === 1 && made[i].q !== null);
    await Promise.all(open.map((t, i) => w.admin.put(`/tickets/${t.id}`, { status: 'open', userId: i % 2 ? n2.id : w.adminUser.id })));
    const all = async (query: string) => {
      const seen: number[] = [];
      const stamps: string[] = [];
      let cursor: string | null = null;
      do {
        const res: { status: number; body: any } = await n2.api.get(`/tickets?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(res.status).toBe(200);
        seen.push(...res.body.tickets.map((t: { id: number }) => t.id));
        stamps.push(...res.body.tickets.map((t: { id: number; updatedAt: string }) => `${t.updatedAt}#${String(t.id).padStart(10, '0')}`));
        cursor = res.body.nextCursor;
      } while (cursor);
      expect(stamps).toEqual([...stamps].sort().reverse());
      expect(new Set(seen).size).toBe(seen.length);
      return [...seen].sort((a, b) => a - b);
    };
    const openIds = new Set(open.map((t) => t.id));
    expect(await all('status=pending')).toEqual(ids(made.filter((t) => !openIds.has(t.id))));
    expect(await all('status=open&showAll=true')).toEqual(ids(open));
  }, 240_000);
});

// Every write path these tests went through kept the tab-badge counters exact.
afterAll(expectCountersMatchTickets, 60_000);
