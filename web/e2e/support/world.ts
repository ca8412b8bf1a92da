import { afterAll, beforeAll } from 'vitest';
import type { Browser } from 'playwright-core';
import { connected } from '../../../functions/test/integration/pipeline-helpers.js';
import { endpoints } from '../../../functions/test/integration/client.js';
import { launch } from './browser.js';

export type ConnectedCompany = Awaited<ReturnType<typeof connected>>;

/**
 * The world of most browser test files: one Chromium and one company with a connected sandbox
 * connection, made before the file's tests (handed to `ready`) and closed after them.
 */
export function browserAndCompany(ready: (browser: Browser, company: ConnectedCompany) => void, launchArgs: string[] = []) {
  let browser: Browser | undefined;
  let company: ConnectedCompany | undefined;
  beforeAll(async () => {
    browser = await launch(launchArgs);
    company = await connected();
    ready(browser, company);
  });
  afterAll(async () => {
    company?.ws.close();
    await browser?.close();
  });
}

/** A random customer number (country 55, area `area`, 9 digits): each test's own phone in the sandbox. */
export const randomPhone = (area = '11') => `55${area}9${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;

/** The browser of this test file (`useBrowser`, `connectedWorld`), set before its tests run. */
export let browser: Browser;
/** The company of `connectedWorld`, set before the file's tests run. */
export let company: ConnectedCompany;

/** One Chromium for the test file: launched before its tests, closed after them. */
export function useBrowser(launchArgs: string[] = []) {
  beforeAll(async () => {
    browser = await launch(launchArgs);
  });
  afterAll(async () => {
    await browser?.close();
  });
}

/** `browserAndCompany` into the `browser` and `company` bindings. */
export function connectedWorld(launchArgs: string[] = []) {
  browserAndCompany((b, c) => {
    browser = b;
    company = c;
  }, launchArgs);
}

export const web = () => endpoints().webUrl;
