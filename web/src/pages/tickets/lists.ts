import { canSeeTicket, isAdminProfile, type User } from '@balcao/shared';
import type { ApiTicket, TicketStatus } from './types';

/** The lists of the panel (spec 001 §2 "Ticket list panel"). */
export type MainTab = 'open' | 'closed' | 'search';
export type OpenSubTab = 'me' | 'others' | 'pending';

/** What one rendered list asks the server for, and what a live ticket must match to stay in it. */
export interface ListSpec {
  statuses: TicketStatus[];
  assigned?: 'me' | 'others';
  showAll?: boolean;
  searchParam?: string;
  unreadOnly?: boolean;
  /** `null`: every queue the viewer has (no filter sent); `[]`: "Nenhum" (only tickets without a queue). */
  queueIds: number[] | null;
  tags?: number[];
  tagsContact?: number[];
  users?: number[];
  /** Filters a live event cannot be checked against (text, tags): only rows already listed are updated. */
  closedSet?: boolean;
}

export type Viewer = Pick<User, 'id' | 'profile' | 'queues' | 'allTicket' | 'super'>;

const json = (ids: number[] | undefined) => (ids?.length ? JSON.stringify(ids) : undefined);

/** The GET /tickets query of a list (cursor paging). */
export function listQuery(spec: ListSpec, cursor?: string | null): Record<string, string | undefined> {
  const single = spec.statuses.length === 1;
  return {
    status: single ? spec.statuses[0] : undefined,
    statusFilter: single ? undefined : JSON.stringify(spec.statuses),
    isUseStatusFilter: single ? undefined : 'true',
    assigned: spec.assigned,
    showAll: spec.showAll ? 'true' : undefined,
    searchParam: spec.searchParam || undefined,
    withUnreadMessages: spec.unreadOnly ? 'true' : undefined,
    // "Nenhum" selects only tickets without a queue: queue 0 is how the API names "no queue".
    queueIds: spec.queueIds === null ? undefined : spec.queueIds.length ? JSON.stringify(spec.queueIds) : '[0]',
    tags: json(spec.tags),
    tagsContact: json(spec.tagsContact),
    users: json(spec.users),
    cursor: cursor ?? undefined,
  };
}

export const viewerFacts = (u: Viewer) => ({
  userId: u.id,
  profile: u.profile,
  queueIds: (u.queues ?? []).map((q) => q.id),
  allTicket: u.allTicket === 'enabled',
  super: u.super,
});

/**
 * Whether a ticket (as a live event carries it) belongs in the list: visible to the viewer
 * (canSeeTicket), of the list's status, assignment and queues (spec 001 §4: a closed ticket, or
 * one outside the selected queues, leaves the list).
 */
export function belongs(t: Pick<ApiTicket, 'status' | 'userId' | 'queueId' | 'unreadMessages'>, spec: ListSpec, viewer: Viewer): boolean {
  if (!viewer.super && !canSeeTicket(viewerFacts(viewer), t)) return false;
  if (!spec.statuses.includes(t.status)) return false;
  if (spec.queueIds !== null && t.queueId !== null && !spec.queueIds.includes(t.queueId)) return false;
  if (spec.unreadOnly && !(t.unreadMessages > 0)) return false;
  if (spec.assigned === 'me' && t.userId !== viewer.id) return false;
  if (spec.assigned === 'others' && (t.userId === viewer.id || t.userId === null)) return false;
  // Open and closed lists without showAll hold one's own tickets (as the API answers them).
  if (!spec.showAll && !spec.assigned && t.status !== 'pending' && t.userId !== viewer.id) return false;
  if (spec.users?.length && (t.userId === null || !spec.users.includes(t.userId))) return false;
  return true;
}

/** Newest activity first, as the API orders its pages. */
export const byUpdatedDesc = (a: ApiTicket, b: ApiTicket) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : b.id - a.id);
/** Text search results come newest ticket first (the server pages them by id, decision 29). */
export const byIdDesc = (a: ApiTicket, b: ApiTicket) => b.id - a.id;
/** The order of a list's rows: the server's own, so a later page never slots rows above shown ones. */
export const rowOrder = (spec: { searchParam?: string }) => (/[\p{L}\p{N}]/u.test(spec.searchParam ?? '') ? byIdDesc : byUpdatedDesc);

/**
 * The ticket of an event merged over the row the list already has. Events of the message pipeline
 * carry the stored ticket without the names (queue, user, connection): the known ones are kept
 * while their ids are unchanged; `needsFetch` says when the full ticket must be read.
 */
export function mergeTicket(known: ApiTicket | undefined, incoming: Partial<ApiTicket> & { id: number }): { ticket: ApiTicket; needsFetch: boolean } {
  const base = (known ?? {}) as Partial<ApiTicket>;
  const merged = { ...base, ...incoming } as ApiTicket;
  let needsFetch = !known;
  const ref = <K extends 'queue' | 'user' | 'whatsapp'>(key: K, idKey: 'queueId' | 'userId' | 'whatsappId') => {
    if (key in incoming && incoming[key] !== undefined) return;
    if (merged[idKey] === null || merged[idKey] === undefined) {
      merged[key] = null as ApiTicket[K];
      return;
    }
    if (base[key] && (base[key] as { id: number }).id === merged[idKey]) {
      merged[key] = base[key] as ApiTicket[K];
      return;
    }
    merged[key] = null as ApiTicket[K];
    needsFetch = true;
  };
  ref('queue', 'queueId');
  ref('user', 'userId');
  ref('whatsapp', 'whatsappId');
  if (!merged.contact) needsFetch = true;
  else if (!('contact' in incoming) || !incoming.contact) merged.contact = base.contact ?? null;
  // The row is complete when the event carried the API shape (it has the names).
  if (!known && 'queue' in incoming && 'user' in incoming && incoming.contact) needsFetch = false;
  return { ticket: merged, needsFetch };
}

/** Queues the selector offers: every company queue for admins, the user's own otherwise. */
export const seesAllQueues = (u: Viewer) => isAdminProfile(u.profile) || !!u.super;

/** Query-string flow (spec 001 §5): 55 when missing; a 13-digit number is also tried without its ninth digit. */
export function numberVariants(raw: string): string[] {
  let d = raw.replace(/\D/g, '');
  if (!d) return [];
  if (!d.startsWith('55')) d = `55${d}`;
  const out = [d];
  if (d.length === 13) out.push(d.slice(0, 4) + d.slice(5));
  return out;
}

/** WhatsApp markers are dropped in the one-line preview; the text stays text (never HTML). */
export const preview = (s: string) => s.replace(/[*_~]([^*_~\n]+)[*_~]/g, '$1').replace(/\s+/g, ' ').trim();

/** Under 600 px names are cut to 10 characters (spec 001 §2). */
export const cutName = (name: string, narrow: boolean) => (narrow && name.length > 10 ? `${name.slice(0, 10)}...` : name);

/** Local key of the queue selection, one per user (spec 001 §2: Todos / Nenhum). */
export const queueSelectionKey = (userId: number) => `tickets.queues.${userId}`;

/** The stored selection; "all" (also every queue added later) until the user narrows it. */
export function readQueueSelection(userId: number, available: number[]): number[] {
  try {
    const raw = localStorage.getItem(queueSelectionKey(userId));
    if (raw && raw !== '"all"') {
      const ids = JSON.parse(raw) as unknown;
      if (Array.isArray(ids)) return ids.filter((x): x is number => typeof x === 'number' && available.includes(x));
    }
  } catch {
    /* unreadable: fall back to every queue */
  }
  return available;
}

export function saveQueueSelection(userId: number, ids: number[], available: number[]) {
  const all = available.every((id) => ids.includes(id));
  localStorage.setItem(queueSelectionKey(userId), JSON.stringify(all ? 'all' : ids));
}
