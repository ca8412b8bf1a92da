import { describe, expect, it } from 'vitest';
import { customerWrites, memoryAgent, memoryWorld, refusal } from '../fakes/world.js';

/**
 * The dashboard (issue 22 §1; server-behaviour §12) on in-memory ports: a scripted history of
 * tickets created, accepted, closed and rated at chosen times (the clock the test moves, on the
 * company's time zone, America/Sao_Paulo, UTC-3) gives known counts and averages, for each form of
 * the filter and for the two charts. The numbers come from the aggregates written with the
 * tickets: a rebuild from the tickets gives the same ones.
 */
const { updateTicket } = await import('../../src/services/ticket-lifecycle.js');
const { updateSetting } = await import('../../src/services/settings.js');
const { getDashboard, ticketsPerDay, ticketsPerUser } = await import('../../src/services/dashboard.js');
const { rebuildDashboardStats } = await import('../../src/services/dashboard-stats.js');
const { sendFromConsole } = await import('../../src/services/message-actions.js');
const { createTicket } = await import('../../src/services/ticket-lifecycle.js');
const { createContact } = await import('../../src/services/contacts.js');
const { getItem } = await import('../../src/core/db.js');
const { ticketKey } = await import('../../src/table/keys.js');

type World = Awaited<ReturnType<typeof memoryWorld>>;
/** A wall-clock time on the company's calendar (UTC-3 in March 2026) as the test clock's value. */
const local = (day: string, hhmm: string) => Date.parse(`${day}T${hhmm}:00-03:00`);

const ticketOf = (w: World, number: string) =>
  (w.ports.table.all().filter((i) => i.entity === 'ticket') as { id: number; status: string; contactView?: { number: string } }[])
    .filter((t) => t.contactView?.number === number)
    .sort((a, b) => b.id - a.id)[0];

async function history() {
  const w = await memoryWorld();
  const ana = await memoryAgent(w, 'Ana', { profile: 'admin' });
  const bia = await memoryAgent(w, 'Bia');
  await w.ports.run(() => updateSetting(w.companyId, 'userRating', { value: 'enabled' }));
  const c = [1, 2, 3, 4].map((i) => ({ number: `551190000000${i}`, name: `Cliente ${i}` }));
  const at = (t: number) => void (w.ports.time = t);
  const accept = async (who: typeof ana, number: string) => w.ports.run(() => updateTicket(who, ticketOf(w, number).id, { status: 'open', userId: who.userId }));
  const close = async (who: typeof ana, number: string) => w.ports.run(() => updateTicket(who, ticketOf(w, number).id, { status: 'closed' }));
  const reply = async (who: typeof ana, number: string, body: string) =>
    w.ports.run(async () => sendFromConsole(who, (await getItem(ticketKey(w.companyId, ticketOf(w, number).id), true))!, { body }, []));

  // Day 1, Monday 2 March.
  at(local('2026-03-02', '09:00'));
  await customerWrites(w, c[0], 'Oi, preciso de ajuda');
  at(local('2026-03-02', '09:10'));
  await accept(ana, c[0].number); // waited 10 min
  at(local('2026-03-02', '09:12'));
  await reply(ana, c[0].number, 'Olá! Em que posso ajudar?'); // first response after 12 min
  at(local('2026-03-02', '09:20'));
  await reply(ana, c[0].number, 'Pode me mandar o pedido?'); // not a first response
  at(local('2026-03-02', '09:40'));
  await close(ana, c[0].number); // served 30 min
  at(local('2026-03-02', '09:41'));
  await customerWrites(w, c[0], '3');
  at(local('2026-03-02', '10:00'));
  await customerWrites(w, c[1], 'Bom dia');
  at(local('2026-03-02', '10:20'));
  await accept(bia, c[1].number); // waited 20 min
  at(local('2026-03-02', '10:25'));
  await reply(bia, c[1].number, 'Bom dia!'); // first response after 25 min
  at(local('2026-03-02', '11:20'));
  await close(bia, c[1].number); // served 60 min
  at(local('2026-03-02', '11:21'));
  await customerWrites(w, c[1], '1');
  at(local('2026-03-02', '11:30'));
  await customerWrites(w, c[2], 'Alguém aí?'); // still waiting at the end

  // Day 2, Tuesday 3 March (after 21:00 UTC of day 1 would already be day 2 in UTC: local days count).
  at(local('2026-03-03', '14:00'));
  await customerWrites(w, c[3], 'Olá');
  at(local('2026-03-03', '14:05'));
  await accept(ana, c[3].number); // waited 5 min; still open at the end
  at(local('2026-03-03', '15:00'));
  await customerWrites(w, c[0], 'Voltei'); // a new ticket: the last closed over 2 hours ago
  at(local('2026-03-03', '15:03'));
  await accept(ana, c[0].number); // waited 3 min
  at(local('2026-03-03', '15:04'));
  await reply(ana, c[0].number, 'Oi de novo!'); // first response of the new ticket after 4 min
  at(local('2026-03-03', '15:33'));
  await close(ana, c[0].number); // served 30 min
  at(local('2026-03-03', '15:34'));
  await customerWrites(w, c[0], '2');
  at(local('2026-03-03', '16:00'));
  return { w, ana, bia };
}

const both = { date_from: '2026-03-02', date_to: '2026-03-03' };
const getItemSync = (w: World, id: number) => w.ports.table.get(ticketKey(w.companyId, id)) as import('../../src/table/items.js').TicketItem | undefined;

describe('dashboard', () => {
  it('a scripted history gives its exact counts and averages, for each form of the filter', async () => {
    const { w, ana, bia } = await history();
    const dash = (q: Record<string, string>) => w.ports.run(() => getDashboard(ana, q));

    const all = await dash(both);
    expect(all.period).toEqual({ from: '2026-03-02', to: '2026-03-03' });
    expect(all.counters).toEqual({
      supportHappening: 1,
      supportPending: 1,
      supportFinished: 3,
      opened: 5,
      newContacts: 4,
      avgSupportTime: 40,
      avgWaitTime: 9.5,
      avgFirstResponseTime: (12 + 25 + 4) / 3,
      ratingAverage: 2,
      ratingCount: 3,
    });
    expect(all.attendants.find((a) => a.id === ana.userId)).toMatchObject({ name: 'Ana', tickets: 2, avgSupportTime: 30, avgFirstResponseTime: 8, rating: 2.5, ratingCount: 2 });
    expect(all.attendants.find((a) => a.id === bia.userId)).toMatchObject({ name: 'Bia', tickets: 1, avgSupportTime: 60, avgFirstResponseTime: 25, rating: 1, ratingCount: 1 });
    expect(all.byQueue).toEqual([{ id: null, name: '', finished: 3 }]);
    expect(all.byConnection).toEqual([{ id: w.connectionId, name: 'Loja WhatsApp', finished: 3 }]);

    // The first day alone.
    const monday = await dash({ date_from: '2026-03-02', date_to: '2026-03-02' });
    expect(monday.counters).toMatchObject({ supportFinished: 2, opened: 3, newContacts: 3, avgSupportTime: 45, avgWaitTime: 15, avgFirstResponseTime: 18.5, ratingAverage: 2, ratingCount: 2 });
    // The now-counters do not depend on the period.
    expect(monday.counters).toMatchObject({ supportHappening: 1, supportPending: 1 });
    // From a day to today.
    expect((await dash({ date_from: '2026-03-03' })).counters).toMatchObject({ supportFinished: 1, opened: 2, newContacts: 1, avgSupportTime: 30, avgWaitTime: 4, ratingAverage: 2 });
    // The last N days, today included.
    expect((await dash({ days: '3' })).period).toEqual({ from: '2026-03-01', to: '2026-03-03' });
    expect((await dash({ days: '3' })).counters).toEqual(all.counters);
    expect((await dash({ days: '90' })).counters).toEqual(all.counters);
    // A day without anything: zeros and no averages.
    expect((await dash({ date_from: '2026-02-01', date_to: '2026-02-28' })).counters).toMatchObject({ supportFinished: 0, opened: 0, avgSupportTime: null, avgWaitTime: null, ratingAverage: null });
  });

  it('a conversation an agent starts has no first response; a time-zone change re-sums the past days', async () => {
    const w = await memoryWorld();
    const ana = await memoryAgent(w, 'Ana', { profile: 'admin' });
    const contact = await w.ports.run(() => createContact(ana, { name: 'Cliente Ativo', number: '5511988887777' }));
    const t = await w.ports.run(() => createTicket(ana, { contactId: contact.id, status: 'open', userId: ana.userId }));
    w.ports.advance(5 * 60_000);
    await w.ports.run(() => sendFromConsole(ana, (getItemSync(w, t.id))!, { body: 'Olá, temos novidades' }, []));
    const today = new Date(w.ports.time).toISOString().slice(0, 10);
    const d = await w.ports.run(() => getDashboard(ana, { date_from: '2026-03-01', date_to: today }));
    expect(d.counters).toMatchObject({ opened: 1, avgFirstResponseTime: null });

    // A rollup of a past day, then a new zone: the rollups go (the next read sums the day items again).
    w.ports.advance(2 * 86_400_000);
    await w.ports.run(() => getDashboard(ana, { days: '7' }));
    expect(w.ports.table.all().some((i) => i.entity === 'dashboardRollup')).toBe(true);
    await w.ports.run(() => updateSetting(w.companyId, 'timezone', { value: 'Asia/Tokyo' }));
    expect(w.ports.table.all().some((i) => i.entity === 'dashboardRollup')).toBe(false);
    expect((await w.ports.run(() => getDashboard(ana, { days: '7' }))).counters.opened).toBe(1);
  });

  it('the charts: closes per agent, conversations per hour of a day and per day of a range', async () => {
    const { w, ana } = await history();
    const users = await w.ports.run(() => ticketsPerUser(ana, { initialDate: '2026-03-02', finalDate: '2026-03-03' }));
    expect(users).toEqual({ data: [{ nome: 'Ana', quantidade: 2 }, { nome: 'Bia', quantidade: 1 }], count: 3 });

    const hours = await w.ports.run(() => ticketsPerDay(ana, { initialDate: '2026-03-02', finalDate: '2026-03-02' }));
    expect(hours.count).toBe(3);
    expect(hours.data).toHaveLength(24);
    expect(hours.data.filter((d) => d.total)).toEqual([
      { horario: '09', total: 1 },
      { horario: '10', total: 1 },
      { horario: '11', total: 1 },
    ]);
    const range = await w.ports.run(() => ticketsPerDay(ana, { initialDate: '2026-03-01', finalDate: '2026-03-04' }));
    expect(range).toEqual({
      data: [
        { data: '2026-03-01', total: 0 },
        { data: '2026-03-02', total: 3 },
        { data: '2026-03-03', total: 2 },
        { data: '2026-03-04', total: 0 },
      ],
      count: 5,
    });
  });

  it('refuses a call without a filter and bad dates with the field and the message', async () => {
    const { w, ana } = await history();
    expect(await refusal(w.ports.run(() => getDashboard(ana, {})))).toMatchObject({ status: 400, fields: [{ field: 'days', message: 'Parametrize o filtro' }] });
    expect(await refusal(w.ports.run(() => getDashboard(ana, { days: '5' })))).toMatchObject({ status: 400, fields: [{ field: 'days' }] });
    expect(await refusal(w.ports.run(() => getDashboard(ana, { date_from: '2026-02-30' })))).toMatchObject({ status: 400, fields: [{ field: 'date_from', message: 'Data inválida' }] });
    expect(await refusal(w.ports.run(() => getDashboard(ana, { date_from: '2026-13-01' })))).toMatchObject({ status: 400, fields: [{ field: 'date_from', message: 'Data inválida' }] });
    expect(await refusal(w.ports.run(() => getDashboard(ana, { date_from: '2026-03-03', date_to: '2026-03-01' })))).toMatchObject({ status: 400, fields: [{ field: 'date_to' }] });
    expect(await refusal(w.ports.run(() => ticketsPerDay(ana, { initialDate: '2025-01-01', finalDate: '2026-03-01' })))).toMatchObject({ status: 400, fields: [{ field: 'finalDate' }] });
  });

  it("a day over is summed once into its rollup and read from it; today is read from its items", async () => {
    const { w, ana } = await history();
    const dayItems = (day: string) => w.ports.table.all().filter((i) => (i.SK as string).startsWith(`D#${day}`) || (i.SK as string).startsWith(`U#${day}`));
    const first = await w.ports.run(() => getDashboard(ana, both));
    const rollups = w.ports.table.all().filter((i) => i.entity === 'dashboardRollup');
    // Monday is over (Tuesday 16:00 now): one rollup; Tuesday has none.
    expect(rollups.map((r) => r.SK)).toEqual(['R#2026-03-02']);
    // Monday's items no longer matter to a read; a change to one of Tuesday's does.
    const { deleteItem, updateItem } = await import('../../src/core/db.js');
    for (const item of dayItems('2026-03-02')) await w.ports.run(() => deleteItem({ PK: item.PK as string, SK: item.SK as string }));
    expect((await w.ports.run(() => getDashboard(ana, both))).counters).toEqual(first.counters);
    const tuesday = dayItems('2026-03-03').find((i) => (i.SK as string).startsWith('D#') && i.finished)!;
    await w.ports.run(() => updateItem({ PK: tuesday.PK as string, SK: tuesday.SK as string }, { finished: (tuesday.finished as number) + 1 }));
    expect((await w.ports.run(() => getDashboard(ana, both))).counters.supportFinished).toBe(first.counters.supportFinished + 1);
    // A quiet day over gets an empty rollup once, and is not summed again.
    await w.ports.run(() => getDashboard(ana, { date_from: '2026-02-20', date_to: '2026-02-21' }));
    expect(w.ports.table.all().filter((i) => i.entity === 'dashboardRollup').map((r) => r.SK).sort()).toEqual(['R#2026-02-20', 'R#2026-02-21', 'R#2026-03-02']);
  });

  it('a rebuild from the tickets (the migration, the benchmark data) gives the same numbers as the live writes', async () => {
    const { w, ana } = await history();
    const live = await w.ports.run(() => getDashboard(ana, both));
    // The ticket aggregates are gone (the contacts' counts stay, as the rebuild keeps them); the
    // rebuild reads the tickets' last cycles.
    const { deleteItem, updateItem } = await import('../../src/core/db.js');
    for (const item of w.ports.table.all().filter((i) => ['dashboardDay', 'dashboardAgentDay', 'dashboardRollup'].includes(i.entity as string))) {
      const key = { PK: item.PK as string, SK: item.SK as string };
      if (item.newContacts && item.entity !== 'dashboardRollup') await w.ports.run(() => updateItem(key, { newContacts: item.newContacts }, { remove: Object.keys(item).filter((k) => !['PK', 'SK', 'entity', 'day', 'newContacts'].includes(k)) }));
      else await w.ports.run(() => deleteItem(key));
    }
    expect((await w.ports.run(() => getDashboard(ana, both))).counters).toMatchObject({ supportFinished: 0, newContacts: 4 });
    await w.ports.run(() => rebuildDashboardStats(w.companyId));
    const rebuilt = await w.ports.run(() => getDashboard(ana, both));
    expect(rebuilt.counters).toEqual(live.counters);
    expect(rebuilt.attendants).toEqual(live.attendants);
  });
});
