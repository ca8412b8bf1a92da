import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { mediaTypeOf } from './protocol.js';
import type { Account } from './state.js';
import { SandboxError } from './validation.js';

/** The media files of the conversations, under `<dir>/<connectionId>/`, named by random ids. */
export class MediaFiles {
  constructor(private readonly dir: string) {
    fs.mkdirSync(this.dir, { recursive: true });
  }

  write(id: number, data: Buffer, fileName?: string) {
    const ext = fileName && /\.[A-Za-z0-9]{1,8}$/.exec(fileName)?.[0];
    const mediaFile = `${crypto.randomBytes(12).toString('hex')}${ext ?? ''}`;
    const dir = path.join(this.dir, String(id));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, mediaFile), data);
    return { mediaFile, size: data.length };
  }

  /** A customer's attachment as the API receives it (base64), checked and written. */
  storeIncoming(id: number, raw: unknown) {
    const m = raw as { fileName?: unknown; mimetype?: unknown; dataBase64?: unknown; mediaType?: unknown; ptt?: unknown };
    if (typeof m !== 'object' || typeof m.mimetype !== 'string' || !/^[\w.+-]+\/[\w.+-]+/.test(m.mimetype)) throw new SandboxError(400, 'media.mimetype is required (e.g. "image/png")');
    if (typeof m.dataBase64 !== 'string' || !m.dataBase64) throw new SandboxError(400, 'media.dataBase64 is required');
    const b64 = m.dataBase64.replace(/^data:[^,]*,/, '').replace(/\s/g, '');
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(b64)) throw new SandboxError(400, 'media.dataBase64 is not base64');
    const data = Buffer.from(b64, 'base64');
    if (!data.length) throw new SandboxError(400, 'media.dataBase64 is empty');
    const fileName = typeof m.fileName === 'string' && m.fileName ? path.basename(m.fileName) : undefined;
    const kinds = ['image', 'video', 'audio', 'document', 'sticker'];
    if (m.mediaType !== undefined && !kinds.includes(m.mediaType as string)) throw new SandboxError(400, `media.mediaType must be one of ${kinds.join(', ')}`);
    const mediaType = (m.mediaType as string | undefined) ?? mediaTypeOf(m.mimetype, fileName);
    return { ...this.write(id, data, fileName), mediaType, mimetype: m.mimetype, fileName, ptt: m.ptt === true || undefined };
  }

  /** The bytes and type of a media file of a connection, for `GET /media/{id}/{file}`. */
  find(a: Account | undefined, id: number, file: string): { path: string; mimetype: string; fileName?: string } {
    if (!/^[a-f0-9]{24}(\.[A-Za-z0-9]{1,8})?$/.test(file)) throw new SandboxError(404, `no media ${file}`);
    for (const chat of Object.values(a?.chats ?? {})) {
      const m = chat.messages.find((x) => x.mediaFile === file);
      if (m) return { path: path.join(this.dir, String(id), file), mimetype: m.mimetype ?? 'application/octet-stream', fileName: m.fileName };
    }
    throw new SandboxError(404, `no media ${file} on connection ${id}`);
  }
}
