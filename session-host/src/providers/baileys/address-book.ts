import type { SessionContext } from '../../provider.js';

const ADDRESS_BOOK_KEY = 'addressbook';
const ADDRESS_BOOK_SAVE_MS = 5_000;

/**
 * The names the phone's owner saved for contacts (number → name), learned from contact and history
 * events. Kept in the session's auth store so the next session has them before WhatsApp resends them.
 */
export class AddressBook {
  private map?: Map<string, string>;
  private timer?: NodeJS.Timeout;

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
    // Contacts arrive in bursts (app state sync): one write per burst.
    if (!this.timer) {
      this.timer = setTimeout(() => void this.save().catch((err) => this.ctx.log.warn({ err }, 'baileys: address book not saved')), ADDRESS_BOOK_SAVE_MS);
      this.timer.unref?.();
    }
  }

  async save(): Promise<void> {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.map) await this.ctx.auth.set({ [ADDRESS_BOOK_KEY]: JSON.stringify(Object.fromEntries(this.map)) });
  }

  /** After the credentials are wiped (the store is empty): start from no names. */
  reset(): void {
    this.map = new Map();
    clearTimeout(this.timer);
    // Names learned after the wipe must schedule their own save.
    this.timer = undefined;
  }

  async list(): Promise<{ number: string; name: string }[]> {
    await this.load();
    return [...(this.map ?? new Map<string, string>())].map(([number, name]) => ({ number, name }));
  }
}
