import { useSyncExternalStore } from 'react';
import { companyEvent, type ApiChat, type ApiChatMessage, type User } from '@balcao/shared';
import { chatsApi, unreadOf } from '../../api/chats';
import { realtime } from '../../api/realtime';

/**
 * The signed-in user's chats, shared by the top bar's popover, the menu's dot and the chats page
 * (issue 21 §2): loaded once per session and on every reconnect, kept live by `company-{id}-chat`
 * events (the server sends them only to the chat's members).
 */
interface State {
  chats: ApiChat[];
  loaded: boolean;
}

/** Pages of 20 read at the start: far beyond anyone's real number of chats. */
const MAX_PAGES = 10;

let state: State = { chats: [], loaded: false };
const subs = new Set<() => void>();
const messageListeners = new Set<(m: ApiChatMessage, chat: ApiChat) => void>();
let session: { userId: number; stop: () => void } | null = null;
/** The chat on screen: its new messages are read as they come, so they never count as unread here. */
let viewing: number | null = null;

const byActivity = (a: ApiChat, b: ApiChat) => (a.updatedAt === b.updatedAt ? b.id - a.id : a.updatedAt < b.updatedAt ? 1 : -1);

function set(next: ApiChat[]) {
  state = { chats: [...next].sort(byActivity), loaded: true };
  subs.forEach((f) => f());
}

function upsert(chat: ApiChat) {
  // Events may arrive out of order: an older version must not replace a newer one (a read changes
  // only counts, keeping `updatedAt`, so an equal one is taken).
  const known = state.chats.find((c) => c.id === chat.id);
  if (known && known.updatedAt > chat.updatedAt) return;
  const me = session?.userId;
  const shown = me !== undefined && chat.id === viewing && document.visibilityState === 'visible' ? { ...chat, users: chat.users.map((u) => (u.userId === me ? { ...u, unreads: 0 } : u)) } : chat;
  set([shown, ...state.chats.filter((c) => c.id !== chat.id)]);
}

async function load(live: () => boolean) {
  const all: ApiChat[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const r = await chatsApi.list(page);
    if (!live()) return;
    all.push(...r.records);
    if (!r.hasMore) break;
  }
  set(all);
}

/** Starts the store for this user (idempotent); the Shell calls it when the plan has the internal chat. */
export function startChats(user: Pick<User, 'id' | 'companyId'>) {
  if (session?.userId === user.id) return;
  session?.stop();
  let live = true;
  const reload = () => void load(() => live).catch(() => {
    /* the popover stays as it was; the page shows its own errors */
  });
  const off = realtime.on(companyEvent(user.companyId, 'chat'), (data) => {
    if (data.action === 'delete') set(state.chats.filter((c) => c.id !== data.chatId));
    else upsert(data.chat);
    if (data.action === 'new-message') messageListeners.forEach((fn) => fn(data.message, data.chat));
  });
  const offReconnect = realtime.onReconnect(reload);
  reload();
  session = {
    userId: user.id,
    stop: () => {
      live = false;
      off();
      offReconnect();
      state = { chats: [], loaded: false };
      subs.forEach((f) => f());
    },
  };
}

export function stopChats() {
  session?.stop();
  session = null;
}

export const chatStore = {
  subscribe(f: () => void) {
    subs.add(f);
    return () => void subs.delete(f);
  },
  get: () => state,
  /** A chat changed by this console's own call (its event is on the way too). */
  put: upsert,
  remove: (id: number) => set(state.chats.filter((c) => c.id !== id)),
  setViewing(id: number | null) {
    viewing = id;
  },
  /** New messages of any chat of the user, as they arrive. */
  onMessage(fn: (m: ApiChatMessage, chat: ApiChat) => void) {
    messageListeners.add(fn);
    return () => void messageListeners.delete(fn);
  },
};

export const useChats = () => useSyncExternalStore(chatStore.subscribe, chatStore.get);

/** How many of the user's chats have unread messages (the menu's dot, the popover's count). */
export function useUnreadChats(userId: number | undefined) {
  const { chats } = useChats();
  return userId === undefined ? 0 : chats.filter((c) => unreadOf(c, userId) > 0).length;
}
