import { MemoryPorts } from './memory-ports.js';

/**
 * A company with one sandbox connection, built by the domain's own services on in-memory ports
 * (the plan, the company with its default settings and usage, the connection), for unit tests.
 */
export async function memoryWorld() {
  // The table's name goes into every command; the in-memory table ignores it.
  process.env.TABLE_NAME ??= 'balcao-unit';
  const ports = new MemoryPorts();
  const { createPlan } = await import('../../src/services/plans.js');
  const { createCompany } = await import('../../src/services/companies.js');
  const { createConnection } = await import('../../src/services/connections.js');
  const world = await ports.run(async () => {
    const plan = await createPlan({ name: 'Plano Teste', users: 5, connections: 3, queues: 5 });
    const { company } = await createCompany({ name: 'Loja Teste', email: 'loja@example.com', planId: plan.id });
    const connection = await createConnection(company.id, { name: 'Loja WhatsApp', provider: 'sandbox' });
    return { plan, company, connection };
  });
  // The connection's start command and the creation events are the world's, not the test's.
  ports.forgetRecords();
  return { ports, companyId: world.company.id, connectionId: world.connection.id, ...world };
}

type World = Awaited<ReturnType<typeof memoryWorld>>;

/**
 * An agent of the world's company and the identity its requests carry (what core/identity.ts
 * builds from a verified token). Written straight to the table: signing in is Cognito's part.
 */
export async function memoryAgent(w: World, name: string, opts: { profile?: import('@balcao/shared').Profile; allTicket?: boolean; queueIds?: number[] } = {}) {
  const { nextId, getItem, putItem } = await import('../../src/core/db.js');
  const { keys } = await import('../../src/table/keys.js');
  type Identity = import('../../src/core/identity.js').Identity;
  return w.ports.run(async (): Promise<Identity> => {
    const id = await nextId(w.companyId, 'user');
    const at = new Date(w.ports.time).toISOString();
    const user: import('../../src/table/items.js').UserItem = {
      ...keys.user(w.companyId, id),
      entity: 'user',
      id,
      companyId: w.companyId,
      sub: `sub-${id}`,
      name,
      email: `${name.toLowerCase().replace(/\W+/g, '.')}@example.com`,
      profile: opts.profile ?? 'Nível 1',
      super: false,
      queueIds: opts.queueIds ?? [],
      whatsappId: null,
      allTicket: opts.allTicket === false ? 'desabled' : 'enabled',
      sendGreetingAccepted: false,
      photoKey: null,
      online: true,
      createdAt: at,
      updatedAt: at,
    };
    await putItem(user);
    const company = (await getItem(keys.company(w.companyId))) as Identity['company'];
    const plan = (await getItem(keys.plan(company.planId))) as Identity['plan'];
    return {
      sub: user.sub,
      userId: id,
      companyId: w.companyId,
      profile: user.profile,
      isAdmin: user.profile === 'admin',
      isSuper: false,
      queueIds: user.queueIds,
      allTicket: user.allTicket === 'enabled',
      user,
      company,
      plan,
      session: { id: `session-${id}`, authTime: Math.floor(w.ports.time / 1000) },
    };
  });
}

let inboundSeq = 0;
/**
 * A customer's message reaching the world's connection now (the world's clock), as the session host
 * would hand it to the ingest worker; `extra` overrides the event's fields.
 */
export async function customerWrites(w: World, who: { number: string; name: string }, body: string, extra: Record<string, unknown> = {}) {
  const { inboundEventSchema } = await import('@balcao/shared');
  const { receiveInbound } = await import('../../src/services/inbound.js');
  const seq = ++inboundSeq;
  const e = inboundEventSchema.parse({
    v: 1,
    eventId: `ev-${seq}`,
    companyId: w.companyId,
    connectionId: w.connectionId,
    at: new Date(w.ports.time).toISOString(),
    type: 'message',
    waMessageId: `WA-${seq}`,
    chat: who,
    fromMe: false,
    body,
    timestamp: w.ports.time,
    ...extra,
  });
  await w.ports.run(() => receiveInbound(e));
}

/** Runs `fn` inside the world's ports (the services reach them through `ports()`). */
export const run = <T>(w: World, fn: () => Promise<T>) => w.ports.run(fn);

/** What a refused call threw, as a test compares it (undefined when it did not throw). */
export const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: { status?: number; code?: string; fields?: unknown }) => ({ status: e.status, code: e.code, fields: e.fields }),
  );

/** Files by their first bytes (what the upload checks sniff), padded to a plausible size. */
export const SAMPLE_FILES = {
  png: Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 1)]),
  jpeg: Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(200, 2)]),
  gif: Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(200, 3)]),
  pdf: Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(300, 0x20)]),
};
