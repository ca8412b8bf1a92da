import makeWASocket, { type UserFacingSocketConfig, type WAVersion } from '@whiskeysockets/baileys';
import type { Provider, SessionContext } from '../../provider.js';
import { toOggOpus } from './audio.js';
import { downloadMedia } from './media.js';
import { BaileysSession } from './session.js';
import type { BaileysSocket, SessionOptions, SocketFactory } from './socket.js';
import { WaVersionSource } from './version.js';

export { BaileysSession, backoffDelay, BACKOFF_BASE_MS, BACKOFF_CAP_MS } from './session.js';
export type { BaileysSocket, SocketFactory } from './socket.js';
export { SIGNAL_KEY_TYPES, tableSignalKeyStore, loadAuthState } from './auth.js';

export interface BaileysProviderOptions extends Partial<SessionOptions> {
  /** WhatsApp Web version to announce; by default the current one is fetched once (Baileys' own as fallback). */
  version?: WAVersion;
}

/** One per process: every session announces the same current version. */
export const waVersion = new WaVersionSource();

function realSocketFactory(version?: WAVersion): SocketFactory {
  return async (config: UserFacingSocketConfig) => {
    const v = version ?? (await waVersion.current());
    return makeWASocket({ ...config, ...(v ? { version: v } : {}) }) satisfies BaileysSocket;
  };
}

export function createBaileysProvider(options: BaileysProviderOptions = {}): Provider {
  const opts: SessionOptions = {
    makeSocket: options.makeSocket ?? realSocketFactory(options.version),
    // A stream, never the whole file in memory; an expired file is asked again from the phone.
    downloadMedia: options.downloadMedia ?? downloadMedia,
    transcodeVoice: options.transcodeVoice ?? ((audio) => toOggOpus(audio)),
    qrLimit: options.qrLimit ?? 5,
    pairingCodeMs: options.pairingCodeMs ?? 3 * 60_000,
    versionRejected: options.versionRejected ?? (options.makeSocket ? undefined : () => waVersion.invalidate()),
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
