import type { ApiChat } from '@balcao/shared';
import { call } from './call';

/** Internal chat (issue 21 §2): the one module that names the chat routes. */
export const chatsApi = {
  list: (pageNumber = 1) => call('GET /chats', { query: { pageNumber } }),
  create: (body: { title: string; users: number[]; isGroup?: boolean }) => call('POST /chats', { body }),
  update: (id: number, body: { title?: string; users?: number[] }) => call('PUT /chats/{id}', { params: { id }, body }),
  remove: (id: number) => call('DELETE /chats/{id}', { params: { id } }),
  messages: (id: number, pageNumber = 1) => call('GET /chats/{id}/messages', { params: { id }, query: { pageNumber } }),
  send: (id: number, message: string, medias?: { key: string; name: string }[]) => call('POST /chats/{id}/messages', { params: { id }, body: { message, ...(medias?.length ? { medias } : {}) } }),
  read: (id: number, userId: number) => call('POST /chats/{id}/read', { params: { id }, body: { userId } }),
  /** Asks for an upload slot (type and size checked), then PUTs the file straight to storage. */
  async upload(id: number, file: Blob, name: string): Promise<{ key: string; name: string }> {
    const contentType = (file.type || 'application/octet-stream').split(';')[0]!;
    const slot = await call('POST /chats/{id}/media-upload', { params: { id }, body: { fileName: name, contentType, size: file.size } });
    const res = await fetch(slot.uploadUrl, { method: 'PUT', headers: slot.headers ?? { 'Content-Type': contentType }, body: file });
    if (!res.ok) throw new Error(`upload ${res.status}`);
    return { key: slot.key, name };
  },
};

/** A user's unread count in a chat. */
export const unreadOf = (chat: Pick<ApiChat, 'users'>, userId: number) => chat.users.find((u) => u.userId === userId)?.unreads ?? 0;
