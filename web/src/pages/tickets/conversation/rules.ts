import { canSeeTicket, isAdminProfile, type User } from '@balcao/shared';
import type { ApiMessage, ApiTicket } from '../types';

/** Spec 001 §4: a message is editable within 15 minutes of its creation. */
export const EDIT_WINDOW_MS = 15 * 60 * 1000;
/** Spec 001 §9: older messages load within 50 px of the top; follow the newest within 500 px of the bottom. */
export const LOAD_OLDER_PX = 50;
export const FOLLOW_BOTTOM_PX = 500;
/** Spec 001 §5/§9. */
export const MIN_AUDIO_BYTES = 10_000;
export const QUICK_REPLY_PREVIEW = 35;
export const MIN_MESSAGE_SEARCH = 2;
export const MIN_NOTE = 2;
export const SIGN_KEY = 'signOption';

/** The agent's own message: sent by this user (automated texts have no user). */
export const isOwn = (m: ApiMessage, userId: number) => m.fromMe && m.userId === userId;

export const canEditMessage = (m: ApiMessage, userId: number, now = Date.now()) =>
  isOwn(m, userId) && !m.isDeleted && !m.mediaType && !m.error && now - Date.parse(m.createdAt) < EDIT_WINDOW_MS;

/** Spec 001 §4: closing needs the ticket pending, one's own, or an admin (the server refuses too). */
export const canClose = (t: Pick<ApiTicket, 'status' | 'userId'>, userId: number, profile: string) =>
  t.status === 'pending' || t.userId === userId || isAdminProfile(profile);

/**
 * Whether the user may still see the ticket (spec 000 §6, the server's rule): another agent
 * accepting a pending ticket of a Nível 1's queue takes it out of that agent's sight.
 */
export const canStillSee = (t: Pick<ApiTicket, 'status' | 'userId' | 'queueId'>, me: Pick<User, 'id' | 'profile' | 'super' | 'queues' | 'allTicket'>) =>
  me.super || canSeeTicket({ userId: me.id, profile: me.profile, queueIds: (me.queues ?? []).map((q) => q.id), allTicket: me.allTicket === 'enabled' }, t);

/** Spec 001 §5: the sign option prefixes the text with the agent's name in bold. */
export const signed = (text: string, name: string, on: boolean) => (on ? `*${name}:*\n${text}` : text);

export const signOptionOn = () => localStorage.getItem(SIGN_KEY) !== 'false';
