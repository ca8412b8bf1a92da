import { describe, expect, it } from 'vitest';
import { inboundEventSchema } from '@balcao/shared';
import { memoryAgent, memoryWorld, run } from '../fakes/world.js';

/**
 * The queue bot (issue 18 §2, server-behaviour §4-§5) on in-memory ports, at a fixed clock
 * (2026-03-02 is a Monday; 12:00 UTC is 09:00 in São Paulo): every branch of the menu, the options
 * tree, FORM queues and business hours, with what the customer's phone would receive.
 */
const { receiveInbound } = await import('../../src/services/inbound.js');
const { updateConnection } = await import('../../src/services/connections.js');
const { createQueue } = await import('../../src/services/queues.js');
const { createQueueOption } = await import('../../src/services/queue-options.js');
const { updateSetting } = await import('../../src/services/settings.js');
const { updateCompanySchedules } = await import('../../src/services/companies.js');
const { sendFromConsole } = await import('../../src/services/message-actions.js');
const { INVALID_OPTION, MAIN_MENU_LINE, PREVIOUS_MENU_LINE } = await import('../../src/services/bot.js');

type World = Awaited<ReturnType<typeof memoryWorld>>;
let seq = 0;
let colours = 0;
const CUSTOMER = { number: '5511988776655', name: 'Maria Cliente' };

function say(w: World, body: string, opts: { eventId?: string; waMessageId?: string; chat?: Record<string, unknown> } = {}) {
  const e = inboundEventSchema.parse({
    v: 1,
    eventId: opts.eventId ?? `ev-${++seq}`,
    companyId: w.companyId,
    connectionId: w.connectionId,
    at: new Date(w.ports.time).toISOString(),
    type: 'message',
    waMessageId: opts.waMessageId ?? `WA-${++seq}`,
    chat: opts.chat ?? CUSTOMER,
    fromMe: false,
    body,
    timestamp: w.ports.time,
  });
  w.ports.time += 1000;
  return w.ports.run(() => receiveInbound(e));
}

/** What the customer's phone received so far (the bodies of every send command). */
const phone = (w: World) => w.ports.sentCommands.filter((c) => c.type === 'send').map((c) => (c as { body: string }).body);
const lastSent = (w: World) => phone(w).at(-1);
const ticket = (w: World) => w.ports.table.all().find((i) => i.entity === 'ticket') as Record<string, any>;
const contact = (w: World) => w.ports.table.all().find((i) => i.entity === 'contact' && !i.isGroup) as Record<string, any>;

type Command = { constructor: { name: string }; input: { TransactItems?: { Put?: { Item?: Record<string, any> } }[] } };
/**
 * Runs `before` ahead of each write of the bot's state for customer message `handled` (the ticket's
 * conditional put that records it); `before` may throw to fail that write. Answers the restore.
 */
function onBotStateWrite(w: World, handled: string, before: () => Promise<void>) {
  const send = w.ports.table.send.bind(w.ports.table);
  w.ports.table.send = (async (cmd: Command) => {
    const botWrite = cmd.constructor.name === 'TransactWriteCommand' && cmd.input.TransactItems?.some((t) => t.Put?.Item?.entity === 'ticket' && t.Put.Item.bot?.handled === handled);
    if (botWrite) await before();
    return send(cmd as never);
  }) as never;
  return () => {
    w.ports.table.send = send as never;
  };
}

async function queues(w: World, specs: { name: string; greetingMessage?: string; type?: 'TEXT' | 'FORM'; orderQueue?: number }[]) {
  const made = [];
  for (const q of specs) made.push(await run(w, () => createQueue(w.companyId, { color: `#0000${String(++colours).padStart(2, '0')}`, greetingMessage: `Bem-vindo a ${q.name}`, ...q })));
  return made;
}
const connection = (w: World, fields: Record<string, unknown>) => run(w, () => updateConnection(w.companyId, w.connectionId, fields));
const option = (w: World, queueId: number, fields: Record<string, unknown>) => run(w, () => createQueueOption(w.companyId, { queueId, ...fields }));

describe('the queue bot: no queue, one queue, the menu', () => {
  it('a connection without queues sends its greeting once per ticket', async () => {
    const w = await memoryWorld();
    await connection(w, { greetingMessage: '{{ms}}, {{firstName}}! Já te atendemos.' });
    await say(w, 'Oi');
    await say(w, 'Alguém aí?');
    expect(phone(w)).toEqual(['Bom dia, Maria! Já te atendemos.']);
    const sent = w.ports.table.all().filter((i) => i.entity === 'message' && i.fromMe);
    expect(sent).toEqual([expect.objectContaining({ isBot: true, userId: null })]);
  });

  it('one queue: the ticket goes to it at once; the connection greeting leads only with sendGreetingMessageOneQueues', async () => {
    const w = await memoryWorld();
    const [vendas] = await queues(w, [{ name: 'Vendas' }]);
    await connection(w, { greetingMessage: 'Olá da Loja', queueIds: [vendas.id] });
    await say(w, 'Oi');
    expect(ticket(w)).toMatchObject({ queueId: vendas.id, status: 'pending', chatbot: false });
    expect(phone(w)).toEqual(['Bem-vindo a Vendas']);

    const v = await memoryWorld();
    const [suporte] = await queues(v, [{ name: 'Suporte' }]);
    await connection(v, { greetingMessage: 'Olá da Loja', queueIds: [suporte.id] });
    await run(v, () => updateSetting(v.companyId, 'sendGreetingMessageOneQueues', { value: 'enabled' }));
    await say(v, 'Oi');
    expect(phone(v)).toEqual(['Olá da Loja\n\nBem-vindo a Suporte']);
  });

  it('several queues: greeting and numbered menu in order; a valid number picks the queue and sends its greeting', async () => {
    const w = await memoryWorld();
    const [vendas, suporte] = await queues(w, [
      { name: 'Vendas', orderQueue: 2 },
      { name: 'Suporte', orderQueue: 1 },
    ]);
    await connection(w, { greetingMessage: 'Olá {{name}}!', queueIds: [vendas.id, suporte.id] });
    await say(w, 'Oi');
    expect(lastSent(w)).toBe('Olá Maria Cliente!\n\n*[ 1 ]* - Suporte\n*[ 2 ]* - Vendas');
    expect(ticket(w)).toMatchObject({ queueId: null });
    await say(w, ' 2 ');
    expect(ticket(w)).toMatchObject({ queueId: vendas.id, status: 'pending', chatbot: false });
    expect(lastSent(w)).toBe('Bem-vindo a Vendas');
    // In the queue, with no options: the bot is over, later messages wait for an agent.
    await say(w, 'Quero comprar');
    expect(phone(w)).toHaveLength(2);
  });

  it('invalid replies resend the menu with the notice; the third picks the first queue; # goes back to the menu', async () => {
    const w = await memoryWorld();
    const [a, b] = await queues(w, [{ name: 'Financeiro' }, { name: 'Comercial' }]);
    await connection(w, { greetingMessage: 'Escolha:', queueIds: [a.id, b.id], maxUseBotQueues: 10 });
    await say(w, 'Oi');
    await say(w, '7');
    expect(lastSent(w)).toBe(`${INVALID_OPTION}\n\nEscolha:\n\n*[ 1 ]* - Comercial\n*[ 2 ]* - Financeiro`);
    await say(w, '#');
    expect(lastSent(w)).toBe('Escolha:\n\n*[ 1 ]* - Comercial\n*[ 2 ]* - Financeiro');
    await say(w, 'banana');
    await say(w, 'x');
    expect(ticket(w).queueId).toBeNull();
    await say(w, '99');
    expect(ticket(w)).toMatchObject({ queueId: b.id });
    expect(lastSent(w)).toBe('Opção selecionada automaticamente: Comercial\n\nBem-vindo a Comercial');
  });

  it('maxUseBotQueues caps the menus; after timeUseBotQueues minutes of silence it may be offered again', async () => {
    const w = await memoryWorld();
    const [a, b] = await queues(w, [{ name: 'Fila A' }, { name: 'Fila B' }]);
    await connection(w, { greetingMessage: 'Menu', queueIds: [a.id, b.id], maxUseBotQueues: 2, timeUseBotQueues: 30 });
    await say(w, 'Oi');
    await say(w, 'nada');
    const menus = phone(w).length;
    expect(menus).toBe(2);
    await say(w, 'de novo');
    await say(w, 'e agora');
    expect(phone(w)).toHaveLength(2);
    expect(ticket(w)).toMatchObject({ queueId: null, status: 'pending' });
    w.ports.time += 31 * 60_000;
    await say(w, 'voltei');
    expect(phone(w)).toHaveLength(3);
    expect(lastSent(w)).toContain('*[ 1 ]* - Fila A');
  });

  it('groups and contacts with disableBot never get the bot; an agent writing stops it', async () => {
    const w = await memoryWorld();
    const [a, b] = await queues(w, [{ name: 'Fila A' }, { name: 'Fila B' }]);
    await connection(w, { greetingMessage: 'Menu', queueIds: [a.id, b.id] });
    await run(w, () => updateSetting(w.companyId, 'CheckMsgIsGroup', { value: 'disabled' }));
    await say(w, 'Oi grupo', { chat: { groupId: '120363000000000001', name: 'Equipe' } });
    expect(phone(w)).toHaveLength(0);

    await say(w, 'Oi');
    expect(phone(w)).toHaveLength(1);
    const admin = await memoryAgent(w, 'Ana', { profile: 'admin' });
    const t = w.ports.table.all().find((i) => i.entity === 'ticket' && !i.isGroup) as never;
    await run(w, () => sendFromConsole(admin, t, { body: 'Oi, sou a Ana' }, []));
    await say(w, '1');
    expect(phone(w)).toEqual(['Menu\n\n*[ 1 ]* - Fila A\n*[ 2 ]* - Fila B', 'Oi, sou a Ana']);
    // Not even business hours answer a ticket an agent wrote in.
    await run(w, () => updateSetting(w.companyId, 'scheduleType', { value: 'company' }));
    await connection(w, { outOfHoursMessage: 'Fechado' });
    w.ports.time = Date.parse('2026-03-08T15:00:00Z'); // a Sunday
    await say(w, 'Domingo?');
    expect(phone(w)).toHaveLength(2);

    // A contact with disableBot never gets it.
    const { createContact } = await import('../../src/services/contacts.js');
    await run(w, () => createContact(admin, { name: 'Sem Robô', number: '5511911112222', disableBot: true }));
    await say(w, 'Oi', { chat: { number: '5511911112222', name: 'Sem Robô' } });
    expect(phone(w)).toHaveLength(2);
  });
});

describe('the queue bot: options tree and FORM queues', () => {
  it('walks a two-level tree: down, 0 up, # to the main menu, a leaf ends the bot, a leaf transfers', async () => {
    const w = await memoryWorld();
    const [vendas, suporte] = await queues(w, [
      { name: 'Vendas', orderQueue: 1 },
      { name: 'Suporte', orderQueue: 2 },
    ]);
    await connection(w, { greetingMessage: 'Olá', queueIds: [vendas.id, suporte.id] });
    const planos = await option(w, vendas.id, { title: 'Planos', option: '1', message: 'Nossos planos:' });
    await option(w, vendas.id, { title: 'Falar com suporte', option: '2', message: 'Vou te passar ao suporte.', transferToQueueId: suporte.id });
    await option(w, vendas.id, { parentId: planos.id, title: 'Mensal', option: '1', message: 'R$ 99 por mês. Um vendedor já te atende.' });
    await option(w, vendas.id, { parentId: planos.id, title: 'Anual', option: '2', message: 'R$ 999 por ano.' });

    await say(w, 'Oi');
    await say(w, '1');
    expect(ticket(w)).toMatchObject({ queueId: vendas.id, chatbot: true });
    expect(lastSent(w)).toBe(`Bem-vindo a Vendas\n\n*[ 1 ]* - Planos\n*[ 2 ]* - Falar com suporte\n${MAIN_MENU_LINE}`);
    await say(w, '1');
    expect(lastSent(w)).toBe(`Nossos planos:\n\n*[ 1 ]* - Mensal\n*[ 2 ]* - Anual\n${PREVIOUS_MENU_LINE}\n${MAIN_MENU_LINE}`);
    await say(w, '5');
    expect(lastSent(w)).toBe(`${INVALID_OPTION}\n\nNossos planos:\n\n*[ 1 ]* - Mensal\n*[ 2 ]* - Anual\n${PREVIOUS_MENU_LINE}\n${MAIN_MENU_LINE}`);
    await say(w, '0');
    expect(lastSent(w)).toBe(`*[ 1 ]* - Planos\n*[ 2 ]* - Falar com suporte\n${MAIN_MENU_LINE}`);
    await say(w, '#');
    expect(ticket(w)).toMatchObject({ queueId: null, chatbot: false });
    expect(lastSent(w)).toBe('Olá\n\n*[ 1 ]* - Vendas\n*[ 2 ]* - Suporte');
    await say(w, '1');
    await say(w, '1');
    await say(w, '1');
    expect(lastSent(w)).toBe('R$ 99 por mês. Um vendedor já te atende.');
    expect(ticket(w)).toMatchObject({ queueId: vendas.id, chatbot: false, status: 'pending' });
    const count = phone(w).length;
    await say(w, 'obrigada');
    expect(phone(w)).toHaveLength(count);

    // A leaf that transfers: its message, then the other queue's greeting; the ticket moves.
    const v = await memoryWorld();
    const [v1, v2] = await queues(v, [{ name: 'Vendas' }, { name: 'Suporte' }]);
    await connection(v, { queueIds: [v1.id] });
    await option(v, v1.id, { title: 'Suporte', option: '1', message: 'Transferindo…', transferToQueueId: v2.id });
    await say(v, 'Oi');
    await say(v, '1');
    expect(ticket(v)).toMatchObject({ queueId: v2.id, chatbot: false });
    expect(lastSent(v)).toBe('Transferindo…\n\nBem-vindo a Suporte');
  });

  it('a FORM asks each field, repeats a wrong answer, keeps the answers in the contact, then moves to nextQueueId', async () => {
    const w = await memoryWorld();
    const [vendas] = await queues(w, [{ name: 'Vendas' }]);
    const [cadastro] = await queues(w, [{ name: 'Cadastro', type: 'FORM', greetingMessage: 'Vamos ao cadastro.' }]);
    await run(w, async () => {
      const { updateQueue } = await import('../../src/services/queues.js');
      await updateQueue(w.companyId, cadastro.id, { nextQueueId: vendas.id, nextQueueInvalidFormId: vendas.id });
    });
    await connection(w, { queueIds: [cadastro.id] });
    await option(w, cadastro.id, { title: 'E-mail', option: '1', message: 'Qual é o seu e-mail?', fieldName: 'email', isValidationField: true });
    await option(w, cadastro.id, { title: 'CPF', option: '2', message: 'Qual é o seu CPF?', fieldName: 'cpf', isValidationField: true });
    await option(w, cadastro.id, { title: 'Cidade', option: '3', message: 'E a sua cidade?', fieldName: 'cidade' });

    await say(w, 'Oi');
    expect(lastSent(w)).toBe('Vamos ao cadastro.\n\nQual é o seu e-mail?');
    expect(ticket(w)).toMatchObject({ queueId: cadastro.id, chatbot: true });
    await say(w, 'maria@');
    expect(lastSent(w)).toBe('Qual é o seu e-mail?');
    await say(w, 'maria@exemplo.com.br');
    expect(lastSent(w)).toBe('Qual é o seu CPF?');
    await say(w, '111.111.111-11');
    expect(lastSent(w)).toBe('Qual é o seu CPF?');
    await say(w, '529.982.247-25');
    expect(lastSent(w)).toBe('E a sua cidade?');
    await say(w, 'Recife');
    expect(ticket(w)).toMatchObject({ queueId: vendas.id, chatbot: false });
    expect(lastSent(w)).toBe('Bem-vindo a Vendas');
    expect(contact(w).extraInfo).toEqual([
      { name: 'email', value: 'maria@exemplo.com.br' },
      { name: 'cpf', value: '529.982.247-25' },
      { name: 'cidade', value: 'Recife' },
    ]);
  });

  it('three invalid FORM answers move the ticket to nextQueueInvalidFormId', async () => {
    const w = await memoryWorld();
    const [humano] = await queues(w, [{ name: 'Atendimento humano' }]);
    const [form] = await queues(w, [{ name: 'Cadastro', type: 'FORM' }]);
    await run(w, async () => {
      const { updateQueue } = await import('../../src/services/queues.js');
      await updateQueue(w.companyId, form.id, { nextQueueInvalidFormId: humano.id });
    });
    await connection(w, { queueIds: [form.id] });
    await option(w, form.id, { title: 'CNPJ', option: '1', message: 'Informe o CNPJ', fieldName: 'cnpj', isValidationField: true });
    await say(w, 'Oi');
    await say(w, '123');
    await say(w, 'não sei');
    await say(w, '00.000.000/0000-00');
    expect(ticket(w)).toMatchObject({ queueId: humano.id, chatbot: false });
    expect(lastSent(w)).toBe('Bem-vindo a Atendimento humano');
    expect(contact(w).extraInfo).toEqual([]);
  });
});

describe('the queue bot: business hours and exactly-once', () => {
  it('company schedule: out of hours the connection answers once per period and nothing else runs', async () => {
    const w = await memoryWorld();
    const [a, b] = await queues(w, [{ name: 'Fila A' }, { name: 'Fila B' }]);
    await connection(w, { greetingMessage: 'Menu', outOfHoursMessage: 'Estamos fechados, {{firstName}}. Abrimos às 8h.', queueIds: [a.id, b.id] });
    await run(w, () => updateSetting(w.companyId, 'scheduleType', { value: 'company' }));
    // Saturday 2026-03-07 15:00 in São Paulo (closed after 12:00).
    w.ports.time = Date.parse('2026-03-07T18:00:00Z');
    await say(w, 'Oi');
    await say(w, 'Tem alguém?');
    expect(phone(w)).toEqual(['Estamos fechados, Maria. Abrimos às 8h.']);
    expect(ticket(w)).toMatchObject({ status: 'pending', queueId: null });
    // Sunday (closed all day): the same period, until Monday 08:00.
    w.ports.time = Date.parse('2026-03-08T15:00:00Z');
    await say(w, 'Domingo');
    expect(phone(w)).toHaveLength(1);
    // Monday 09:00: open, the menu; Monday 19:00: a new out-of-hours period.
    w.ports.time = Date.parse('2026-03-09T12:00:00Z');
    await say(w, 'Bom dia');
    expect(lastSent(w)).toBe('Menu\n\n*[ 1 ]* - Fila A\n*[ 2 ]* - Fila B');
    w.ports.time = Date.parse('2026-03-09T22:00:00Z');
    await say(w, 'Ainda aí?');
    expect(phone(w)).toHaveLength(3);
    expect(lastSent(w)).toBe('Estamos fechados, Maria. Abrimos às 8h.');
  });

  it('a company schedule edited by PUT /companies/{id}/schedules is what counts', async () => {
    const w = await memoryWorld();
    await connection(w, { outOfHoursMessage: 'Fechado' , greetingMessage: 'Aberto' });
    await run(w, () => updateSetting(w.companyId, 'scheduleType', { value: 'company' }));
    const allWeek = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'].map((weekdayEn) => ({ weekdayEn, startTime: '10:00', endTime: '1100' }));
    await run(w, () => updateCompanySchedules({ companyId: w.companyId, isSuper: false }, w.companyId, { schedules: allWeek }));
    // 09:00 in São Paulo: before 10:00.
    await say(w, 'Oi');
    expect(phone(w)).toEqual(['Fechado']);
    w.ports.time = Date.parse('2026-03-02T13:30:00Z');
    await say(w, 'E agora?');
    expect(phone(w)).toEqual(['Fechado', 'Aberto']);
  });

  it('queue schedule: checked once the ticket has a queue; the queue answers out of hours instead of its menu', async () => {
    const w = await memoryWorld();
    const [a, b] = await queues(w, [{ name: 'Plantão' }, { name: 'Comercial' }]);
    const { updateQueue } = await import('../../src/services/queues.js');
    await run(w, () =>
      updateQueue(w.companyId, b.id, {
        outOfHoursMessage: 'O Comercial abre às 14h.',
        schedules: [{ weekdayEn: 'monday', startTime: '14:00', endTime: '18:00' }],
      }),
    );
    await connection(w, { greetingMessage: 'Menu', queueIds: [a.id, b.id] });
    await run(w, () => updateSetting(w.companyId, 'scheduleType', { value: 'queue' }));
    await say(w, 'Oi');
    expect(lastSent(w)).toBe('Menu\n\n*[ 1 ]* - Comercial\n*[ 2 ]* - Plantão');
    await say(w, '1');
    expect(ticket(w)).toMatchObject({ queueId: b.id, chatbot: false });
    expect(lastSent(w)).toBe('O Comercial abre às 14h.');
    await say(w, 'ok');
    expect(phone(w)).toHaveLength(2);
  });

  it('a redelivered customer message mid-menu sends nothing twice; a bot that failed before saving finishes on the redelivery', async () => {
    const w = await memoryWorld();
    const [a, b] = await queues(w, [{ name: 'Fila A' }, { name: 'Fila B' }]);
    await connection(w, { greetingMessage: 'Menu', queueIds: [a.id, b.id] });
    await option(w, b.id, { title: 'Segunda via', option: '1', message: 'Segue o boleto.' });
    await say(w, 'Oi', { eventId: 'E1', waMessageId: 'M1' });
    await say(w, 'Oi', { eventId: 'E1', waMessageId: 'M1' });
    expect(phone(w)).toHaveLength(1);
    // Handled once: a second handling would have counted an invalid reply.
    expect(ticket(w).bot).toMatchObject({ stage: 'menu', menus: 1, invalid: 0, handled: 'M1' });
    await say(w, '2', { eventId: 'E2', waMessageId: 'M2' });
    await say(w, '2', { eventId: 'E2b', waMessageId: 'M2' });
    expect(phone(w)).toEqual(['Menu\n\n*[ 1 ]* - Fila A\n*[ 2 ]* - Fila B', `Bem-vindo a Fila B\n\n*[ 1 ]* - Segunda via\n${MAIN_MENU_LINE}`]);
    // In Fila B's tree "2" is no option: handled again it would have counted an invalid reply.
    expect(ticket(w).bot).toMatchObject({ stage: 'options', invalid: 0, handled: 'M2' });

    // The state write fails once (the process dies after sending): the redelivery saves it, sends nothing new.
    const v = await memoryWorld();
    const [x, y] = await queues(v, [{ name: 'Fila X' }, { name: 'Fila Y' }]);
    await connection(v, { greetingMessage: 'Menu', queueIds: [x.id, y.id] });
    await say(v, 'Oi');
    let failures = 1;
    onBotStateWrite(v, 'N1', async () => {
      if (failures-- > 0) throw new Error('process died');
    });
    await expect(say(v, '1', { eventId: 'F1', waMessageId: 'N1' })).rejects.toThrow('process died');
    expect(phone(v).at(-1)).toBe('Bem-vindo a Fila X');
    expect(ticket(v)).toMatchObject({ queueId: null });
    await say(v, '1', { eventId: 'F1', waMessageId: 'N1' });
    expect(ticket(v)).toMatchObject({ queueId: x.id });
    expect(phone(v).filter((b) => b === 'Bem-vindo a Fila X')).toHaveLength(1);
  });

  it('a state write that loses to an agent stopping the bot keeps the stop; one that keeps losing fails the event for a redelivery', async () => {
    const w = await memoryWorld();
    const [a, b] = await queues(w, [{ name: 'Fila A' }, { name: 'Fila B' }]);
    await option(w, a.id, { title: 'Planos', option: '1', message: 'Planos' });
    await connection(w, { greetingMessage: 'Menu', queueIds: [a.id, b.id] });
    await say(w, 'Oi');
    const { stopBot } = await import('../../src/services/bot.js');
    let intercepted = false;
    onBotStateWrite(w, 'PICK', async () => {
      if (intercepted) return;
      intercepted = true;
      // The agent writes between the bot's decision and its save.
      await stopBot(ticket(w) as never);
    });
    await say(w, '1', { waMessageId: 'PICK' });
    expect(intercepted).toBe(true);
    expect(ticket(w)).toMatchObject({ chatbot: false, queueId: null, bot: { stopped: true, handled: 'PICK' } });

    const v = await memoryWorld();
    const [x, y] = await queues(v, [{ name: 'Fila X' }, { name: 'Fila Y' }]);
    await connection(v, { greetingMessage: 'Menu', queueIds: [x.id, y.id] });
    await say(v, 'Oi');
    const { TransactionCanceledException } = await import('@aws-sdk/client-dynamodb');
    const restore = onBotStateWrite(v, 'BUSY', async () => {
      throw new TransactionCanceledException({ message: 'Transaction cancelled [TransactionConflict]', $metadata: {}, CancellationReasons: [{ Code: 'TransactionConflict' }] });
    });
    await expect(say(v, '1', { waMessageId: 'BUSY', eventId: 'BUSY-1' })).rejects.toThrow('not saved');
    restore();
    await say(v, '1', { waMessageId: 'BUSY', eventId: 'BUSY-1' });
    expect(ticket(v)).toMatchObject({ queueId: x.id, bot: { handled: 'BUSY' } });
    expect(phone(v).filter((m) => m === 'Bem-vindo a Fila X')).toHaveLength(1);
  });

  it('a FORM that gives up into another FORM starts that one afresh; # at the menu cap leaves the ticket without a queue', async () => {
    const w = await memoryWorld();
    const [second] = await queues(w, [{ name: 'Segundo', type: 'FORM' }]);
    const [first] = await queues(w, [{ name: 'Primeiro', type: 'FORM', nextQueueInvalidFormId: second.id } as never]);
    await option(w, first.id, { title: 'CPF', option: '1', message: 'CPF?', fieldName: 'cpf', isValidationField: true });
    await option(w, second.id, { title: 'E-mail', option: '1', message: 'E-mail?', fieldName: 'email', isValidationField: true });
    await connection(w, { queueIds: [first.id] });
    await say(w, 'Oi');
    await say(w, 'a');
    await say(w, 'b');
    await say(w, 'c');
    expect(ticket(w)).toMatchObject({ queueId: second.id, chatbot: true });
    await say(w, 'não é e-mail');
    expect(ticket(w)).toMatchObject({ queueId: second.id, chatbot: true });
    expect(lastSent(w)).toBe('E-mail?');

    const v = await memoryWorld();
    const [f1, f2] = await queues(v, [{ name: 'Form Um', type: 'FORM' }, { name: 'Fila Dois' }]);
    await option(v, f1.id, { title: 'E-mail', option: '1', message: 'E-mail?', fieldName: 'email', isValidationField: true });
    await connection(v, { greetingMessage: 'Menu', queueIds: [f1.id, f2.id], maxUseBotQueues: 2 });
    await say(v, 'Oi');
    await say(v, '2'); // Form Um (after Fila Dois by name)
    expect(lastSent(v)).toBe('Bem-vindo a Form Um\n\nE-mail?');
    await say(v, '#');
    expect(phone(v)).toHaveLength(3);
    await say(v, '2');
    await say(v, '#');
    // Third menu refused by the cap: the ticket waits for an agent, without a queue, out of the bot.
    expect(phone(v)).toHaveLength(4);
    expect(ticket(v)).toMatchObject({ queueId: null, chatbot: false, bot: { stage: 'capped' } });
    await say(v, 'maria@exemplo.com');
    expect(phone(v)).toHaveLength(4);
  });
});

