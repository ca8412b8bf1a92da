import type { SessionContext } from '../../provider.js';

const ADDRESS_BOOK_KEY = 'addressbook';
const ADDRESS_BOOK_SAVE_MS = 5_000;

/**
 * The names the phone's owner saved for contacts (number → name), learned from contact and history
 * events. Kept in the session's auth store so the next session has them before WhatsApp resends them.
 * One JSON value however many contacts: past the item limit (about 8 000 names) the store keeps it
 * in chunks and swaps them in at once (host/auth-store.ts).
 */
export class AddressBook {
  private map?: Map<string, string>;
  private timer?: NodeJS.Timeout;
  /** Names learned since the last save that landed. */
  private dirty = false;
  /** Saves run one after another, so an older book never lands after a newer one. */
  private saving: Promise<void> = Promise.resolve();

  constructor(private readonly ctx: SessionContext) {}

  async load(): Promise<void> {
    if (this.map) return;
    const text = await this.ctx.auth.get(ADDRESS_BOOK_KEY);
    this.map = new Map(text ? (Object.entries(JSON.parse(text)) as [string, string][]) : []);
  }

  add(number: string, name: string): void {
    const book = (this.map ??= new Map());
    if (book.get(number) === name) return;
    book.set(number, name);
    this.dirty = true;
    this.schedule();
  }

  /** Contacts arrive in bursts (app state sync): one write per burst. */
  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // A failed save is tried again with the next burst's timer, so no name waits for a new contact.
      void this.save().then((ok) => ok || this.schedule());
    }, ADDRESS_BOOK_SAVE_MS);
    this.timer.unref?.();
  }

  /**
   * Writes the names not saved yet (the burst timer, and the session stopping). Never rejects: the
   * address book must not keep a session from stopping; `false` tells that the write failed.
   */
  save(): Promise<boolean> {
    const run = this.saving.then(() => this.write());
    this.saving = run.then(() => undefined);
    return run;
  }

  private async write(): Promise<boolean> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.dirty || !this.map) return true;
    this.dirty = false;
    const map = this.map;
    try {
      await this.ctx.auth.set({ [ADDRESS_BOOK_KEY]: JSON.stringify(Object.fromEntries(map)) });
      return true;
    } catch (err) {
      // Still unsaved, unless the book was reset (wiped) meanwhile.
      if (this.map === map) this.dirty = true;
      this.ctx.log.warn({ err }, 'baileys: address book not saved');
      return false;
    }
  }

  /** After the credentials are wiped (the store is empty): start from no names. */
  reset(): void {
    this.map = new Map();
    this.dirty = false;
    clearTimeout(this.timer);
    // Names learned after the wipe must schedule their own save.
    this.timer = undefined;
  }

  async list(): Promise<{ number: string; name: string }[]> {
    await this.load();
    return [...(this.map ?? new Map<string, string>())].map(([number, name]) => ({ number, name }));
  }
}
