import { fetchLatestWaWebVersion, type WAVersion } from '@whiskeysockets/baileys';

/** WhatsApp Web moves on every few weeks; a day-old answer is fresh enough. */
export const VERSION_MAX_AGE_MS = 24 * 60 * 60_000;

type Fetch = () => Promise<WAVersion | undefined>;

const fetchCurrent: Fetch = () =>
  fetchLatestWaWebVersion({ signal: AbortSignal.timeout(5_000) })
    .then((r) => (r.isLatest ? (r.version as WAVersion) : undefined))
    .catch(() => undefined);

/**
 * The WhatsApp Web version sockets announce (WhatsApp refuses outdated ones with 405): fetched
 * once a day, and again as soon as WhatsApp refuses it. A failed lookup is not remembered (the
 * next socket asks again; Baileys' built-in version until then).
 */
export class WaVersionSource {
  private cached?: { at: number; version: Promise<WAVersion | undefined> };

  constructor(
    private readonly fetch: Fetch = fetchCurrent,
    private readonly now: () => number = Date.now,
  ) {}

  current(): Promise<WAVersion | undefined> {
    if (!this.cached || this.now() - this.cached.at > VERSION_MAX_AGE_MS) {
      const entry = {
        at: this.now(),
        version: this.fetch().then((v) => {
          if (!v && this.cached === entry) this.cached = undefined;
          return v;
        }),
      };
      this.cached = entry;
    }
    return this.cached.version;
  }

  /** WhatsApp refused the version: the next socket fetches it again. */
  invalidate(): void {
    this.cached = undefined;
  }
}
