import { generateKeyPairSync } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { maskKey } from '@balcao/shared';
import type { Locator, Page } from 'playwright-core';
import { NARROW, newContext, realtimeOpen, screenshot, closeWatched, watchedPage } from './support/browser.js';
import { browser, useBrowser, web } from './support/world.js';
import { createUser, tenant, tenantAndOtherAdmin, uniq } from './support/stack.js';

// Issue 19 (console side): the queue integrations page and dialog (spec 003), the AI prompts page
// and dialog (spec 002), the queue and connection dialogs' selectors, and the plan gate of both pages.

let t: Awaited<ReturnType<typeof tenant>>;
let otherAdmin: Awaited<ReturnType<typeof createUser>>;
/** A company whose plan has neither integrations nor AI prompts. */
let gated: Awaited<ReturnType<typeof tenant>>;

useBrowser();
beforeAll(async () => {
  ({ t, otherAdmin } = await tenantAndOtherAdmin());
  gated = await tenant({ planOverrides: { useIntegrations: false, useOpenAi: false } });
  // The first load of the console on a busy machine can pass the 30 s action timeout: warm it up.
  const ctx = await newContext(browser);
  const page = await ctx.newPage();
  await page.goto(`${web()}/login`);
  await page.getByLabel('Email', { exact: true }).waitFor({ timeout: 90_000 });
  await ctx.close();
}, 180_000);

const signedIn = (who: { email: string; password: string }, opts: Parameters<typeof watchedPage>[3] = {}) => watchedPage(browser, web(), who, opts);
const done = closeWatched;

/** A Google service account key file as Google hands it out (a fresh RSA key; never sent to Google here). */
function serviceAccount(project: string) {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return JSON.stringify(
    {
      type: 'service_account',
      project_id: project,
      private_key_id: 'f00dbabe1234567890abcdef',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      client_email: `balcao-bot@${project}.iam.gserviceaccount.com`,
      client_id: '109876543210987654321',
      token_uri: 'https://oauth2.googleapis.com/token',
    },
    null,
    2,
  );
}

const integrationDialog = (page: Page) => page.getByRole('dialog', { name: /^(Adicionar|Editar) integração$/ });
const rowOf = (page: Page, name: string) => page.locator('tbody tr', { hasText: name });
/** A toast's text (several of the same may stack up). */
const toastText = (page: Page, text: string) => page.locator('.toasts').getByText(text, { exact: true }).first();

interface StoredIntegration {
  id: number;
  type: string;
  name: string;
  projectName: string | null;
  jsonContent: string | null;
  language: string | null;
  urlN8N: string | null;
  typebotSlug: string | null;
  typebotExpires: number;
  typebotDelayMessage: number;
  typebotKeywordFinish: string | null;
}

async function listed(name: string): Promise<StoredIntegration> {
  const res = await otherAdmin.api.get(`/queueIntegration?searchParam=${encodeURIComponent(name.toLowerCase())}`);
  expect(res.status).toBe(200);
  const found = (res.body.queueIntegrations as StoredIntegration[]).filter((i) => i.name === name);
  expect(found).toHaveLength(1);
  return found[0];
}

async function save(page: Page, dialog: Locator, toast: string) {
  await dialog.getByRole('button', { name: 'OK', exact: true }).click();
  await toastText(page, toast).waitFor();
  await dialog.waitFor({ state: 'detached' });
}

describe('queue integrations page', () => {
  it('creates one integration of each type in the dialog, keeps the list live, searches, deletes, and an INTEGRATION queue names one', { timeout: 300_000 }, async () => {
    const page = await signedIn(t.admin);
    await page.goto(`${web()}/queue-integration`);
    await page.getByRole('heading', { name: 'Integrações (0)' }).waitFor();
    // The administration section offers both pages on this plan.
    await page.getByRole('link', { name: 'Integrações', exact: true }).waitFor();
    await page.getByRole('link', { name: 'Open.Ai', exact: true }).waitFor();
    const tag = uniq('').slice(-6);
    const names = { typebot: `Fluxo Alfa ${tag}`, n8n: `Automação Beta ${tag}`, webhook: `Gancho Gama ${tag}`, dialogflow: `Agente Delta ${tag}` };
    const dialog = integrationDialog(page);

    // Typebot, the default type, with the spec's defaults; the form's messages first.
    await page.getByRole('button', { name: 'Adicionar integração' }).click();
    const type = dialog.getByRole('combobox', { name: 'Tipo' });
    expect(await type.inputValue()).toBe('typebot');
    expect(await type.locator('option').allTextContents()).toEqual(['DialogFlow', 'N8N', 'WebHooks', 'Typebot']);
    expect(await dialog.getByLabel('Expirar a conversa após (minutos)').inputValue()).toBe('1');
    expect(await dialog.getByLabel('Intervalo entre mensagens (ms)').inputValue()).toBe('1000');
    await dialog.getByRole('button', { name: 'OK', exact: true }).click();
    await expect.poll(() => dialog.getByText('Obrigatório', { exact: true }).count(), { timeout: 10_000 }).toBe(3);
    await dialog.getByLabel('Nome', { exact: true }).fill('A');
    await dialog.getByLabel('Endereço (URL)').fill('ftp://typebot.example.test');
    await dialog.getByRole('button', { name: 'OK', exact: true }).click();
    await dialog.getByText('Muito curto!').waitFor();
    await dialog.getByText('URL inválida: use um endereço http ou https').waitFor();
    await dialog.getByLabel('Nome', { exact: true }).fill(names.typebot);
    await dialog.getByLabel('Endereço (URL)').fill('https://typebot.example.test');
    await dialog.getByLabel('Slug do Typebot').fill('atendimento-inicial');
    await dialog.getByLabel('Palavra para encerrar').fill('sair');
    await dialog.getByLabel('Palavra para reiniciar').fill('menu');
    await dialog.getByLabel('Mensagem de opção inválida').fill('Não entendi, escolha uma das opções.');
    await dialog.getByLabel('Mensagem ao reiniciar').fill('Vamos começar de novo.');
    await screenshot(page, 'integrations-dialog-typebot-light-wide');
    await save(page, dialog, 'Integração adicionada com sucesso.');
    await rowOf(page, names.typebot).waitFor();
    await page.getByRole('heading', { name: 'Integrações (1)' }).waitFor();
    expect(await listed(names.typebot)).toMatchObject({
      type: 'typebot',
      projectName: names.typebot,
      urlN8N: 'https://typebot.example.test',
      typebotSlug: 'atendimento-inicial',
      typebotExpires: 1,
      typebotDelayMessage: 1000,
      typebotKeywordFinish: 'sair',
    });

    // n8n and webhook: name and URL.
    for (const [ty, url] of [
      ['n8n', 'https://n8n.example.test/webhook/balcao'],
      ['webhook', 'http://hooks.example.test/entrada'],
    ] as const) {
      await page.getByRole('button', { name: 'Adicionar integração' }).click();
      await type.selectOption(ty);
      expect(await dialog.getByLabel('Slug do Typebot').count()).toBe(0);
      await dialog.getByLabel('Nome', { exact: true }).fill(names[ty]);
      await dialog.getByLabel('Endereço (URL)').fill(url);
      if (ty === 'n8n') await screenshot(page, 'integrations-dialog-n8n-light-wide');
      await save(page, dialog, 'Integração adicionada com sucesso.');
      await rowOf(page, names[ty]).waitFor();
      expect(await listed(names[ty])).toMatchObject({ type: ty, projectName: names[ty], urlN8N: url, typebotSlug: null });
    }

    // Dialogflow: language, project and the service account; Test is there (not pressed: no Google here).
    await page.getByRole('button', { name: 'Adicionar integração' }).click();
    await type.selectOption('dialogflow');
    expect(await dialog.getByLabel('Endereço (URL)').count()).toBe(0);
    await dialog.getByLabel('Nome', { exact: true }).fill(names.dialogflow);
    await dialog.getByLabel('JSON da conta de serviço').fill('{"type": "service_account"}');
    await dialog.getByRole('button', { name: 'OK', exact: true }).click();
    await dialog.getByText('JSON de conta de serviço do Google inválido').waitFor();
    await dialog.getByText('Obrigatório', { exact: true }).waitFor();
    await dialog.getByRole('combobox', { name: 'Idioma' }).selectOption('pt-BR');
    await dialog.getByLabel('Nome do projeto').fill('balcao-teste');
    await dialog.getByLabel('JSON da conta de serviço').fill(serviceAccount('balcao-teste'));
    await dialog.getByRole('button', { name: 'Testar' }).waitFor();
    await screenshot(page, 'integrations-dialog-dialogflow-light-wide');
    await save(page, dialog, 'Integração adicionada com sucesso.');
    const df = await listed(names.dialogflow);
    expect(df).toMatchObject({ type: 'dialogflow', projectName: 'balcao-teste', language: 'pt-BR', urlN8N: null });
    // The key never comes back: the JSON shows with its private key hidden.
    expect(JSON.parse(df.jsonContent!)).toMatchObject({ type: 'service_account', project_id: 'balcao-teste', private_key: '…' });
    await page.getByRole('heading', { name: 'Integrações (4)' }).waitFor();
    // Each row carries its type's badge.
    for (const [ty, name] of Object.entries(names)) expect(await rowOf(page, name).locator('.qi-logo').getAttribute('data-type')).toBe(ty);
    await screenshot(page, 'integrations-page-light-wide');

    // Editing keeps the stored key when the masked JSON is left as it is.
    await page.getByRole('button', { name: `Editar ${names.dialogflow}` }).click();
    expect(await dialog.getByLabel('JSON da conta de serviço').inputValue()).toBe(df.jsonContent);
    await dialog.getByText('A chave privada está guardada e oculta', { exact: false }).waitFor();
    // Test: the console's side only (Google is not asked here: the browser's request is answered
    // in place). The masked JSON goes with the integration's id, so the server uses the stored key.
    const tests: unknown[] = [];
    const answers = [
      { status: 400, body: { error: 'ERR_INTEGRATION_TEST_FAILED', message: 'As credenciais foram recusadas pelo Google (invalid_grant)', reason: 'credentials' } },
      { status: 200, body: { ok: true, intent: 'Default Welcome Intent', reply: 'Olá! Como posso ajudar?' } },
    ];
    await page.route('**/queueIntegration/testSession', async (route) => {
      tests.push(route.request().postDataJSON());
      const a = answers[tests.length - 1];
      await route.fulfill({ status: a.status, contentType: 'application/json', body: JSON.stringify(a.body) });
    });
    const result = dialog.getByTestId('integration-test-result');
    await dialog.getByRole('button', { name: 'Testar' }).click();
    await expect.poll(() => result.textContent(), { timeout: 10_000 }).toBe('O teste falhou: as credenciais foram recusadas pelo Google (invalid_grant)');
    await toastText(page, 'O teste da integração falhou.').waitFor();
    await dialog.getByRole('button', { name: 'Testar' }).click();
    await expect.poll(() => result.textContent(), { timeout: 10_000 }).toBe('Intenção: Default Welcome Intent\nResposta: Olá! Como posso ajudar?');
    await toastText(page, 'Sessão de teste iniciada com sucesso.').waitFor();
    expect(tests[0]).toEqual({ id: df.id, projectName: 'balcao-teste', jsonContent: df.jsonContent, language: 'pt-BR' });
    await page.unroute('**/queueIntegration/testSession');
    await screenshot(page, 'integrations-dialog-dialogflow-edit-light-wide');
    const renamed = `${names.dialogflow} Editado`;
    await dialog.getByLabel('Nome', { exact: true }).fill(renamed);
    await save(page, dialog, 'Integração editada com sucesso.');
    await rowOf(page, renamed).waitFor();
    expect((await otherAdmin.api.get(`/queueIntegration/${df.id}`)).body).toMatchObject({ name: renamed, jsonContent: df.jsonContent, projectName: 'balcao-teste' });

    // Made and deleted elsewhere: the list follows without a reload.
    await realtimeOpen(page);
    const elsewhere = await otherAdmin.api.post('/queueIntegration', { type: 'webhook', name: `Externa Épsilon ${tag}`, urlN8N: 'https://elsewhere.example.test/in' });
    expect(elsewhere.status).toBe(201);
    await page.getByTestId(`integration-row-${elsewhere.body.id}`).waitFor({ timeout: 15_000 });
    await page.getByRole('heading', { name: 'Integrações (5)' }).waitFor();
    expect((await otherAdmin.api.delete(`/queueIntegration/${elsewhere.body.id}`)).status).toBe(204);
    await expect.poll(() => page.getByTestId(`integration-row-${elsewhere.body.id}`).count(), { timeout: 15_000 }).toBe(0);

    // The search is lower-cased and starts again from the first page.
    const search = page.getByRole('searchbox');
    await search.fill('GAMA');
    await expect.poll(() => page.locator('tbody tr').count(), { timeout: 15_000 }).toBe(1);
    expect(await page.locator('tbody tr').textContent()).toContain(names.webhook);
    await search.fill('');
    await expect.poll(() => page.locator('tbody tr').count(), { timeout: 15_000 }).toBe(4);

    // An INTEGRATION queue needs its integration; the queue dialog lists them.
    await page.getByTestId('admin-section').getByRole('link', { name: 'Filas & Chatbot', exact: true }).click();
    await page.getByRole('heading', { name: 'Filas & Chatbot' }).waitFor();
    await page.getByRole('button', { name: 'Adicionar fila' }).click();
    const queueDialog = page.getByRole('dialog', { name: 'Adicionar fila' });
    const queueName = `Robô ${tag}`;
    await queueDialog.getByLabel('Nome', { exact: true }).fill(queueName);
    await queueDialog.getByRole('button', { name: 'Escolher a cor #00695c' }).click();
    await queueDialog.getByLabel('Mensagem de saudação').fill('Olá! Um robô vai te atender.');
    const queueType = queueDialog.getByRole('combobox', { name: 'Tipo' });
    expect(await queueType.locator('option[value="INTEGRATION"]').isDisabled()).toBe(false);
    expect(await queueType.locator('option[value="INTEGRATION"]').textContent()).toBe('Integração');
    await queueType.selectOption('INTEGRATION');
    const integrationSelect = queueDialog.getByRole('combobox', { name: 'Integração', exact: true });
    await expect.poll(() => integrationSelect.locator('option').count(), { timeout: 10_000 }).toBe(5);
    await queueDialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await queueDialog.getByText('Escolha a integração da fila').waitFor();
    await integrationSelect.selectOption({ label: names.typebot });
    await screenshot(page, 'queue-dialog-integration-light-wide');
    await queueDialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await toastText(page, 'Fila salva com sucesso').waitFor();
    const typebot = await listed(names.typebot);
    const queues = (await otherAdmin.api.get('/queue')).body as { name: string; type: string; integrationId: number | null }[];
    expect(queues.find((q) => q.name === queueName)).toMatchObject({ type: 'INTEGRATION', integrationId: typebot.id });

    // An integration in use is not deleted; another one is, after the confirmation naming it.
    await page.getByRole('link', { name: 'Integrações', exact: true }).click();
    await rowOf(page, names.typebot).waitFor();
    await page.getByRole('button', { name: `Excluir ${names.typebot}` }).click();
    await page.getByRole('dialog', { name: `Excluir a integração ${names.typebot}?` }).getByRole('button', { name: 'Confirmar' }).click();
    await toastText(page, 'Esta integração está em uso por uma fila ou conexão; retire-a de lá antes de excluí-la.').waitFor();
    expect((await otherAdmin.api.get(`/queueIntegration/${typebot.id}`)).status).toBe(200);
    await page.getByRole('button', { name: `Excluir ${names.n8n}` }).click();
    const confirm = page.getByRole('dialog', { name: `Excluir a integração ${names.n8n}?` });
    await confirm.getByText('Deseja realmente excluir esse registro?').waitFor();
    await screenshot(page, 'integrations-delete-light-wide');
    await confirm.getByRole('button', { name: 'Confirmar' }).click();
    await toastText(page, 'Integração excluída com sucesso.').waitFor();
    await expect.poll(() => rowOf(page, names.n8n).count(), { timeout: 10_000 }).toBe(0);
    await page.getByRole('heading', { name: 'Integrações (3)' }).waitFor();
    const n8n = (await otherAdmin.api.get(`/queueIntegration?searchParam=beta`)).body.queueIntegrations as unknown[];
    expect(n8n).toEqual([]);
    await done(page, ['400 POST /queueIntegration/testSession', '409 DELETE /queueIntegration/' + typebot.id]);

    // The narrow screen keeps the badges and the actions (the browser signs in as the admin again:
    // the other admin's API session must stay valid).
    // In English this time: every text of the page and dialog is in the catalogues.
    const narrow = await signedIn(t.admin, { viewport: NARROW, colorScheme: 'dark' });
    await narrow.evaluate(() => localStorage.setItem('language', 'en'));
    await narrow.goto(`${web()}/queue-integration`);
    await narrow.getByRole('heading', { name: 'Integrations (3)' }).waitFor();
    await screenshot(narrow, 'integrations-page-dark-narrow');
    await narrow.getByRole('button', { name: 'Add integration' }).click();
    const english = narrow.getByRole('dialog', { name: 'Add integration' });
    await english.getByRole('combobox', { name: 'Type' }).selectOption('dialogflow');
    await english.getByRole('combobox', { name: 'Language' }).waitFor();
    await english.getByText('The key file (JSON) of a Google service account', { exact: false }).waitFor();
    await screenshot(narrow, 'integrations-dialog-dark-narrow');
    await done(narrow);
  });
});

describe('AI prompts page', () => {
  it('refuses a prompt without a queue, saves one with a voice, shows its keys masked, keeps the list live and deletes with an info toast', { timeout: 240_000 }, async () => {
    const queue = await otherAdmin.api.post('/queue', { name: `Vendas IA ${uniq('').slice(-5)}`, color: '#7e57c2', greetingMessage: 'Olá!' });
    expect(queue.status).toBe(201);
    const page = await signedIn(t.admin);
    await page.goto(`${web()}/prompts`);
    await page.getByRole('heading', { name: 'Prompts de IA' }).waitFor();

    await page.getByRole('button', { name: 'Adicionar prompt' }).click();
    const dialog = page.getByRole('dialog', { name: 'Adicionar prompt' });
    // The spec's defaults, and the base of any OpenAI-compatible API.
    expect(await dialog.getByLabel('Máximo de tokens').inputValue()).toBe('100');
    expect(await dialog.getByLabel('Temperatura').inputValue()).toBe('1');
    expect(await dialog.getByLabel('Máximo de mensagens').inputValue()).toBe('10');
    expect(await dialog.getByLabel('URL base da API').inputValue()).toBe('https://api.openai.com/v1');
    await dialog.getByText('Qualquer API compatível com a da OpenAI serve', { exact: false }).waitFor();
    const voice = dialog.getByRole('combobox', { name: 'Responder com' });
    expect(await voice.inputValue()).toBe('texto');
    const voices = await voice.locator('option').allTextContents();
    expect(voices).toHaveLength(17);
    expect(voices.slice(0, 3)).toEqual(['Texto', 'Francisca (voz feminina)', 'Antonio (voz masculina)']);
    expect(await dialog.getByLabel('Chave do Azure Speech').count()).toBe(0);

    const name = `Assistente ${uniq('').slice(-5)}`;
    await dialog.getByLabel('Nome', { exact: true }).fill(name);
    await dialog.getByLabel('Prompt', { exact: true }).fill('Você é o assistente da loja. Responda em português, com gentileza.');
    await dialog.getByLabel('Chave da API').fill('sk-teste-0123456789abcdef');
    // A queue is mandatory: the message, and nothing saved.
    await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await dialog.getByText('Informe o setor').waitFor();
    expect((await otherAdmin.api.get('/prompt')).body.prompts).toEqual([]);

    await dialog.getByRole('combobox', { name: 'Setor' }).selectOption({ label: queue.body.name });
    await voice.selectOption('pt-BR-FranciscaNeural');
    await dialog.getByLabel('Chave do Azure Speech').fill('azure-speech-key-0123456789');
    await dialog.getByLabel('Região do Azure Speech').fill('brazilsouth');
    await screenshot(page, 'prompts-dialog-light-wide');
    await dialog.getByRole('button', { name: 'Salvar', exact: true }).click();
    await toastText(page, 'Prompt salvo com sucesso.').waitFor();
    const row = rowOf(page, name);
    await row.waitFor();
    expect(await row.textContent()).toContain(queue.body.name);
    expect(await row.textContent()).toContain('100');
    const stored = ((await otherAdmin.api.get('/prompt')).body.prompts as { id: number; name: string; apiKey: string; voiceKey: string; voice: string; queueId: number }[]).find((p) => p.name === name)!;
    expect(stored).toMatchObject({ apiKey: maskKey('sk-teste-0123456789abcdef'), voiceKey: maskKey('azure-speech-key-0123456789'), voice: 'pt-BR-FranciscaNeural', queueId: queue.body.id });

    // The edit shows the keys masked, says they are kept, and keeps them when left alone.
    await page.getByRole('button', { name: `Editar ${name}` }).click();
    const edit = page.getByRole('dialog', { name: 'Editar prompt' });
    expect(await edit.getByLabel('Chave da API').inputValue()).toBe(maskKey('sk-teste-0123456789abcdef'));
    expect(await edit.getByLabel('Chave do Azure Speech').inputValue()).toBe(maskKey('azure-speech-key-0123456789'));
    expect(await edit.getByText('A chave está guardada e oculta; digite uma nova para substituí-la.').count()).toBe(2);
    await edit.getByLabel('Máximo de tokens').fill('250');
    await screenshot(page, 'prompts-dialog-edit-light-wide');
    await edit.getByRole('button', { name: 'Salvar', exact: true }).click();
    await toastText(page, 'Prompt salvo com sucesso.').waitFor();
    await expect.poll(() => row.textContent(), { timeout: 10_000 }).toContain('250');
    expect((await otherAdmin.api.get(`/prompt/${stored.id}`)).body).toMatchObject({ maxTokens: 250, apiKey: maskKey('sk-teste-0123456789abcdef'), voiceKey: maskKey('azure-speech-key-0123456789') });

    // Made elsewhere: listed live; deleted here with the server's message as an info toast.
    await realtimeOpen(page);
    const other = await otherAdmin.api.post('/prompt', { name: `Outro ${name}`, prompt: 'Seja breve.', queueId: queue.body.id, apiKey: 'sk-outra-chave-987654321' });
    expect(other.status).toBe(201);
    await page.getByTestId(`prompt-row-${other.body.id}`).waitFor({ timeout: 15_000 });
    await screenshot(page, 'prompts-page-light-wide');
    await page.getByRole('button', { name: `Excluir Outro ${name}` }).click();
    await page.getByRole('dialog', { name: `Excluir o prompt Outro ${name}?` }).getByRole('button', { name: 'Confirmar' }).click();
    // Spec 002 §7: the delete's answer is a message, shown as an info toast.
    await page.locator('.toasts .toast-info', { hasText: 'Prompt excluído com sucesso!' }).first().waitFor();
    await expect.poll(() => page.getByTestId(`prompt-row-${other.body.id}`).count(), { timeout: 10_000 }).toBe(0);
    expect((await otherAdmin.api.get(`/prompt/${other.body.id}`)).status).toBe(404);

    // The connection dialog offers the company's prompts and integrations.
    await page.getByRole('link', { name: 'Conexões', exact: true }).click();
    await page.getByRole('button', { name: 'Adicionar conexão' }).click();
    const connection = page.getByRole('dialog', { name: 'Adicionar conexão' });
    const prompt = connection.getByRole('combobox', { name: 'Prompt (Open.Ai)' });
    await expect.poll(() => prompt.locator('option').allTextContents(), { timeout: 10_000 }).toEqual(['Nenhum', name]);
    expect(await prompt.isDisabled()).toBe(false);
    await connection.getByRole('combobox', { name: 'Integração', exact: true }).waitFor();
    await prompt.scrollIntoViewIfNeeded();
    await screenshot(page, 'connection-dialog-prompt-light-wide');
    await page.keyboard.press('Escape');

    // In Spanish: the page, the dialog and its voices.
    await page.evaluate(() => localStorage.setItem('language', 'es'));
    await page.goto(`${web()}/prompts`);
    await rowOf(page, name).waitFor();
    await page.getByRole('columnheader', { name: 'Máximo de tokens' }).waitFor();
    await page.getByRole('button', { name: 'Agregar prompt' }).click();
    const spanish = page.getByRole('dialog', { name: 'Agregar prompt' });
    await spanish.getByRole('combobox', { name: 'Responder con' }).selectOption('pt-BR-AntonioNeural');
    expect(await spanish.getByRole('combobox', { name: 'Responder con' }).locator('option:checked').textContent()).toBe('Antonio (voz masculina)');
    await spanish.getByLabel('Clave de Azure Speech').waitFor();
    await spanish.getByRole('button', { name: 'Guardar', exact: true }).click();
    await spanish.getByText('Indique el sector').waitFor();
    await screenshot(page, 'prompts-dialog-es-light-wide');
    await page.keyboard.press('Escape');
    await done(page);
  });
});

describe('plan gate', () => {
  it('sends a company without integrations and AI prompts home from both pages and hides their selectors', { timeout: 180_000 }, async () => {
    const page = await signedIn(gated.admin);
    const labels = await page.locator('nav.drawer a.nav-item').allTextContents();
    expect(labels).not.toContain('Integrações');
    expect(labels).not.toContain('Open.Ai');
    for (const path of ['/queue-integration', '/prompts']) {
      await page.goto(`${web()}${path}`);
      await toastText(page, 'Esta empresa não possui permissão para acessar essa página! Estamos lhe redirecionando.').waitFor();
      if (path === '/prompts') await screenshot(page, 'plan-gate-light-wide');
      await page.waitForURL((u) => u.pathname === '/', { timeout: 10_000 });
    }
    // The queue dialog offers no integration type and no prompt; the connection dialog neither.
    await page.getByTestId('admin-section').getByRole('link', { name: 'Filas & Chatbot', exact: true }).click();
    await page.getByRole('button', { name: 'Adicionar fila' }).click();
    const queueDialog = page.getByRole('dialog', { name: 'Adicionar fila' });
    const option = queueDialog.getByRole('combobox', { name: 'Tipo' }).locator('option[value="INTEGRATION"]');
    expect(await option.isDisabled()).toBe(true);
    expect(await option.textContent()).toBe('Integração (fora do plano)');
    expect(await queueDialog.getByRole('combobox', { name: 'Prompt (Open.Ai)' }).count()).toBe(0);
    await page.keyboard.press('Escape');
    await page.getByRole('link', { name: 'Conexões', exact: true }).click();
    await page.getByRole('button', { name: 'Adicionar conexão' }).click();
    const connection = page.getByRole('dialog', { name: 'Adicionar conexão' });
    await connection.getByLabel('Nome', { exact: true }).waitFor();
    expect(await connection.getByRole('combobox', { name: 'Prompt (Open.Ai)' }).count()).toBe(0);
    expect(await connection.getByRole('combobox', { name: 'Integração', exact: true }).count()).toBe(0);
    await page.keyboard.press('Escape');
    // Nothing asked the routes the plan refuses.
    await done(page);
  });
});
