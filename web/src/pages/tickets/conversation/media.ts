import { call } from '../../../api/call';

export interface OutgoingMedia {
  key: string;
  name: string;
  caption?: string;
  ptt?: boolean;
}

/** Asks the API for an upload slot (it checks type and size), then PUTs the file straight to storage. */
export async function uploadMedia(ticketId: number, file: Blob, name: string): Promise<string> {
  const contentType = (file.type || 'application/octet-stream').split(';')[0]!;
  const slot = await call('POST /messages/{ticketId}/media-upload', { params: { ticketId }, body: { fileName: name, contentType, size: file.size } });
  const res = await fetch(slot.uploadUrl, { method: 'PUT', headers: slot.headers ?? { 'Content-Type': contentType }, body: file });
  if (!res.ok) throw new Error(`upload ${res.status}`);
  return slot.key;
}

/** The recorder formats the browser can make, best first (WhatsApp voice notes are ogg/opus). */
export function recorderMime(): string | undefined {
  if (typeof MediaRecorder === 'undefined') return undefined;
  return ['audio/ogg;codecs=opus', 'audio/webm;codecs=opus', 'audio/webm', 'audio/mp4'].find((m) => MediaRecorder.isTypeSupported(m));
}

export const extensionOf = (mime: string) => (mime.includes('ogg') ? 'ogg' : mime.includes('mp4') ? 'm4a' : mime.includes('webm') ? 'webm' : 'bin');
