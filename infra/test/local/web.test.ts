import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { settlingLog } from '../../local/http-util.js';
import { runBuild } from '../../local/web.js';
import { endpoints } from '../support/index.js';

/* The console's files as the local stack serves them (issue 14 §9), and what building it prints. */
describe('local web server', () => {
  it('serves the icon and the web manifest the page links, with their content types', async () => {
    const web = endpoints().webUrl;
    const page = await (await fetch(`${web}/`)).text();
    expect(page).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml" />');
    expect(page).toContain('<link rel="manifest" href="/manifest.webmanifest" />');

    const icon = await fetch(`${web}/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await icon.text()).toMatch(/^<svg [^>]*viewBox="0 0 64 64"/);

    const res = await fetch(`${web}/manifest.webmanifest`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/manifest+json');
    const manifest = (await res.json()) as { name: string; start_url: string; icons: { src: string; type: string }[] };
    expect(manifest).toMatchObject({ name: 'Balcão', start_url: '/' });
    expect(manifest.icons.length).toBeGreaterThan(0);
    for (const i of manifest.icons) {
      const r = await fetch(new URL(i.src, web));
      expect(r.status, i.src).toBe(200);
      expect(r.headers.get('content-type')).toBe(i.type);
    }
  });
});

describe('start-up output', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('builds the console printing one summary line, not the chunk listing; the sign-in page loads no zod', { timeout: 180_000 }, async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-web-build-'));
    try {
      const lines: string[] = [];
      await runBuild((part, line) => lines.push(`[${part}] ${line}`), out);
      expect(fs.existsSync(path.join(out, 'index.html'))).toBe(true);
      expect(fs.existsSync(path.join(out, 'favicon.svg'))).toBe(true);
      expect(lines[0]).toBe('[web] building the console (vite)…');
      expect(lines.at(-1)).toMatch(/^\[web\] built in \d+\.\d s: \d+ scripts and \d+ stylesheets, \d+ kB in /);
      // No chunk listing in between (a vite warning may be, and should be, shown).
      expect(lines.filter((l) => /\bassets\/|\.js\s+\d/.test(l))).toEqual([]);
      expect(lines.length).toBeLessThan(10);

      // The sign-in page's scripts (the entry and what it preloads) carry no zod: schema modules
      // load with the pages that have forms (architecture.md, "First load"). A shared text
      // imported from a schema module once added 25 KB gzip here.
      const html = fs.readFileSync(path.join(out, 'index.html'), 'utf8');
      const scripts = [...html.matchAll(/<(?:script[^>]*\ssrc|link rel="modulepreload"[^>]*\shref)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]);
      expect(scripts.length).toBeGreaterThan(2);
      const withZod = scripts.filter((f) => /\$ZodType|\b_zod\b/.test(fs.readFileSync(path.join(out, f), 'utf8')));
      expect(withZod).toEqual([]);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });

  it('waits for the log to go quiet, at most for the longest wait, before the banner', async () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    const out = settlingLog((_part, line) => lines.push(line));
    let settled = false;
    const done = out.settled(1500, 15_000).then(() => (settled = true));
    // The session host takes its shards a moment after the stack is up.
    await vi.advanceTimersByTimeAsync(1000);
    out.log('session-host', 'lease taken');
    await vi.advanceTimersByTimeAsync(1000);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(600);
    await done;
    expect(settled).toBe(true);
    expect(lines).toEqual(['lease taken']);

    // A part that never stops talking does not hold the banner back for ever.
    const chatty = setInterval(() => out.log('sweeper', 'tick'), 500);
    const started = Date.now();
    const bounded = out.settled(1500, 15_000);
    await vi.advanceTimersByTimeAsync(15_000);
    await bounded;
    expect(Date.now() - started).toBe(15_000);
    clearInterval(chatty);
  });
});
