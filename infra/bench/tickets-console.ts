/**
 * Console figures of the tickets benchmark, in Chromium: time from navigation to the first ticket
 * row on /tickets and to an opened conversation's messages on /tickets/{uuid} (signed in, empty
 * HTTP cache = a returning user's first visit of the day; then again with the cache warm), and the
 * JavaScript the login + /tickets first load fetches, gzipped here (the local server does not
 * compress; CloudFront does).
 */
import fs from 'node:fs';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { summarize } from './client.js';

/** The flags of the repository's browser tests (web/e2e/support/browser.ts). */
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
const ROW = '[data-testid^="ticket-row-"]';
const MESSAGE = '[data-testid="message"]';

function chromiumPath() {
  const found = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && fs.existsSync(p));
  if (!found) throw new Error('Chromium not found: apt-get install -y chromium (or set CHROMIUM_PATH)');
  return found;
}

/**
 * Marks, in page time (ms since the navigation started), the frame after the first ticket row and
 * the first message entered the DOM: what the user sees.
 */
const MARKS = `(() => {
  const marks = (window.__benchMarks = {});
  const check = () => {
    for (const [k, sel] of [['row', '${ROW}'], ['message', '${MESSAGE}']]) {
      if (marks[k] === undefined && marks[k + 'Seen'] === undefined && document.querySelector(sel)) {
        marks[k + 'Seen'] = performance.now();
        requestAnimationFrame(() => (marks[k] = performance.now()));
      }
    }
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true });
})();`;

async function signIn(page: Page, webUrl: string, email: string, password: string) {
  await page.goto(`${webUrl}/login`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Senha', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await page.getByTestId('greeting').waitFor({ timeout: 60_000 });
}

async function timeTo(page: Page, url: string, mark: 'row' | 'message', selector: string) {
  await page.goto(url);
  await page.locator(selector).first().waitFor({ timeout: 60_000 });
  const ms = await page.waitForFunction((k) => (globalThis as unknown as { __benchMarks: Record<string, number> }).__benchMarks[k], mark, { timeout: 10_000 });
  return Math.round(((await ms.jsonValue()) as number) * 10) / 10;
}

export interface ConsoleOptions {
  webUrl: string;
  email: string;
  password: string;
  /** A ticket of that user with messages (uuid). */
  ticket: string;
  runs: number;
  log: (line: string) => void;
}

export async function consoleBench(o: ConsoleOptions) {
  const browser: Browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: CHROMIUM_ARGS });
  try {
    // First load: the login page, signing in, then /tickets; every script fetched on the way.
    const first = await browser.newContext({ viewport: { width: 1366, height: 800 }, locale: 'pt-BR' });
    const page = await first.newPage();
    const scripts = new Map<string, { raw: number; gzip: number; phase: string }>();
    let phase = 'login';
    const pending: Promise<void>[] = [];
    page.on('response', (res) => {
      const type = res.headers()['content-type'] ?? '';
      if (!/javascript/.test(type) || scripts.has(res.url())) return;
      const at = phase;
      pending.push(
        res
          .body()
          .then((b) => void scripts.set(res.url(), { raw: b.length, gzip: gzipSync(b, { level: 9 }).length, phase: at }))
          .catch(() => {}),
      );
    });
    await signIn(page, o.webUrl, o.email, o.password);
    phase = 'tickets';
    await page.goto(`${o.webUrl}/tickets`);
    await page.locator(ROW).first().waitFor({ timeout: 60_000 });
    // Chunks the page loads right after its first render count too (the socket and polling keep
    // the network from ever being idle, so a short settle instead of 'networkidle').
    await page.waitForTimeout(2000);
    await Promise.all(pending);
    const storage = await first.storageState();
    await first.close();
    const kb = (n: number) => Math.round((n / 1024) * 10) / 10;
    const sum = (f: (s: { raw: number; gzip: number; phase: string }) => boolean, k: 'raw' | 'gzip') =>
      [...scripts.values()].filter(f).reduce((a, s) => a + s[k], 0);
    const javascript = {
      files: scripts.size,
      gzipKB: kb(sum(() => true, 'gzip')),
      rawKB: kb(sum(() => true, 'raw')),
      loginPageGzipKB: kb(sum((s) => s.phase === 'login', 'gzip')),
      method: 'every JavaScript response of a fresh browser context from /login through signing in (which lands on the home page) to the first ticket row on /tickets and 2 s after (unique URLs), each body gzipped at level 9 here',
      largest: [...scripts.entries()]
        .sort((a, b) => b[1].gzip - a[1].gzip)
        .slice(0, 5)
        .map(([url, s]) => ({ file: new URL(url).pathname, gzipKB: kb(s.gzip) })),
    };
    o.log(`console: first-load JavaScript ${javascript.gzipKB} KB gzip in ${javascript.files} files`);

    // Navigation timings, signed in: a fresh context (empty cache) each run, then a reload (warm).
    const fresh = async () => {
      const ctx: BrowserContext = await browser.newContext({ viewport: { width: 1366, height: 800 }, locale: 'pt-BR', storageState: storage });
      await ctx.addInitScript(MARKS);
      return ctx;
    };
    const listCold: number[] = [];
    const listWarm: number[] = [];
    const convCold: number[] = [];
    const convWarm: number[] = [];
    for (let i = 0; i < o.runs; i++) {
      const a = await fresh();
      const p = await a.newPage();
      listCold.push(await timeTo(p, `${o.webUrl}/tickets`, 'row', ROW));
      listWarm.push(await timeTo(p, `${o.webUrl}/tickets`, 'row', ROW));
      await a.close();
      const b = await fresh();
      const q = await b.newPage();
      convCold.push(await timeTo(q, `${o.webUrl}/tickets/${o.ticket}`, 'message', MESSAGE));
      convWarm.push(await timeTo(q, `${o.webUrl}/tickets/${o.ticket}`, 'message', MESSAGE));
      await b.close();
    }
    o.log(`console: first ticket row ${summarize(listCold).p50} ms (cold) / ${summarize(listWarm).p50} ms (warm); conversation ${summarize(convCold).p50} / ${summarize(convWarm).p50} ms`);
    return {
      javascript,
      firstTicketRow: { coldCache: summarize(listCold), warmCache: summarize(listWarm) },
      openedConversation: { coldCache: summarize(convCold), warmCache: summarize(convWarm) },
      method: `${o.runs} runs each, signed in (stored session); ms from navigation start to the animation frame after the first ${ROW} / ${MESSAGE} entered the DOM; cold = new browser context (empty HTTP cache), warm = the same page loaded again`,
    };
  } finally {
    await browser.close();
  }
}
