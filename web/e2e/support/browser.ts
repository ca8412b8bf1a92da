import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

export const SCREENSHOT_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'screenshots');

export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean) as string[];
  const found = candidates.find((p) => fs.existsSync(p));
  if (!found) throw new Error('Chromium not found: apt-get install -y chromium (or set CHROMIUM_PATH)');
  return found;
}

/** `extraArgs`: flags of one test file (e.g. the fake microphone of the conversation tests). */
export const launch = (extraArgs: string[] = []): Promise<Browser> =>
  chromium.launch({ executablePath: chromiumPath(), headless: true, args: [...CHROMIUM_ARGS, ...extraArgs] });

/** A fake microphone that always allows: MediaRecorder gets a real (synthetic) audio track. */
export const FAKE_MEDIA_ARGS = ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'];

export const WIDE = { width: 1366, height: 800 };
export const NARROW = { width: 400, height: 800 };

export async function newContext(browser: Browser, opts: { viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark' } = {}): Promise<BrowserContext> {
  return browser.newContext({ viewport: opts.viewport ?? WIDE, colorScheme: opts.colorScheme ?? 'light', locale: 'pt-BR' });
}

/** Signs in through the console's own form and waits for the shell. */
export async function signInUi(page: Page, webUrl: string, email: string, password: string, path = '/login') {
  await page.goto(webUrl + path);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Senha', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await page.getByTestId('greeting').waitFor({ timeout: 20_000 });
}

/**
 * The console's realtime socket is open. Its first open reloads what the page shows, so a test
 * that holds or counts frames waits for it first.
 */
export const realtimeOpen = (page: Page, timeout = 20_000) => page.locator('html[data-realtime="open"]').waitFor({ state: 'attached', timeout });

export async function screenshot(page: Page, name: string) {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.waitForTimeout(250);
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
}

/** Saves the open `dialog`, waits for the saved toast, and answers the table row that shows `rowText`. */
export async function saveDialog(page: Page, dialog: Locator, savedText: string, rowText: string): Promise<Locator> {
  await dialog.getByRole('button', { name: 'Salvar' }).click();
  await page.getByText(savedText).waitFor();
  const row = page.locator('tr', { hasText: rowText });
  await row.waitFor();
  return row;
}

/** What went wrong on a watched page: uncaught errors, console errors, 4xx/5xx answers. */
const trouble = new WeakMap<Page, string[]>();

/** A new page signed in as `who`, whose trouble is collected for `closeWatched`. */
export async function watchedPage(browser: Browser, webUrl: string, who: { email: string; password: string }, opts: Parameters<typeof newContext>[1] = {}): Promise<Page> {
  const ctx = await newContext(browser, opts);
  // The shared test machine can be far beyond its two cores: actions get more room than 30 s.
  ctx.setDefaultTimeout(50_000);
  const page = await ctx.newPage();
  const seen: string[] = [];
  trouble.set(page, seen);
  page.on('console', (m) => m.type() === 'error' && seen.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => seen.push(`pageerror: ${e.message}`));
  page.on('response', (r) => r.status() >= 400 && seen.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`));
  await signInUi(page, webUrl, who.email, who.password);
  return page;
}

/** Closes a watched page, expecting no trouble on it but the answers `expected` (refusals the test provokes). */
export async function closeWatched(page: Page, expected: string[] = []) {
  const seen = trouble.get(page) ?? [];
  expect(seen.filter((x) => !x.startsWith('console: Failed to load resource'))).toEqual(expected);
  await page.context().close();
}

/**
 * Watches for `text` to appear anywhere in the page, even for a moment: a toast shown just before a
 * reload, or a 2-second toast, can vanish between two polls of a locator on a loaded machine. The
 * observer is installed in the current document and every one the page loads; the returned function waits.
 */
export async function watchText(page: Page, text: string): Promise<(timeout?: number) => Promise<void>> {
  const binding = `__seen_${Math.random().toString(36).slice(2)}`;
  let seen!: () => void;
  const appeared = new Promise<void>((resolve) => (seen = resolve));
  await page.exposeBinding(binding, () => seen());
  // A script string: this file is also type-checked without the DOM's types. Installed in the
  // current document too, when the page already shows one.
  const observer =
    `(() => { const check = () => document.body && document.body.innerText.includes(${JSON.stringify(text)}) && window[${JSON.stringify(binding)}]();` +
    ' new MutationObserver(check).observe(document, { subtree: true, childList: true, characterData: true }); })();';
  await page.addInitScript(observer);
  if (page.url().startsWith('http')) await page.evaluate(observer);
  return (timeout = 30_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`'${text}' never appeared within ${timeout} ms`)), timeout);
      void appeared.then(() => (clearTimeout(timer), resolve()));
    });
}
