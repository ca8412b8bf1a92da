import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Transform, pipeline } from 'node:stream';
import { inboundEventSchema, storedContentType, type InboundEvent, type SessionStatus, type StoredMedia } from '@balcao/shared';
import type { Logger, ProviderEvent, SessionContext } from '../provider.js';
import type { HostBackend } from './backend.js';
import { groupOf } from './events.js';

/** Extensions for media whose file name does not carry one (WhatsApp voice notes, stickers, photos). */
const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'video/mp4': 'mp4',
  'video/3gpp': '3gp',
  'audio/ogg': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/aac': 'aac',
  'application/pdf': 'pdf',
  'text/plain': 'txt',
  'text/vcard': 'vcf',
};

export function mediaExtension(mimetype: string, fileName?: string): string {
  const fromName = fileName ? path.extname(fileName).slice(1).toLowerCase() : '';
  if (/^[a-z0-9]{1,8}$/.test(fromName)) return fromName;
  const base = mimetype.split(';')[0].trim().toLowerCase();
  return EXTENSIONS[base] ?? (base.split('/')[1]?.replace(/[^a-z0-9]/g, '').slice(0, 8) || 'bin');
}

/** Per-session switches the host flips while it stops a session. */
export interface SessionState {
  /**
   * Set while the host stops the session for a handover or a shutdown: status changes the provider
   * reports then (a closing socket) are not the connection's real state, and the next owner reports
   * its own; messages are still published.
   */
  quiet: boolean;
  /** The last status the session reported (whether it is still starting, waiting for a scan, up…). */
  status?: SessionStatus;
  /** That report itself, to tell it again when a repeated command overwrote the stored status. */
  lastReport?: Extract<ProviderEvent, { type: 'session' }>;
  /**
   * Status reports go out one after another: two sends in flight at once can reach the queue in
   * either order, and an older status arriving last would stay (a QR over the pairing code).
   */
  statusChain?: Promise<unknown>;
}

/** Runs `send` after every status report already under way for this session (see `statusChain`). */
export function inStatusOrder<T>(state: SessionState, send: () => Promise<T>): Promise<T> {
  const next = (state.statusChain ?? Promise.resolve()).catch(() => undefined).then(send);
  state.statusChain = next;
  return next;
}

/** Publishes one event for a connection: versioned, validated, grouped per chat, deduplicated by id. */
export async function publish(
  backend: HostBackend,
  target: { companyId: number; connectionId: number },
  event: ProviderEvent,
  group?: string,
): Promise<InboundEvent> {
  const full = inboundEventSchema.parse({
    ...event,
    v: 1,
    eventId: event.eventId ?? randomUUID(),
    companyId: target.companyId,
    connectionId: target.connectionId,
    at: new Date().toISOString(),
  });
  await backend.publishEvent(full, group ?? groupOf(target.connectionId, event));
  return full;
}

export function createContext(opts: {
  backend: HostBackend;
  companyId: number;
  connectionId: number;
  pairingNumber?: string;
  log: Logger;
  state: SessionState;
  /** The shard lease's epoch (see LeaseStore.acquire). */
  epoch?: number;
}): SessionContext {
  const { backend, companyId, connectionId, log, state } = opts;
  const target = { companyId, connectionId };
  const mediaKey = (mimetype: string, fileName?: string) => `c/${companyId}/media/${connectionId}/${randomUUID()}.${mediaExtension(mimetype, fileName)}`;
  return {
    companyId,
    connectionId,
    pairingNumber: opts.pairingNumber,
    log,
    auth: backend.authStore(companyId, connectionId),
    async emit(event) {
      if (event.type === 'session' && !state.quiet) {
        state.status = event.status;
        state.lastReport = { ...event, eventId: undefined };
      }
      if (state.quiet && event.type === 'session') {
        log.debug({ status: event.status }, 'session status while stopping not published');
        return;
      }
      if (event.type !== 'session') {
        await publish(backend, target, event);
        return;
      }
      await inStatusOrder(state, () => publish(backend, target, opts.epoch !== undefined ? { ...event, epoch: opts.epoch } : event));
    },
    async storeMedia(data, mimetype, fileName): Promise<StoredMedia> {
      const key = mediaKey(mimetype, fileName);
      // Stored inert (issue 16 §3): a customer's HTML or SVG downloads, never runs; the event keeps the type.
      await backend.putMedia(key, data, storedContentType(mimetype));
      return { key, mimetype, fileName, size: data.length };
    },
    async storeMediaStream(data, mimetype, fileName, opts): Promise<StoredMedia> {
      const key = mediaKey(mimetype, fileName);
      let size = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          size += chunk.length;
          done(null, chunk);
        },
      });
      // pipeline, not pipe: an upload that gives up destroys the download too, and a failed download
      // fails the upload (its error reaches the upload through the counter).
      const body = pipeline(data, counter, () => undefined);
      await backend.putMediaStream(key, body, storedContentType(mimetype), opts?.signal);
      return { key, mimetype, fileName, size };
    },
    readMedia: (key) => backend.getMedia(key),
    getMessage: (waMessageId) => backend.getMessage(companyId, connectionId, waMessageId),
    protos: backend.protoStore(companyId, connectionId),
  };
}
