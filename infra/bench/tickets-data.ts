/**
 * Data of the tickets benchmark (issue 4 §6): one big company (contacts, tickets, messages, search
 * index) and many small ones in the same table. The company, its queues, agents and connection are
 * created through the API (the product's rules apply); the bulk items are built with the product's
 * own key helpers and the word index with its own item builders (`contactIndexItems`,
 * `messageIndexItems`), so the table holds exactly what the product would have written for the same
 * conversations. They are written in bulk (`TableWriter`): on tmpfs, where the benchmark builds a new
 * data set (run.ts), as parallel BatchWrites; on a disk as transactions of 100.
 *
 * A manifest (`<data dir>/tickets-data.json`) describes what was generated; a later run given the
 * same `--data-dir` and sizes reuses the data instead of writing it again.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Endpoints } from '../local/stack.js';
import { PASSWORD, must, tenant, type Api } from './client.js';
import { reserveIds, TableWriter, type WriteMode } from './table-writer.js';
import { conversation, contactName, rareProducts, rng, type Rng } from './tickets-vocabulary.js';
import {
  buildContactTicketLists,
  contactIndexItems,
  contactKey,
  contactsIndexKeys,
  contactTicketItem,
  contactViewOf,
  currentMarker,
  dynamo,
  getItem,
  keys,
  listBody,
  messageIndexItems,
  messagePointer,
  messageSk,
  messageTokens,
  numberMarker,
  rebuildTicketCounters,
  ticketIndexKeys,
  ticketKey,
  uuidPointer,
  type ContactItem,
  type ContactView,
  type MessageItem,
  type TicketItem,
  type TicketStatus,
} from '@balcao/functions/tools';

export const MANIFEST_VERSION = 2;
const DAY = 86_400_000;
/** Every 100th ticket is a long conversation, so older message pages exist. */
const LONG_EVERY = 100;

export interface DataOptions {
  tickets: number;
  messagesPerTicket: number;
  otherCompanies: number;
  otherTickets: number;
  agents: number;
  /** Shares of the tickets still waiting and in service (the rest is closed). */
  pendingShare: number;
  openShare: number;
  /** Write calls in flight. */
  concurrency: number;
  /** Transactions of 100 (a database on disk) or BatchWrites of 25 (on tmpfs): `TableWriter`. */
  writeMode: WriteMode;
}

export interface Agent {
  id: number;
  name: string;
  email: string;
  profile: string;
  queueIds: number[];
}

export interface AgentSamples {
  /** Own tickets with messages (any status), for conversation pages. */
  tickets: { id: number; uuid: string; lastSeq: number }[];
  /** Own tickets with more than two pages of messages. */
  long: { id: number; uuid: string; lastSeq: number }[];
  /** Order numbers written in own tickets (a search the agent gets answers for). */
  orders: string[];
  open: number;
}

export interface Manifest {
  version: number;
  options: Pick<DataOptions, 'tickets' | 'messagesPerTicket' | 'otherCompanies' | 'otherTickets' | 'agents' | 'pendingShare' | 'openShare'>;
  companyId: number;
  admin: { email: string; id: number };
  agents: Agent[];
  queueIds: number[];
  connectionId: number;
  otherCompanyIds: number[];
  samples: {
    byAgent: Record<string, AgentSamples>;
    /** Full names of contacts (searched as typed). */
    names: string[];
    /** Order numbers written in one ticket's messages each. */
    orders: string[];
    /** Rare and common message words with the number of tickets of the big company holding them. */
    rareWords: { word: string; tickets: number }[];
    commonWords: { word: string; tickets: number }[];
  };
  sizes: Sizes;
  generation: { seconds: number; itemsPerSecond: number; writeCalls: number };
  generatedAt: string;
}

export interface Sizes {
  company: CompanySizes;
  others: CompanySizes;
  totalItems: number;
}
interface CompanySizes {
  companies: number;
  contacts: number;
  tickets: number;
  messages: number;
  byStatus: Record<TicketStatus, number>;
  /** Search-index items (contact tokens + message word items) and the other items written. */
  contactTokenItems: number;
  messageTokenItems: number;
  items: number;
}
const emptySizes = (): CompanySizes => ({ companies: 0, contacts: 0, tickets: 0, messages: 0, byStatus: { pending: 0, open: 0, closed: 0 }, contactTokenItems: 0, messageTokenItems: 0, items: 0 });

interface CompanySpec {
  companyId: number;
  tickets: number;
  messagesPerTicket: number;
  agents: Agent[];
  queueIds: number[];
  connectionId: number;
  pendingShare: number;
  openShare: number;
  seed: number;
  /** Collect samples and word counts (the measured company only). */
  samples: boolean;
}

interface CompanyOut {
  sizes: CompanySizes;
  byAgent: Record<string, AgentSamples>;
  names: string[];
  orders: string[];
  wordTickets: Map<string, number>;
}

/** A Brazilian mobile number, unique per contact id within a company (7654321 is prime to 10^8). */
const phoneOf = (r: Rng, companyId: number, id: number) =>
  `55${r.int(11, 99)}9${String((id * 7_654_321 + companyId) % 100_000_000).padStart(8, '0')}`;

async function writeCompany(w: TableWriter, table: string, spec: CompanySpec, log: (line: string) => void): Promise<CompanyOut> {
  const r = rng(spec.seed);
  const cid = spec.companyId;
  const T = spec.tickets;
  const C = Math.ceil(T / 2); // about two tickets per contact over the year
  const sizes = emptySizes();
  sizes.companies = 1;
  const out: CompanyOut = { sizes, byAgent: {}, names: [], orders: [], wordTickets: new Map() };
  for (const a of spec.agents) out.byAgent[a.id] = { tickets: [], long: [], orders: [], open: 0 };
  const now = Date.now();
  const span = 365 * DAY;

  const firstContact = await reserveIds(table, cid, 'contact', C);
  const firstTicket = await reserveIds(table, cid, 'ticket', T);
  await dynamo().send(
    new UpdateCommand({ TableName: table, Key: keys.usage(cid), UpdateExpression: 'ADD #n :n', ExpressionAttributeNames: { '#n': 'contacts' }, ExpressionAttributeValues: { ':n': C } }),
  );

  const contacts: { id: number; name: string; view: ContactView }[] = [];
  for (let j = 0; j < C; j++) {
    const id = firstContact + j;
    const name = contactName(r);
    const number = phoneOf(r, cid, id);
    const iso = new Date(now - span - DAY + j * (span / C)).toISOString();
    const contact: ContactItem = {
      ...contactKey(cid, id),
      entity: 'contact',
      ...contactsIndexKeys(cid, name, id),
      id,
      companyId: cid,
      name,
      number,
      lid: null,
      email: '',
      isGroup: false,
      profilePicUrl: null,
      extraInfo: [],
      tagIds: [],
      userId: null,
      disableBot: false,
      whatsappId: spec.connectionId || null,
      createdAt: iso,
      updatedAt: iso,
    };
    contacts.push({ id, name, view: contactViewOf(contact) });
    await w.put(contact);
    await w.put({ ...numberMarker(cid, number), entity: 'num', contactId: id });
    const tokens = contactIndexItems(cid, { id, name, number });
    sizes.contactTokenItems += tokens.length;
    for (const t of tokens) await w.put(t);
    if (spec.samples && j % Math.max(1, Math.floor(C / 400)) === 0) out.names.push(name);
  }
  sizes.contacts = C;
  sizes.items += 2 * C;
  await w.drain();
  log(`company ${cid}: ${C} contacts written`);

  const nonClosed = Math.round(T * (spec.pendingShare + spec.openShare));
  const longN = Math.max(3 * 20 + 5, 6 * spec.messagesPerTicket);
  const longCount = Math.floor((T + LONG_EVERY - 1 - LONG_EVERY / 2) / LONG_EVERY);
  // The others share what is left, so the average stays `messagesPerTicket`.
  const avg = Math.max(1, (T * spec.messagesPerTicket - longCount * longN) / Math.max(1, T - longCount));
  let lastLog = Date.now();
  for (let i = 0; i < T; i++) {
    const id = firstTicket + i;
    const contact = contacts[i % C];
    const newestOfContact = i + C >= T;
    let status: TicketStatus = 'closed';
    if (i >= T - nonClosed) status = r.next() < spec.pendingShare / (spec.pendingShare + spec.openShare) ? 'pending' : 'open';
    const agent = status === 'pending' ? undefined : spec.agents[r.int(0, spec.agents.length - 1)];
    const queueId =
      status === 'pending' ? (spec.queueIds.length && r.next() < 0.8 ? r.pick(spec.queueIds) : null) : agent?.queueIds.length ? r.pick(agent.queueIds) : null;
    const long = i % LONG_EVERY === LONG_EVERY / 2;
    const n = long ? longN : Math.max(1, Math.round(avg - 3 + r.next() * 6));
    const script = conversation(r, n, contact.name, agent?.name);
    // Message times: a few minutes apart, ending at the ticket's place in the year (newest last).
    const gaps = script.lines.map(() => r.int(20, 600) * 1000);
    const end = now - 60_000 - (span * (T - 1 - i)) / T;
    let t = end - gaps.reduce((a, b) => a + b, 0);
    const createdAt = new Date(t).toISOString();
    const uuid = randomUUID();
    const messages: MessageItem[] = [];
    const words = new Set<string>();
    let trailingInbound = 0;
    for (const [k, line] of script.lines.entries()) {
      t += gaps[k];
      const iso = new Date(t).toISOString();
      const seq = k + 1;
      trailingInbound = line.fromMe ? 0 : trailingInbound + 1;
      messages.push({
        PK: ticketKey(cid, id).PK,
        SK: messageSk(seq),
        entity: 'message',
        id: `3EB0${(cid * 1e14 + id * 1e4 + seq).toString(16).toUpperCase().padStart(16, '0')}`,
        seq,
        companyId: cid,
        ticketId: id,
        contactId: contact.id,
        whatsappId: spec.connectionId,
        body: line.body,
        fromMe: line.fromMe,
        read: true,
        ack: line.fromMe ? (status === 'closed' ? 3 : 2) : 0,
        mediaType: null,
        media: null,
        quotedMsg: null,
        participant: null,
        isDeleted: false,
        isEdited: false,
        reactions: [],
        error: null,
        userId: line.fromMe ? (agent?.id ?? null) : null,
        createdAt: iso,
        updatedAt: iso,
      });
      for (const word of messageTokens(line.body)) words.add(word);
    }
    const unread = status === 'closed' ? 0 : status === 'pending' ? n : r.next() < 0.5 ? trailingInbound : 0;
    for (const m of messages.slice(messages.length - unread)) if (!m.fromMe) m.read = false;
    const last = messages[messages.length - 1];
    const updatedAt = last.createdAt;
    const firstReply = messages.find((m) => m.fromMe);
    const ticket: TicketItem = {
      ...ticketKey(cid, id),
      entity: 'ticket',
      ...ticketIndexKeys({ companyId: cid, id, status, userId: agent?.id ?? null, queueId, updatedAt, whatsappId: spec.connectionId, lastFromMe: last.fromMe }),
      id,
      uuid,
      companyId: cid,
      status,
      userId: agent?.id ?? null,
      queueId,
      contactId: contact.id,
      contactView: contact.view,
      whatsappId: spec.connectionId,
      unreadMessages: unread,
      isGroup: false,
      lastMessage: listBody(last.body, null),
      lastSeq: n,
      lastFromMe: last.fromMe,
      chatbot: false,
      useIntegration: false,
      integrationId: null,
      promptId: null,
      tagIds: [],
      queuedAt: createdAt,
      startedAt: agent ? (firstReply?.createdAt ?? createdAt) : null,
      finishedAt: status === 'closed' ? updatedAt : null,
      wv: n + (status === 'closed' ? 2 : status === 'open' ? 1 : 0),
      createdAt,
      updatedAt,
    };
    await w.put(ticket);
    await w.put({ ...uuidPointer(cid, uuid), entity: 'ticketUuid', ticketId: id });
    await w.put(contactTicketItem(cid, contact.id, id));
    if (newestOfContact) {
      await w.put({
        ...currentMarker(cid, spec.connectionId, contact.id),
        entity: 'currentTicket',
        ticketId: id,
        status,
        ...(status === 'closed' ? { closedAt: updatedAt } : {}),
      });
      sizes.items++;
    }
    for (const m of messages) {
      await w.put(m);
      await w.put({ ...messagePointer(cid, m.id, spec.connectionId), entity: 'messagePointer', ticketId: id, sk: m.SK });
    }
    // The ticket's words once: the same items as indexing each message (one item per word and
    // ticket), in chunks within messageIndexItems's per-text bound.
    const list = [...words];
    for (let k = 0; k < list.length; k += 60) for (const t of messageIndexItems(cid, id, list.slice(k, k + 60).join(' '))) await w.put(t);
    sizes.messageTokenItems += list.length;
    sizes.items += 3 + 2 * n;
    sizes.tickets++;
    sizes.messages += n;
    sizes.byStatus[status]++;

    if (spec.samples) {
      for (const word of words) if (!/\d/.test(word)) out.wordTickets.set(word, (out.wordTickets.get(word) ?? 0) + 1);
      if (i % Math.max(1, Math.floor(T / 300)) === 0) out.orders.push(script.order);
      if (agent) {
        const s = out.byAgent[agent.id];
        const ref = { id, uuid, lastSeq: n };
        if (s.tickets.length < 60 && r.next() < 0.2) s.tickets.push(ref);
        if (long && s.long.length < 20) s.long.push(ref);
        if (s.orders.length < 60 && r.next() < 0.2) s.orders.push(script.order);
        if (status === 'open') s.open++;
      }
    }
    if (Date.now() - lastLog > 5000) {
      lastLog = Date.now();
      log(`company ${cid}: tickets ${i + 1}/${T}, messages ${sizes.messages}`);
    }
  }
  await w.drain();
  // The tab-badge counters and the contacts' ticket lists of the tickets written above, as the
  // product's migrations compute them.
  await rebuildTicketCounters(cid);
  await buildContactTicketLists(cid);
  return out;
}

const sizesPlus = (a: CompanySizes, b: CompanySizes): CompanySizes => ({
  companies: a.companies + b.companies,
  contacts: a.contacts + b.contacts,
  tickets: a.tickets + b.tickets,
  messages: a.messages + b.messages,
  byStatus: { pending: a.byStatus.pending + b.byStatus.pending, open: a.byStatus.open + b.byStatus.open, closed: a.byStatus.closed + b.byStatus.closed },
  contactTokenItems: a.contactTokenItems + b.contactTokenItems,
  messageTokenItems: a.messageTokenItems + b.messageTokenItems,
  items: a.items + b.items,
});

export interface DataContext {
  endpoints: Endpoints;
  sup: Api;
  dataDir: string;
  table: string;
  log: (line: string) => void;
}

const manifestFile = (dataDir: string) => path.join(dataDir, 'tickets-data.json');
const sameOptions = (m: Manifest, o: DataOptions) =>
  (['tickets', 'messagesPerTicket', 'otherCompanies', 'otherTickets', 'agents', 'pendingShare', 'openShare'] as const).every((k) => m.options[k] === o[k]);

/** The generated data of a previous run in this data dir, when it matches the options and is in the table. */
export async function existingData(ctx: DataContext, o: DataOptions): Promise<Manifest | undefined> {
  const file = manifestFile(ctx.dataDir);
  if (!fs.existsSync(file)) return undefined;
  const m = JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;
  if (m.version !== MANIFEST_VERSION) throw new Error(`${file} was written by an older version of the generator: use a new --data-dir`);
  if (!sameOptions(m, o)) {
    throw new Error(`${file} holds data generated with other options (${JSON.stringify(m.options)}): use another --data-dir or the same sizes`);
  }
  if (!(await getItem(keys.company(m.companyId)))) throw new Error(`${file} names company ${m.companyId}, which is not in the table of this data dir`);
  return m;
}

export async function generateData(ctx: DataContext, o: DataOptions): Promise<Manifest> {
  const e = ctx.endpoints;
  const started = Date.now();
  const w = new TableWriter(ctx.table, o.concurrency, o.writeMode);
  let lastItems = 0;
  let lastAt = Date.now();
  const progress = setInterval(() => {
    const rate = Math.round(((w.items - lastItems) * 1000) / (Date.now() - lastAt));
    lastItems = w.items;
    lastAt = Date.now();
    ctx.log(`tickets data: ${w.items} items written (${rate} items/s now, ${Math.round((w.items * 1000) / (Date.now() - started))} items/s on average)`);
  }, 10_000);
  try {
    // The measured company through the API: plan, company, queues, agents, one connection.
    const queuesN = 4;
    const t = await tenant(e, ctx.sup, { users: o.agents + 5, queues: queuesN + 2, connections: 2 });
    const queueIds: number[] = [];
    const colours = ['#2563EB', '#16A34A', '#D97706', '#9333EA', '#DC2626', '#0891B2'];
    for (const [k, name] of ['Atendimento', 'Vendas', 'Financeiro', 'Trocas'].slice(0, queuesN).entries()) {
      queueIds.push(must(await t.admin.post('/queue', { name, color: colours[k], greetingMessage: `Olá! Você está em ${name}. Em que podemos ajudar?` }), `queue ${name}`).id as number);
    }
    const connectionId = must(await t.admin.post('/whatsapp', { name: 'Loja Centro', provider: 'sandbox' }), 'connection').id as number;
    const agents: Agent[] = [];
    const ar = rng(7);
    for (let k = 0; k < o.agents; k++) {
      // Half Nível 1 (own tickets + queue's pending), half Nível 2 (everything of their queues).
      const profile = k % 2 === 0 ? 'Nível 1' : 'Nível 2';
      const name = `${contactName(ar).split(' ').slice(0, 2).join(' ')} ${k + 1}`;
      const email = `agent${k + 1}.c${t.companyId}@bench.test`;
      const qs = [queueIds[k % queuesN], queueIds[(k + 1) % queuesN]];
      const u = must(await t.admin.post('/users', { name, email, password: PASSWORD, profile, queueIds: qs, allTicket: 'enabled' }), `agent ${k + 1}`);
      agents.push({ id: u.id as number, name, email, profile, queueIds: qs });
    }
    const users = must(await t.admin.get<{ id: number; email: string; profile: string }[]>('/users/list'), 'users');
    const admin = users.find((u) => u.profile === 'admin')!;
    ctx.log(`tickets data: company ${t.companyId} with ${queueIds.length} queues, ${agents.length} agents, connection ${connectionId}; writing ${o.tickets} tickets`);

    const main = await writeCompany(
      w,
      ctx.table,
      { companyId: t.companyId, tickets: o.tickets, messagesPerTicket: o.messagesPerTicket, agents, queueIds, connectionId, pendingShare: o.pendingShare, openShare: o.openShare, seed: 1, samples: true },
      ctx.log,
    );

    // The other tenants: created through the API, then a smaller history each (their admin serves).
    let others = emptySizes();
    const otherCompanyIds: number[] = [];
    for (let k = 0; k < o.otherCompanies; k++) {
      const ot = await tenant(e, ctx.sup);
      const list = must(await ot.admin.get<{ id: number; name: string; email: string; profile: string }[]>('/users/list'), 'users');
      const a = list[0];
      const r = await writeCompany(
        w,
        ctx.table,
        {
          companyId: ot.companyId,
          tickets: o.otherTickets,
          messagesPerTicket: o.messagesPerTicket,
          agents: [{ id: a.id, name: a.name, email: a.email, profile: a.profile, queueIds: [] }],
          queueIds: [],
          connectionId: 0,
          pendingShare: o.pendingShare,
          openShare: o.openShare,
          seed: 100 + k,
          samples: false,
        },
        () => {},
      );
      others = sizesPlus(others, r.sizes);
      otherCompanyIds.push(ot.companyId);
      if ((k + 1) % 10 === 0 || k + 1 === o.otherCompanies) ctx.log(`tickets data: ${k + 1}/${o.otherCompanies} other companies written`);
    }
    await w.drain();

    const counted = [...main.wordTickets.entries()];
    const rare = rareProducts.map((word) => ({ word, tickets: main.wordTickets.get(word) ?? 0 })).filter((x) => x.tickets > 0);
    const commonWords = counted.filter(([word]) => ['pedido', 'entrega', 'prazo'].includes(word)).map(([word, tickets]) => ({ word, tickets }));
    const seconds = (Date.now() - started) / 1000;
    const total = main.sizes.items + main.sizes.contactTokenItems + main.sizes.messageTokenItems + others.items + others.contactTokenItems + others.messageTokenItems;
    const m: Manifest = {
      version: MANIFEST_VERSION,
      options: { tickets: o.tickets, messagesPerTicket: o.messagesPerTicket, otherCompanies: o.otherCompanies, otherTickets: o.otherTickets, agents: o.agents, pendingShare: o.pendingShare, openShare: o.openShare },
      companyId: t.companyId,
      admin: { email: users.find((u) => u.id === admin.id)!.email, id: admin.id },
      agents,
      queueIds,
      connectionId,
      otherCompanyIds,
      samples: { byAgent: main.byAgent, names: main.names, orders: main.orders, rareWords: rare, commonWords },
      sizes: { company: main.sizes, others, totalItems: total },
      generation: { seconds: Math.round(seconds), itemsPerSecond: Math.round(w.items / seconds), writeCalls: w.calls },
      generatedAt: new Date().toISOString(),
    };
    fs.writeFileSync(manifestFile(ctx.dataDir), `${JSON.stringify(m, null, 2)}\n`);
    return m;
  } finally {
    clearInterval(progress);
  }
}
