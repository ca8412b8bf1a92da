import { describe, expect, it } from 'vitest';
import { applyStackEnv, endpoints, member, PASSWORD } from '../../functions/test/integration/client.js';
import { customer, waMessageId, world } from '../../functions/test/integration/tickets-helpers.js';
import { newContext, realtimeOpen, screenshot, signInUi } from './support/browser.js';
import { browser, useBrowser, web } from './support/world.js';

// Issue 4 §3: a long conversation stays light — only loaded pages exist, and the virtualizer keeps
// the DOM to the rows in view however many are loaded; older pages load at the top without a jump.

const TOTAL = 400;

/**
 * A ticket whose conversation is 'mensagem 1' then `bodyOf(i)` for i = 2…total, a minute apart and
 * ending now, and an admin agent who sees it.
 */
async function conversation(agentName: string, total: number, bodyOf: (i: number) => string = (i) => `mensagem ${i}`) {
  const w = await world();
  const agent = await member(w.admin, { name: agentName, profile: 'admin', allTicket: 'enabled', queueIds: [w.q1] });
  const c = await customer(w.companyId, w.connectionId, { text: 'mensagem 1' });
  applyStackEnv();
  const { storeMessage } = await import('../../functions/src/services/messages.js');
  const { getTicketItem } = await import('../../functions/src/services/tickets.js');
  let ticket = await getTicketItem(w.companyId, c.ticketId);
  const start = Date.now() - total * 60_000;
  for (let i = 2; i <= total; i++) {
    const stored = await storeMessage(ticket, { id: waMessageId('L'), body: bodyOf(i), fromMe: i % 3 === 0, ack: 3, createdAt: new Date(start + i * 60_000).toISOString(), unread: false });
    ticket = stored!.ticket;
  }
  return { agent, ticketId: c.ticketId, ticket };
}

useBrowser();

describe('long conversation', () => {
  it('loads older pages near the top keeping the view, renders a bounded number of rows', { timeout: 240_000 }, async () => {
    const { agent, ticketId } = await conversation('Leitor Longo', TOTAL, (i) => (i % 7 === 0 ? `mensagem ${i}\ncom *duas* linhas\ne uma terceira` : `mensagem ${i}`));

    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signInUi(page, web(), agent.email, PASSWORD);
    await page.goto(`${web()}/tickets/${ticketId}`);
    const list = page.getByTestId('message-list');
    // The newest message is in view at the bottom.
    await page.locator('.msg-text', { hasText: new RegExp(`^mensagem ${TOTAL}$`) }).waitFor({ timeout: 40_000 });
    // A failure shows where the list stood.
    const lastInView = () =>
      list.evaluate((el, text) => {
        const last = [...el.querySelectorAll<HTMLElement>('.msg-text')].find((m) => m.textContent === text);
        const box = el.getBoundingClientRect();
        const r = last?.closest('.msg-bubble')?.getBoundingClientRect();
        // A few pixels of the bubble's margin may sit under the edge: the message itself is in view.
        const inView = !!r && r.top >= box.top && r.bottom <= box.bottom + 4;
        return { inView, scrollTop: el.scrollTop, scrollHeight: el.scrollHeight, clientHeight: el.clientHeight, bubble: r ? [r.top, r.bottom] : null, box: [box.top, box.bottom] };
      }, `mensagem ${TOTAL}`);
    // The first rows are measured after they render (estimates first): give a loaded machine time to settle.
    let state = await lastInView();
    for (const until = Date.now() + 10_000; !state.inView && Date.now() < until; state = await lastInView()) await page.waitForTimeout(200);
    expect(state.inView, JSON.stringify(state)).toBe(true);

    // The reader scrolls: a wheel event, then the position (what a wheel turn ends at).
    const userScroll = (top: number) =>
      list.evaluate((el, to) => {
        el.dispatchEvent(new WheelEvent('wheel', { bubbles: true, deltaY: -100 }));
        el.scrollTop = to;
      }, top);
    const loadedIds = () => page.evaluate(() => document.querySelectorAll('[data-testid="message"]').length);
    let maxRendered = 0;
    // Scroll to the top page after page; each time the first visible message stays in view.
    for (let round = 0; round < 10; round++) {
      // Near the top but outside the 50 px band: note the first visible message.
      await userScroll(120);
      await page.waitForTimeout(300);
      const before = await list.evaluate((el) => {
        const top = el.getBoundingClientRect().top;
        const first = [...el.querySelectorAll<HTMLElement>('[data-testid="message"]')].find((m) => m.getBoundingClientRect().top >= top);
        return first?.dataset.messageId ?? '';
      });
      expect(before).not.toBe('');
      // Into the band: the older page lands above, the view does not move.
      await userScroll(20);
      await expect.poll(() => list.evaluate((el) => el.scrollTop), { timeout: 10_000 }).toBeGreaterThan(200);
      await expect
        .poll(
          () =>
            list.evaluate((el, id) => {
              const m = el.querySelector<HTMLElement>(`[data-message-id="${id}"]`);
              if (!m) return false;
              const r = m.getBoundingClientRect();
              const box = el.getBoundingClientRect();
              return r.bottom > box.top && r.top < box.bottom;
            }, before),
          { timeout: 10_000 },
        )
        .toBe(true);
      maxRendered = Math.max(maxRendered, await loadedIds());
    }
    // 11 pages of 20 are loaded by now (the list is that tall), yet only the rows around the view are in the DOM.
    expect(maxRendered).toBeLessThan(60);
    const scrollHeight = await list.evaluate((el) => el.scrollHeight);
    expect(scrollHeight).toBeGreaterThan(10 * 20 * 40);
    await screenshot(page, 'conversation-long-light-wide');
    await ctx.close();
  });
  it('follows arriving messages to the very bottom on a slow CPU, and leaves a reader who scrolled up in place', { timeout: 180_000 }, async () => {
    const long = 'com duas linhas e um texto comprido o bastante para quebrar a linha do balão da conversa em duas ou três';
    const seeded = await conversation('Leitor Lento', 31, (i) => (i % 5 === 0 ? `mensagem ${i}\n${long}` : `mensagem ${i}`));
    const { agent, ticketId } = seeded;
    let { ticket } = seeded;
    const { storeMessage, publishNewMessage } = await import('../../functions/src/services/messages.js');
    /** A customer's message as the inbound pipeline stores and announces it. */
    const arrives = async (body: string) => {
      const stored = (await storeMessage(ticket, { id: waMessageId('S'), body, fromMe: false, ack: 0, createdAt: new Date().toISOString(), unread: true }))!;
      ticket = stored.ticket;
      await publishNewMessage(stored.message, ticket, undefined);
    };

    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signInUi(page, web(), agent.email, PASSWORD);
    await page.goto(`${web()}/tickets/${ticketId}`);
    const list = page.getByTestId('message-list');
    await page.locator('.msg-text', { hasText: /^mensagem 31$/ }).waitFor({ timeout: 40_000 });
    const distance = () => list.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
    await expect.poll(distance, { timeout: 10_000 }).toBeLessThan(1);
    // Six times slower from here: new rows are measured late, frames after they render (a busy office PC).
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 6 });

    // Messages of several lines arrive one after another: the view ends at the very bottom, end padding included.
    for (let k = 1; k <= 4; k++) await arrives(k % 2 ? `nova ${k}\n${long}` : `nova ${k}`);
    await page.locator('.msg-text', { hasText: /^nova 4$/ }).waitFor({ timeout: 30_000 });
    await expect.poll(distance, { timeout: 10_000 }).toBeLessThan(1);

    // A reader more than 500 px up (spec 001: auto-scroll only within 500 px) stays where they are.
    await list.evaluate((el) => {
      el.dispatchEvent(new WheelEvent('wheel', { bubbles: true, deltaY: -100 }));
      el.scrollTop = 80;
    });
    await expect.poll(distance, { timeout: 5_000 }).toBeGreaterThan(500);
    const top = await list.evaluate((el) => el.scrollTop);
    const height = await list.evaluate((el) => el.scrollHeight);
    await arrives('nova 5');
    // It landed below (out of view, so not rendered): the list grew.
    await expect.poll(() => list.evaluate((el) => el.scrollHeight), { timeout: 30_000 }).toBeGreaterThan(height);
    await page.waitForTimeout(1000);
    expect(Math.abs((await list.evaluate((el) => el.scrollTop)) - top)).toBeLessThan(2);
    expect(await distance()).toBeGreaterThan(500);
    await ctx.close();
  });

  it('a reader who reaches the top while the newest page is read again (the socket reopened) still gets the older page', { timeout: 180_000 }, async () => {
    const { agent, ticketId } = await conversation('Leitor Apressado', 60);

    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    // The console's socket passes through here, so the test can cut it.
    let pageSide: { close: (o?: { code?: number }) => Promise<void> } | undefined;
    await page.routeWebSocket(
      (url) => url.toString().startsWith(endpoints().wsUrl),
      (ws) => {
        ws.connectToServer();
        pageSide = ws;
      },
    );
    await signInUi(page, web(), agent.email, PASSWORD);
    await page.goto(`${web()}/tickets/${ticketId}`);
    const list = page.getByTestId('message-list');
    await page.locator('.msg-text', { hasText: /^mensagem 60$/ }).waitFor({ timeout: 40_000 });
    await realtimeOpen(page);
    await page.waitForTimeout(500);

    // The socket drops; once it is back the console reads the newest page again, held here for 3 s.
    let held!: () => void;
    const holding = new Promise<void>((r) => (held = r));
    let armed = true;
    await page.route(
      (url) => url.pathname === `/messages/${ticketId}` && url.searchParams.get('pageNumber') === '1',
      async (route) => {
        if (!armed) return route.continue();
        armed = false;
        held();
        await new Promise((r) => setTimeout(r, 3000));
        await route.continue();
      },
    );
    await pageSide!.close({ code: 1001 });
    await holding;
    // Meanwhile the reader goes up into the top band (a wheel turn, then its position).
    await list.evaluate((el) => {
      el.dispatchEvent(new WheelEvent('wheel', { bubbles: true, deltaY: -100 }));
      el.scrollTop = 20;
    });
    expect(await list.evaluate((el) => el.scrollTop)).toBe(20);
    // When that page is in, the older one loads above without another scroll, and the view stays.
    await expect.poll(() => list.evaluate((el) => el.scrollTop), { timeout: 20_000 }).toBeGreaterThan(200);
    const inView = (text: string) =>
      list.evaluate((el, t) => {
        const m = [...el.querySelectorAll<HTMLElement>('.msg-text')].find((x) => x.textContent === t);
        const r = m?.getBoundingClientRect();
        const box = el.getBoundingClientRect();
        return !!r && r.bottom > box.top && r.top < box.bottom;
      }, text);
    expect(await inView('mensagem 41')).toBe(true);
    await ctx.close();
  });
});
