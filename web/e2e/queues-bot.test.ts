import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { sandbox, until } from '../../functions/test/integration/pipeline-helpers.js';
import { member, PASSWORD } from '../../functions/test/integration/client.js';
import { NARROW, closeWatched, screenshot, watchedPage } from './support/browser.js';
import { browser, company as t, connectedWorld, randomPhone, web } from './support/world.js';

// Issue 18 (client side): the queue dialog (type, FORM targets, palette, the options tree), the
// bot those queues run as a customer meets it on the sandbox phone, its messages marked in the
// console, and the company's business hours in the settings.

connectedWorld();

let admin: Awaited<ReturnType<typeof member>>;

async function signedIn(viewport?: { width: number; height: number }): Promise<Page> {
  admin ??= await member(t.admin, { name: 'Ana Admin', profile: 'admin' });
  return watchedPage(browser, web(), { email: admin.email, password: PASSWORD }, viewport ? { viewport } : {});
}
const done = closeWatched;

const queueDialog = (page: Page) => page.getByRole('dialog', { name: /^(Adicionar|Editar) fila$/ });
/** The tree's item of the option titled `title` (its row, editor and children). */
const node = (scope: Locator, title: string) => scope.locator('.qo-title-text', { hasText: new RegExp(`^${title}$`) }).locator('xpath=ancestor::li[1]');
const editor = (scope: Locator) => scope.locator('form.qo-editor');

/** Adds an option through the open editor of the Options tab and waits for its row. */
async function addOption(dialog: Locator, open: () => Promise<void>, o: { option?: string; title: string; message: string }) {
  await open();
  const form = editor(dialog);
  await form.waitFor();
  if (o.option) await form.getByLabel('Número', { exact: true }).fill(o.option);
  await form.getByLabel('Título', { exact: true }).fill(o.title);
  await form.getByLabel('Mensagem', { exact: true }).fill(o.message);
  await form.getByRole('button', { name: 'Salvar opção' }).click();
  await form.waitFor({ state: 'detached' });
  const row = node(dialog, o.title);
  await row.waitFor();
  return row;
}

/** One level of the tree as "number title" lines, in the order shown. */
const numbers = (level: Locator) =>
  level.evaluate((ul) => [...ul.children].filter((li) => li.matches('li.qo-node[data-option]')).map((li) => `${li.getAttribute('data-option')} ${li.querySelector('.qo-title-text')?.textContent}`));

describe('queues, their options tree and the bot', () => {
  it('builds a menu queue and a FORM queue in the dialog; a customer walks them on the phone; the console marks the bot’s messages', { timeout: 300_000 }, async () => {
    const page = await signedIn();
    await page.goto(`${web()}/queues`);
    await page.getByRole('heading', { name: 'Filas & Chatbot' }).waitFor();
    const dialog = queueDialog(page);

    // A TEXT queue: the type offers Integration too (issue 19, the plan has it); the palette has its 49 colours.
    await page.getByRole('button', { name: 'Adicionar fila' }).click();
    await dialog.getByLabel('Nome', { exact: true }).fill('Vendas');
    await dialog.getByLabel('Ordem da fila (Bot)').fill('1');
    const type = dialog.getByRole('combobox', { name: 'Tipo' });
    expect(await type.inputValue()).toBe('TEXT');
    expect(await type.locator('option[value="INTEGRATION"]').isDisabled()).toBe(false);
    expect(await type.locator('option[value="INTEGRATION"]').textContent()).toBe('Integração');
    expect(await dialog.locator('.swatches .swatch').count()).toBe(49);
    await dialog.getByRole('button', { name: 'Escolher a cor #00897b' }).click();
    await dialog.getByLabel('Mensagem de saudação').fill('Bem-vindo às Vendas, {{firstName}}!');
    // Without scheduleType queue, neither the hours tab nor the out-of-hours message shows.
    expect(await dialog.getByRole('tab', { name: 'Horários' }).count()).toBe(0);
    expect(await dialog.getByLabel('Mensagem fora do expediente').count()).toBe(0);
    // A new queue gets its options once saved.
    await dialog.getByRole('tab', { name: 'Opções do chatbot' }).click();
    await dialog.getByTestId('queue-options-after-save').waitFor();
    await dialog.getByRole('tab', { name: 'Dados da fila' }).click();
    await screenshot(page, 'queue-dialog-light-wide');
    await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await page.getByText('Fila salva com sucesso').waitFor();
    const vendasRow = page.locator('tbody tr', { hasText: 'Vendas' });
    await vendasRow.waitFor();
    expect(await vendasRow.getByTestId('queue-type').textContent()).toBe('Texto');

    // The FORM queue: its two targets show only for FORM.
    await page.getByRole('button', { name: 'Adicionar fila' }).click();
    await dialog.getByLabel('Nome', { exact: true }).fill('Cadastro');
    await dialog.getByLabel('Ordem da fila (Bot)').fill('2');
    expect(await dialog.getByTestId('queue-form-targets').count()).toBe(0);
    await dialog.getByRole('combobox', { name: 'Tipo' }).selectOption('FORM');
    await dialog.getByRole('combobox', { name: 'Fila após o formulário' }).selectOption({ label: 'Vendas' });
    await dialog.getByRole('combobox', { name: 'Fila se o formulário falhar' }).selectOption({ label: 'Vendas' });
    await dialog.getByRole('button', { name: 'Escolher a cor #5e35b1' }).click();
    await dialog.getByLabel('Mensagem de saudação').fill('Vamos ao seu cadastro.');
    await screenshot(page, 'queue-dialog-form-light-wide');
    await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await page.getByText('Fila salva com sucesso').first().waitFor();
    const cadastroRow = page.locator('tbody tr', { hasText: 'Cadastro' });
    await cadastroRow.waitFor();
    expect(await cadastroRow.getByTestId('queue-type').textContent()).toBe('Formulário');
    const queues = (await t.admin.get('/queue')).body as { id: number; name: string; type: string; nextQueueId: number | null; nextQueueInvalidFormId: number | null }[];
    const vendas = queues.find((q) => q.name === 'Vendas')!;
    const cadastro = queues.find((q) => q.name === 'Cadastro')!;
    expect(cadastro).toMatchObject({ type: 'FORM', nextQueueId: vendas.id, nextQueueInvalidFormId: vendas.id });

    // Vendas' tree: 1 Planos (1 Mensal, 2 Anual), 2 Falar com atendente.
    await page.getByRole('button', { name: 'Editar Vendas' }).click();
    await dialog.getByRole('tab', { name: 'Opções do chatbot' }).click();
    await dialog.getByTestId('queue-options-empty').waitFor();
    const addRoot = () => dialog.getByTestId('queue-option-add-root').click();
    const planos = await addOption(dialog, addRoot, { title: 'Planos', message: 'Nossos planos:' });
    expect(await planos.getAttribute('data-option')).toBe('1');
    await addOption(dialog, () => dialog.getByRole('button', { name: 'Adicionar sub-opção em Planos' }).click(), { title: 'Mensal', message: 'R$ 99 por mês. Um vendedor já te atende.' });
    await addOption(dialog, () => dialog.getByRole('button', { name: 'Adicionar sub-opção em Planos' }).click(), { title: 'Anual', message: 'R$ 999 por ano.' });
    await addOption(dialog, addRoot, { title: 'Falar com atendente', message: 'Um atendente já vai falar com você.' });
    const root = dialog.getByTestId('queue-options-root');
    expect(await numbers(root)).toEqual(['1 Planos', '2 Falar com atendente']);
    const planosId = Number((await planos.getAttribute('data-testid'))!.replace('queue-option-', ''));
    expect(await numbers(dialog.getByTestId(`queue-option-children-${planosId}`))).toEqual(['1 Mensal', '2 Anual']);
    expect(await planos.locator('.qo-details').first().textContent()).toContain('2 sub-opções');

    // A number taken at its level: the server's 409 under the field, the editor stays open.
    await addRoot();
    await editor(dialog).getByLabel('Número', { exact: true }).fill('1');
    await editor(dialog).getByLabel('Título', { exact: true }).fill('Repetida');
    await editor(dialog).getByRole('button', { name: 'Salvar opção' }).click();
    await editor(dialog).locator('.amplify-field__error-message', { hasText: 'Já existe uma opção com este número neste nível' }).waitFor();
    await screenshot(page, 'queue-options-taken-light-wide');
    // Esc closes the option's editor, not the queue dialog.
    await editor(dialog).getByLabel('Título', { exact: true }).press('Escape');
    await editor(dialog).waitFor({ state: 'detached' });
    expect(await dialog.isVisible()).toBe(true);

    // Reordering swaps the numbers with the neighbour, by keyboard too.
    await dialog.getByRole('button', { name: 'Subir Falar com atendente' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => numbers(root), { timeout: 15_000 }).toEqual(['1 Falar com atendente', '2 Planos']);
    await dialog.getByRole('button', { name: 'Descer Falar com atendente' }).click();
    await expect.poll(() => numbers(root), { timeout: 15_000 }).toEqual(['1 Planos', '2 Falar com atendente']);

    // Deleting an option with sub-options says they go too.
    const temp = await addOption(dialog, addRoot, { title: 'Temporária', message: 'x' });
    await addOption(dialog, () => dialog.getByRole('button', { name: 'Adicionar sub-opção em Temporária' }).click(), { title: 'Filha', message: 'y' });
    await temp.getByRole('button', { name: 'Excluir Temporária' }).first().click();
    const confirm = page.getByRole('dialog', { name: 'Excluir a opção Temporária?' });
    await confirm.getByText('A opção e a sua sub-opção (com tudo o que estiver abaixo dela) serão excluídas.').waitFor();
    await confirm.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByText('Opção excluída com sucesso').waitFor();
    await temp.waitFor({ state: 'detached' });
    expect(await numbers(root)).toEqual(['1 Planos', '2 Falar com atendente']);
    await screenshot(page, 'queue-options-light-wide');
    // Collapsed and opened again, the level is read from the server.
    await dialog.getByRole('button', { name: 'Ocultar as sub-opções de Planos' }).click();
    await dialog.getByRole('button', { name: 'Mostrar as sub-opções de Planos' }).click();
    expect(await numbers(dialog.getByTestId(`queue-option-children-${planosId}`))).toEqual(['1 Mensal', '2 Anual']);
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    await dialog.waitFor({ state: 'detached' });

    // Cadastro's field: the e-mail, validated.
    await page.getByRole('button', { name: 'Editar Cadastro' }).click();
    await dialog.getByRole('tab', { name: 'Campos do formulário' }).click();
    await dialog.getByTestId('queue-option-add-root').click();
    const field = editor(dialog);
    await field.getByLabel('Título do campo').fill('E-mail');
    await field.getByLabel('Pergunta', { exact: true }).fill('Qual é o seu e-mail?');
    await field.getByLabel('Nome do campo').fill('email');
    // A FORM field has no sub-options and no transfer.
    expect(await field.getByLabel('Transferir para a fila').count()).toBe(0);
    await field.getByText('Validar a resposta').click();
    expect(await field.getByLabel('Validar a resposta').isChecked()).toBe(true);
    await field.getByRole('combobox', { name: 'Validação' }).selectOption('email');
    await screenshot(page, 'queue-form-field-light-wide');
    await field.getByRole('button', { name: 'Salvar opção' }).click();
    const email = node(dialog, 'E-mail');
    await email.waitFor();
    expect(await email.locator('.qo-details').textContent()).toContain('Validação: E-mail');
    expect(await dialog.getByRole('button', { name: 'Adicionar sub-opção em E-mail' }).count()).toBe(0);
    await dialog.getByRole('button', { name: 'Cancelar' }).click();

    // What the server keeps is what the dialog showed.
    const tree = (await t.admin.get(`/queue-options?queueId=${vendas.id}&parentId=-1`)).body as { id: number; option: string; title: string; children: number }[];
    expect(tree.map((o) => [o.option, o.title, o.children])).toEqual([
      ['1', 'Planos', 2],
      ['2', 'Falar com atendente', 0],
    ]);
    const fields = (await t.admin.get(`/queue-options?queueId=${cadastro.id}&parentId=-1`)).body;
    expect(fields).toEqual([expect.objectContaining({ title: 'E-mail', fieldName: 'email', isValidationField: true, validation: 'email' })]);

    // Both queues on the sandbox connection, then customers write.
    const conn = await t.admin.put(`/whatsapp/${t.connectionId}`, { greetingMessage: 'Olá! Escolha:', queueIds: [vendas.id, cadastro.id] });
    expect(conn.status, JSON.stringify(conn.body)).toBe(200);
    const chat = (customer: string, name: string) => {
      const fromUs = async () => ((await sandbox<any[]>('GET', `/connections/${t.connectionId}/messages?peer=${customer}`)).body ?? []).filter((m) => m.fromMe).map((m) => m.body as string);
      return {
        write: (body: string) => sandbox('POST', `/connections/${t.connectionId}/messages`, { from: customer, name, body }),
        answered: (n: number) => until(async () => ((await fromUs()).length >= n ? fromUs() : undefined), `${n} answers on ${name}'s phone`, 30_000),
      };
    };
    const menu = 'Olá! Escolha:\n\n*[ 1 ]* - Vendas\n*[ 2 ]* - Cadastro';

    const joana = chat(randomPhone(), 'Joana Prado');
    await joana.write('Oi');
    expect((await joana.answered(1)).at(-1)).toBe(menu);
    await joana.write('1');
    expect((await joana.answered(2)).at(-1)).toBe('Bem-vindo às Vendas, Joana!\n\n*[ 1 ]* - Planos\n*[ 2 ]* - Falar com atendente\n*[ # ]* - Menu inicial');
    await joana.write('1');
    expect((await joana.answered(3)).at(-1)).toBe('Nossos planos:\n\n*[ 1 ]* - Mensal\n*[ 2 ]* - Anual\n*[ 0 ]* - Menu anterior\n*[ # ]* - Menu inicial');
    await joana.write('1');
    expect((await joana.answered(4)).at(-1)).toBe('R$ 99 por mês. Um vendedor já te atende.');

    const pedro = chat(randomPhone(), 'Pedro Lima');
    await pedro.write('Olá');
    expect((await pedro.answered(1)).at(-1)).toBe(menu);
    await pedro.write('2');
    expect((await pedro.answered(2)).at(-1)).toBe('Vamos ao seu cadastro.\n\nQual é o seu e-mail?');
    await pedro.write('pedro@');
    expect(await pedro.answered(3)).toHaveLength(3);
    expect((await pedro.answered(3)).at(-1)).toBe('Qual é o seu e-mail?');
    await pedro.write('pedro@exemplo.com.br');
    // Every field answered: the ticket moves to the form's next queue, which greets.
    expect((await pedro.answered(4)).at(-1)).toMatch(/^Bem-vindo às Vendas, Pedro!/);

    // The console: Joana's ticket, waiting in Vendas, with the bot's messages labelled.
    const pending = await t.admin.get(`/tickets?status=pending&showAll=true&queueIds=[${vendas.id}]`);
    const ticket = (pending.body.tickets as { id: number; uuid: string; contact: { name: string } }[]).find((x) => x.contact.name === 'Joana Prado')!;
    expect(ticket).toBeTruthy();
    await page.goto(`${web()}/tickets/${ticket.uuid}`);
    const list = page.getByTestId('message-list');
    const leaf = page.getByTestId('message').filter({ hasText: 'R$ 99 por mês. Um vendedor já te atende.' });
    await leaf.waitFor({ timeout: 20_000 });
    expect(await leaf.getByTestId('message-bot').textContent()).toBe('Bot');
    expect(await list.getByTestId('message-bot').count()).toBe(4);
    // The customer's own messages carry no label.
    expect(await page.getByTestId('message').filter({ hasText: /^Oi/ }).getByTestId('message-bot').count()).toBe(0);
    await screenshot(page, 'ticket-bot-messages-light-wide');
    // The taken number is the one refusal on the way.
    await done(page, ['409 POST /queue-options']);
  });

  it('settings: the Schedules tab follows scheduleType; the company week is edited and saved; the queue dialog gets its own hours with "queue"', { timeout: 180_000 }, async () => {
    const page = await signedIn();
    await page.goto(`${web()}/settings`);
    const scheduleType = page.getByRole('combobox', { name: 'Gerenciamento de Expediente' });
    await scheduleType.waitFor();
    expect(await scheduleType.isDisabled()).toBe(false);
    expect(await page.getByRole('tab', { name: 'Horários' }).count()).toBe(0);
    await scheduleType.selectOption('company');
    await page.getByText('Agendamento atualizado com sucesso.').waitFor();
    // No reload: the tab shows as soon as the type is saved.
    await page.getByRole('tab', { name: 'Horários' }).click();
    const week = page.getByTestId('company-schedules');
    await week.waitFor();
    const row = (day: string) => week.getByRole('group', { name: day });
    expect(await week.locator('.schedule-row').count()).toBe(7);
    // The default week: Monday-Friday 08:00-18:00, Saturday 08:00-12:00, Sunday closed.
    expect(await row('Segunda-feira').getByLabel('Segunda-feira: fim').inputValue()).toBe('18:00');
    expect(await row('Domingo').getByText('Fechado').count()).toBe(1);

    // The mask: four digits are HH:MM; a closing before the opening is refused under its row.
    await row('Segunda-feira').getByLabel('Segunda-feira: fim').fill('1730');
    expect(await row('Segunda-feira').getByLabel('Segunda-feira: fim').inputValue()).toBe('17:30');
    await row('Sábado').getByLabel('Sábado: fim').fill('0700');
    await week.getByRole('button', { name: 'Salvar' }).click();
    await row('Sábado').getByRole('alert').filter({ hasText: 'O horário final deve ser depois do inicial' }).waitFor();
    await screenshot(page, 'settings-schedules-error-light-wide');
    await row('Sábado').getByLabel('Sábado: fim').fill('13:00');
    await week.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Horários atualizados com sucesso.').waitFor();
    expect(await row('Sábado').getByRole('alert').count()).toBe(0);
    const company = (await t.admin.get(`/companies/${t.companyId}`)).body as { schedules: { weekdayEn: string; startTime: string; endTime: string }[] };
    expect(company.schedules.find((e) => e.weekdayEn === 'monday')).toMatchObject({ startTime: '08:00', endTime: '17:30' });
    expect(company.schedules.find((e) => e.weekdayEn === 'saturday')).toMatchObject({ startTime: '08:00', endTime: '13:00' });
    await screenshot(page, 'settings-schedules-light-wide');

    // Per queue: the Schedules tab leaves the settings (the Options tab shows) and enters the queue dialog.
    await page.getByRole('tab', { name: 'Opções' }).click();
    await scheduleType.selectOption('queue');
    await expect.poll(() => page.getByRole('tab', { name: 'Horários' }).count(), { timeout: 15_000 }).toBe(0);
    await page.goto(`${web()}/queues`);
    await page.getByRole('button', { name: 'Editar Vendas' }).click();
    const dialog = queueDialog(page);
    await dialog.getByLabel('Mensagem fora do expediente').fill('Estamos fora do horário, {{firstName}}. Voltamos às 8h.');
    await dialog.getByRole('tab', { name: 'Horários' }).click();
    await dialog.getByText('Clique em salvar para registrar as alterações dos horários.').waitFor();
    const hours = dialog.getByTestId('queue-schedules');
    await hours.getByLabel('Domingo: início').fill('0900');
    await hours.getByLabel('Domingo: fim').fill('1200');
    await screenshot(page, 'queue-dialog-schedules-light-wide');
    await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await page.getByText('Fila salva com sucesso').waitFor();
    const vendas = ((await t.admin.get('/queue')).body as { name: string; outOfHoursMessage: string; schedules: { weekdayEn: string; startTime: string; endTime: string }[] }[]).find((q) => q.name === 'Vendas')!;
    expect(vendas.outOfHoursMessage).toBe('Estamos fora do horário, {{firstName}}. Voltamos às 8h.');
    expect(vendas.schedules.find((e) => e.weekdayEn === 'sunday')).toMatchObject({ startTime: '09:00', endTime: '12:00' });
    await done(page);
    // Back to no business hours: the other tests of the file see the bot at any time.
    expect((await t.admin.put('/settings/scheduleType', { value: 'disabled' })).status).toBe(200);
  });

  it('a phone-sized console: the options tree and the company week fit', { timeout: 120_000 }, async () => {
    expect((await t.admin.put('/settings/scheduleType', { value: 'company' })).status).toBe(200);
    const page = await signedIn(NARROW);
    await page.goto(`${web()}/queues`);
    await page.getByRole('heading', { name: 'Filas & Chatbot' }).waitFor();
    await page.getByRole('button', { name: 'Editar Vendas' }).click();
    const dialog = queueDialog(page);
    await screenshot(page, 'queue-dialog-light-narrow');
    await dialog.getByRole('tab', { name: 'Opções do chatbot' }).click();
    await dialog.getByRole('button', { name: 'Mostrar as sub-opções de Planos' }).click();
    await node(dialog, 'Mensal').waitFor();
    await dialog.getByRole('button', { name: 'Editar Anual' }).click();
    await editor(dialog).waitFor();
    await screenshot(page, 'queue-options-light-narrow');
    // Nothing of the tree is wider than the dialog.
    const overflow = await dialog.locator('.queue-options').evaluate((el) => el.scrollWidth - el.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.keyboard.press('Escape');
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    await page.goto(`${web()}/settings`);
    await page.getByRole('tab', { name: 'Horários' }).click();
    await page.getByTestId('company-schedules').waitFor();
    await screenshot(page, 'settings-schedules-light-narrow');
    const weekOverflow = await page.getByTestId('company-schedules').evaluate((el) => el.scrollWidth - el.clientWidth);
    expect(weekOverflow).toBeLessThanOrEqual(0);
    await done(page);
    expect((await t.admin.put('/settings/scheduleType', { value: 'disabled' })).status).toBe(200);
  });
});
