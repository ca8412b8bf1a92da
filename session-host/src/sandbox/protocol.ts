/**
 * The device protocol between the sandbox network (in the local stack's sandbox server) and the
 * session host's `sandbox` provider: JSON text frames over a WebSocket at
 * `{SANDBOX_URL}/device?connectionId=<id>[&token=<device token>]`.
 *
 * The network plays WhatsApp's servers: without a token the device is shown QR codes until the
 * customer's phone scans one; with a valid token it is the linked device at once. Everything that
 * happens on the customer side is an `event` with a per-account sequence number; the network keeps
 * it until the device acknowledges that sequence, so a device that was away gets every event again,
 * in order, when it comes back.
 */

export const DEVICE_PATH = '/device';

/** Close codes (4000-4999 are free for applications) and what the device must do on each. */
export const CLOSE = {
  /** The token was revoked (logout on the phone): wipe credentials, report DISCONNECTED, wait. */
  LOGGED_OUT: 4401,
  /** Another device took over this account: stop and do not reconnect. */
  REPLACED: 4440,
  /** Bad request (no or bad connection id): nothing to retry until the code changes. */
  BAD_REQUEST: 4400,
} as const;

export type ReceiptStatus = 'delivered' | 'read' | 'played';

export interface NetMedia {
  mediaType: string;
  mimetype: string;
  fileName?: string;
  /** Path on the sandbox server to download the bytes (the device resolves it against its URL). */
  path: string;
  size: number;
  ptt?: boolean;
}

/** What the customer side did, as the linked device learns it. */
export type NetEvent =
  /** `fromMe`: typed on the linked phone itself (WhatsApp shows it to every linked device); `from` is then the chat. */
  | { kind: 'message'; id: string; from: string; fromMe?: boolean; name?: string; body: string; media?: NetMedia; quotedId?: string; timestamp: number }
  | { kind: 'receipt'; peer: string; ids: string[]; status: ReceiptStatus }
  | { kind: 'edit'; from: string; targetId: string; body: string }
  | { kind: 'delete'; from: string; targetId: string }
  | { kind: 'reaction'; from: string; targetId: string; emoji: string }
  | { kind: 'call'; from: string; callId: string; isVideo: boolean; timestamp: number }
  | { kind: 'contact'; number: string; name: string };

/** Network → device. */
export type ServerFrame =
  | { t: 'qr'; qr: string }
  | { t: 'pairingCode'; code: string }
  /** The phone scanned: keep the token (credentials) so a restart reconnects without a scan. */
  | { t: 'linked'; number: string; token: string }
  /** The device is the linked device of `number` and may send. */
  | { t: 'ready'; number: string }
  /** `epoch` names this network's state, so event ids stay unique if the state is ever wiped. */
  | { t: 'event'; seq: number; epoch: string; at: number; event: NetEvent }
  | { t: 'res'; rid: number; ok: true; data?: unknown }
  | { t: 'res'; rid: number; ok: false; error: string };

export interface SendRequest {
  op: 'send';
  /** Our WhatsApp id for the message; the network keeps it (so echoes and acks name it). */
  id: string;
  to: string;
  body: string;
  media?: { mediaType: string; mimetype: string; fileName?: string; ptt?: boolean; dataBase64?: string; url?: string };
  quotedId?: string;
  vcard?: string;
}

export type DeviceRequest =
  | SendRequest
  | { op: 'read'; peer: string; ids: string[] }
  | { op: 'edit'; peer: string; id: string; body: string }
  | { op: 'delete'; peer: string; id: string }
  | { op: 'react'; peer: string; id: string; emoji: string }
  | { op: 'rejectCall'; callId: string; from: string }
  | { op: 'presence'; peer: string; state: 'composing' | 'recording' | 'paused' }
  | { op: 'checkNumber'; number: string }
  | { op: 'checkNumbers'; numbers: string[] }
  | { op: 'addressBook' }
  | { op: 'logout' };

/** Device → network. */
export type DeviceFrame =
  /** Ask for a pairing code for this number instead of QR codes. */
  | { t: 'pair'; number: string }
  /** Events up to and including `seq` were handled (published): the network may forget them. */
  | { t: 'ack'; seq: number }
  /** The credentials of a `linked` frame are kept: the link counts from now on. */
  | { t: 'linked'; token: string }
  | ({ t: 'req'; rid: number } & DeviceRequest);

export function mediaTypeOf(mimetype: string, fileName?: string): string {
  if (mimetype === 'image/webp' && !fileName?.match(/\.(png|jpe?g)$/i)) return 'sticker';
  if (mimetype.startsWith('image/')) return 'image';
  if (mimetype.startsWith('video/')) return 'video';
  if (mimetype.startsWith('audio/')) return 'audio';
  return 'document';
}
