import { describe, expect, it } from 'vitest';
import { connected, linkSandboxConnection, sandbox, until } from './pipeline-helpers.js';

/**
 * Issue 18 §4 on the local stack: the queue bot as a customer meets it, through the whole pipeline
 * (the sandbox phone → session host → ingest → bot → session host → the phone), and the routes'
 * answers to bad input. Every branch's rules are proved on in-memory ports (unit/bot.test.ts);
 * here the same conversation runs for real, once.
 */
const uniqColour = () => `#${Math.floor(Math.random() * 0xffffff).toString(16).padStart(6, '0')}`;

describe('the queue bot through the sandbox', () => {
  it('menu, tree down and a leaf, a redelivered message answered once; the bot’s messages are marked as the bot’s', { timeout: 120_000 }, async () => {
    const t = await connected();
    const vendas = await t.admin.post('/queue', { name: 'Vendas', color: uniqColour(), greetingMessage: 'Bem-vindo às Vendas, {{firstName}}!', orderQueue: 1 });
    const suporte = await t.admin.post('/queue', { name: 'Suporte', color: uniqColour(), greetingMessage: 'Suporte aqui.', orderQueue: 2 });
    expect([vendas.status, suporte.status]).toEqual([201, 201]);
    const planos = await t.admin.post('/queue-options', { queueId: vendas.body.id, option: '1', title: 'Planos', message: 'Nossos planos:' });
    expect(planos.status, JSON.stringify(planos.body)).toBe(201);
    expect((await t.admin.post('/queue-options', { queueId: vendas.body.id, parentId: planos.body.id, option: '1', title: 'Mensal', message: 'R$ 99 por mês.' })).status).toBe(201);
    const conn = await t.admin.put(`/whatsapp/${t.connectionId}`, { greetingMessage: 'Olá! Escolha:', queueIds: [vendas.body.id, suporte.body.id] });
    expect(conn.status, JSON.stringify(conn.body)).toBe(200);

    const customer = `55119${String(Date.now()).slice(-8)}`;
    const write = (body: string, id?: string) => sandbox<{ id: string }>('POST', `/connections/${t.connectionId}/messages`, { from: customer, name: 'Joana Prado', body, ...(id ? { id } : {}) });
    const fromUs = async () => ((await sandbox<any[]>('GET', `/connections/${t.connectionId}/messages?peer=${customer}`)).body ?? []).filter((m) => m.fromMe).map((m) => m.body as string);
    const answered = (n: number) => until(async () => ((await fromUs()).length >= n ? fromUs() : undefined), `${n} answers on the phone`);

    await write('Oi');
    expect((await answered(1)).at(-1)).toBe('Olá! Escolha:\n\n*[ 1 ]* - Vendas\n*[ 2 ]* - Suporte');
    const choice = await write('1');
    expect((await answered(2)).at(-1)).toBe('Bem-vindo às Vendas, Joana!\n\n*[ 1 ]* - Planos\n*[ # ]* - Menu inicial');
    // The same message again (WhatsApp redelivers), then an invalid reply: the chat's events are
    // handled in order, so when the notice arrives the duplicate was handled, and answered nothing
    // (handled again, "1" would have opened Planos before the notice).
    await write('1', choice.body.id);
    await write('7');
    expect((await answered(3)).at(-1)).toBe('Opção inválida, por favor, escolha uma opção válida.\n\n*[ 1 ]* - Planos\n*[ # ]* - Menu inicial');
    await write('1');
    expect((await answered(4)).at(-1)).toBe('Nossos planos:\n\n*[ 1 ]* - Mensal\n*[ 0 ]* - Menu anterior\n*[ # ]* - Menu inicial');
    await write('1');
    expect(await answered(5)).toEqual([
      'Olá! Escolha:\n\n*[ 1 ]* - Vendas\n*[ 2 ]* - Suporte',
      'Bem-vindo às Vendas, Joana!\n\n*[ 1 ]* - Planos\n*[ # ]* - Menu inicial',
      'Opção inválida, por favor, escolha uma opção válida.\n\n*[ 1 ]* - Planos\n*[ # ]* - Menu inicial',
      'Nossos planos:\n\n*[ 1 ]* - Mensal\n*[ 0 ]* - Menu anterior\n*[ # ]* - Menu inicial',
      'R$ 99 por mês.',
    ]);

    // The ticket waits in Vendas for an agent; the console shows the bot's messages as the bot's.
    // (The bot saves its state after its answer went out: wait for it.)
    const ticket = await until(async () => {
      const list = await t.admin.get(`/tickets?status=pending&showAll=true&queueIds=[${vendas.body.id}]`);
      const found = (list.body.tickets as { id: number; contact: { number: string }; queueId: number; chatbot: boolean }[]).find((x) => x.contact.number === customer);
      return found && !found.chatbot ? found : undefined;
    }, 'the bot ended on the ticket');
    expect(ticket).toMatchObject({ queueId: vendas.body.id, chatbot: false });
    const page = await t.admin.get(`/messages/${ticket.id}`);
    const ours = (page.body.messages as { fromMe: boolean; isBot?: boolean; user: unknown }[]).filter((m) => m.fromMe);
    expect(ours).toHaveLength(5);
    for (const m of ours) expect(m).toMatchObject({ isBot: true, user: null });
    t.ws.close();
  });

  it('the routes answer bad input with 400 and the field, another company’s ids with 404', async () => {
    const t = await connected();
    const q = await t.admin.post('/queue', { name: 'Fila Rotas', color: uniqColour(), greetingMessage: 'Oi' });
    expect((await t.admin.get('/queue-options')).status).toBe(400);
    const bad = await t.admin.post('/queue-options', { queueId: q.body.id, option: 'x', title: 'Ruim' });
    expect(bad.status).toBe(400);
    expect(bad.body.fields).toEqual([expect.objectContaining({ field: 'option' })]);
    const ok = await t.admin.post('/queue-options', { queueId: q.body.id, option: '1', title: 'Boa' });
    const dup = await t.admin.post('/queue-options', { queueId: q.body.id, option: '1', title: 'Repetida' });
    expect(dup.status).toBe(409);
    const schedules = await t.admin.put(`/companies/${t.companyId}/schedules`, { schedules: [{ weekdayEn: 'monday', startTime: '18:00', endTime: '08:00' }] });
    expect(schedules.status).toBe(400);
    expect(schedules.body.fields).toEqual([expect.objectContaining({ field: 'schedules.0.endTime' })]);
    const saved = await t.admin.put(`/companies/${t.companyId}/schedules`, { schedules: [{ weekdayEn: 'monday', startTime: '08:00', endTime: '12:00' }] });
    expect(saved.status).toBe(200);
    expect((await t.admin.get(`/companies/${t.companyId}`)).body.schedules).toEqual([{ weekday: 'Segunda-feira', weekdayEn: 'monday', startTime: '08:00', endTime: '12:00' }]);

    const other = await connected();
    expect((await other.admin.get(`/queue-options/${ok.body.id}`)).status).toBe(404);
    expect((await other.admin.put(`/queue-options/${ok.body.id}`, { title: 'Invadida' })).status).toBe(404);
    expect((await other.admin.get(`/queue-options?queueId=${q.body.id}&parentId=-1`)).status).toBe(404);
    expect((await other.admin.put(`/companies/${t.companyId}/schedules`, { schedules: [] })).status).toBe(404);
    expect((await t.admin.get(`/queue-options/${ok.body.id}`)).body).toMatchObject({ title: 'Boa' });
    t.ws.close();
    other.ws.close();
  });

  it('every branch as the customer’s phone sees it: one queue, auto-selection, #, the cap, a transfer leaf, FORMs, closed hours', { timeout: 240_000 }, async () => {
    const t = await connected({ queues: 30, connections: 10 });
    const queue = async (name: string, extra: Record<string, unknown> = {}) => {
      const r = await t.admin.post('/queue', { name, color: uniqColour(), greetingMessage: `Fila ${name}`, ...extra });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body.id as number;
    };
    const line = async (fields: Record<string, unknown>) => {
      const link = await linkSandboxConnection(t, t.ws);
      const r = await t.admin.put(`/whatsapp/${link.id}`, fields);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return link.id;
    };
    let n = 0;
    /** A new customer writing to connection `id`, and what the phone got back. */
    const customer = (id: number) => {
      const number = `55219${String(Date.now() + ++n).slice(-8)}`;
      const answers = async () => ((await sandbox<any[]>('GET', `/connections/${id}/messages?peer=${number}`)).body ?? []).filter((m) => m.fromMe).map((m) => m.body as string);
      return {
        number,
        write: (body: string) => sandbox('POST', `/connections/${id}/messages`, { from: number, name: 'Bia Souza', body }),
        answers,
        /** Writes and waits for the phone to hold `count` answers in all. */
        async say(body: string, count: number) {
          await this.write(body);
          return until(async () => ((await answers()).length >= count ? answers() : undefined), `${count} answers to ${number}`);
        },
        /** Writes, waits until the message is its ticket's last one, and a little more: no answer came. */
        async silent(body: string) {
          const before = (await answers()).length;
          await this.write(body);
          const last = async () => {
            const list = await t.admin.get(`/tickets?status=pending&showAll=true&searchParam=${number}`);
            return (list.body.tickets as { lastMessage: string }[])[0]?.lastMessage;
          };
          await until(async () => (await last()) === body || undefined, 'the message stored');
          await new Promise((r) => setTimeout(r, 1000));
          expect(await last()).toBe(body);
          expect(await answers()).toHaveLength(before);
        },
      };
    };

    // One queue: straight in, with its greeting; the connection greeting leads only with the setting.
    const unica = await queue('Única');
    const one = await line({ greetingMessage: 'Olá da loja', queueIds: [unica] });
    expect(await customer(one).say('Oi', 1)).toEqual(['Fila Única']);
    expect((await t.admin.put('/settings/sendGreetingMessageOneQueues', { value: 'enabled' })).status).toBe(200);
    expect(await customer(one).say('Oi', 1)).toEqual(['Olá da loja\n\nFila Única']);
    expect((await t.admin.put('/settings/sendGreetingMessageOneQueues', { value: 'disabled' })).status).toBe(200);

    // The menu: an invalid reply with the notice, # back, then the third invalid reply picks the first queue.
    const [a, b] = [await queue('Alfa', { orderQueue: 1 }), await queue('Beta', { orderQueue: 2 })];
    const menu = await line({ greetingMessage: 'Escolha:', queueIds: [a, b], maxUseBotQueues: 10 });
    const m = customer(menu);
    const MENU = 'Escolha:\n\n*[ 1 ]* - Alfa\n*[ 2 ]* - Beta';
    await m.say('Oi', 1);
    expect((await m.say('9', 2)).at(-1)).toBe(`Opção inválida, por favor, escolha uma opção válida.\n\n${MENU}`);
    expect((await m.say('#', 3)).at(-1)).toBe(MENU);
    // `#` starts the count again: three invalid replies in a row from here.
    await m.say('x', 4);
    await m.say('y', 5);
    expect((await m.say('z', 6)).at(-1)).toBe('Opção selecionada automaticamente: Alfa\n\nFila Alfa');

    // The cap: two menus, then the ticket waits silently.
    const capped = await line({ greetingMessage: 'Escolha:', queueIds: [a, b], maxUseBotQueues: 2 });
    const c = customer(capped);
    await c.say('Oi', 1);
    await c.say('talvez', 2);
    await c.silent('e agora?');

    // A leaf that transfers: its message, then the other queue's greeting; the ticket moves.
    const origem = await queue('Origem');
    const destino = await queue('Destino');
    expect((await t.admin.post('/queue-options', { queueId: origem, option: '1', title: 'Ir ao destino', message: 'Transferindo…', transferToQueueId: destino })).status).toBe(201);
    const tr = customer(await line({ queueIds: [origem] }));
    expect(await tr.say('Oi', 1)).toEqual(['Fila Origem\n\n*[ 1 ]* - Ir ao destino\n*[ # ]* - Menu inicial']);
    expect((await tr.say('1', 2)).at(-1)).toBe('Transferindo…\n\nFila Destino');

    // FORM: a wrong e-mail repeats the question, the answers land in the contact; three wrong answers give up.
    const humano = await queue('Humano');
    const form = await queue('Cadastro', { type: 'FORM', nextQueueId: humano, nextQueueInvalidFormId: humano });
    expect((await t.admin.post('/queue-options', { queueId: form, option: '1', title: 'E-mail', message: 'Seu e-mail?', fieldName: 'email', isValidationField: true })).status).toBe(201);
    expect((await t.admin.post('/queue-options', { queueId: form, option: '2', title: 'Cidade', message: 'Sua cidade?', fieldName: 'cidade' })).status).toBe(201);
    const formLine = await line({ queueIds: [form] });
    const f = customer(formLine);
    await f.say('Oi', 1);
    expect((await f.say('bia@', 2)).at(-1)).toBe('Seu e-mail?');
    expect((await f.say('bia@exemplo.com', 3)).at(-1)).toBe('Sua cidade?');
    expect((await f.say('Natal', 4)).at(-1)).toBe('Fila Humano');
    const contacts = await t.admin.get(`/contacts?searchParam=${f.number}`);
    const contact = await t.admin.get(`/contacts/${contacts.body.contacts[0].id}`);
    expect(contact.body.extraInfo).toEqual([expect.objectContaining({ name: 'email', value: 'bia@exemplo.com' }), expect.objectContaining({ name: 'cidade', value: 'Natal' })]);
    const g = customer(formLine);
    await g.say('Oi', 1);
    await g.say('a', 2);
    await g.say('b', 3);
    expect((await g.say('c', 4)).at(-1)).toBe('Fila Humano');

    // Closed hours, queue type: the chosen queue is closed all week and answers for itself, once.
    const fechada = await queue('Fechada', { outOfHoursMessage: 'A fila Fechada não abre hoje.', schedules: [] });
    const closedLine = await line({ greetingMessage: 'Escolha:', queueIds: [a, fechada] });
    expect((await t.admin.put('/settings/scheduleType', { value: 'queue' })).status).toBe(200);
    const q = customer(closedLine);
    await q.say('Oi', 1);
    expect((await q.say('2', 2)).at(-1)).toBe('A fila Fechada não abre hoje.');
    await q.silent('alô?');

    // Closed hours, company type: the company is closed all week; one answer, nothing else.
    expect((await t.admin.put(`/companies/${t.companyId}/schedules`, { schedules: [] })).status).toBe(200);
    expect((await t.admin.put('/settings/scheduleType', { value: 'company' })).status).toBe(200);
    const night = await line({ greetingMessage: 'Escolha:', outOfHoursMessage: 'Fechados, {{firstName}}.', queueIds: [a, b] });
    const o = customer(night);
    expect(await o.say('Oi', 1)).toEqual(['Fechados, Bia.']);
    await o.silent('tem alguém?');
    expect((await t.admin.put('/settings/scheduleType', { value: 'disabled' })).status).toBe(200);
    t.ws.close();
  });
});

