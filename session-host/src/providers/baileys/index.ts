import makeWASocket, { downloadMediaMessage, fetchLatestWaWebVersion, type UserFacingSocketConfig, type WAVersion } from '@whiskeysockets/baileys';
import type { Provider, SessionContext } from '../../provider.js';
import { toOggOpus } from './audio.js';
import { BaileysSession } from './session.js';
import type { BaileysSocket, SessionOptions, SocketFactory } from './socket.js';

export { BaileysSession, backoffDelay, BACKOFF_BASE_MS, BACKOFF_CAP_MS } from './session.js';
export type { BaileysSocket, SocketFactory } from './socket.js';
export { SIGNAL_KEY_TYPES, tableSignalKeyStore, loadAuthState } from './auth.js';

export interface BaileysProviderOptions extends Partial<SessionOptions> {
  /** WhatsApp Web version to announce; by default the current one is fetched once (Baileys' own as fallback). */
  version?: WAVersion;
}

let latestVersion: Promise<WAVersion | undefined> | undefined;

/** WhatsApp refuses clients that announce an outdated version (405); ask once per process. */
function currentVersion(): Promise<WAVersion | undefined> {
  latestVersion ??= fetchLatestWaWebVersion({ signal: AbortSignal.timeout(5_000) })
    .then((r) => (r.isLatest ? (r.version as WAVersion) : undefined))
    .catch(() => undefined)
    .then((v) => {
      // A failed lookup is not remembered: the next connection asks again (Baileys' own until then).
      if (!v) latestVersion = undefined;
      return v;
    });
  return latestVersion;
}

function realSocketFactory(version?: WAVersion): SocketFactory {
  return async (config: UserFacingSocketConfig) => {
    const v = version ?? (await currentVersion());
    return makeWASocket({ ...config, ...(v ? { version: v } : {}) }) satisfies BaileysSocket;
  };
}

export function createBaileysProvider(options: BaileysProviderOptions = {}): Provider {
  const opts: SessionOptions = {
    makeSocket: options.makeSocket ?? realSocketFactory(options.version),
    downloadMedia:
      options.downloadMedia ??
      ((message, sock, logger) =>
        // Expired media URLs are asked again from the phone through the socket.
        downloadMediaMessage(message, 'buffer', {}, { logger, reuploadRequest: (m) => sock.updateMediaMessage(m) })),
    transcodeVoice: options.transcodeVoice ?? ((audio) => toOggOpus(audio)),
    qrLimit: options.qrLimit ?? 5,
    random: options.random ?? Math.random,
    stableAfterMs: options.stableAfterMs ?? 60_000,
    // Shown in the phone's "Linked devices" list; the platform must be one WhatsApp knows.
    browser: options.browser ?? ['Balcão', 'Chrome', '1.0.0'],
    logLevel: options.logLevel ?? 'info',
  };
  return {
    name: 'beta',
    create: (ctx: SessionContext) => new BaileysSession(ctx, opts),
  };
}

/** WhatsApp through Baileys 7 (provider value `beta`). */
export const baileysProvider: Provider = createBaileysProvider();
