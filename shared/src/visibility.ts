import { isAdminProfile, type Profile } from './profiles.js';

export interface Viewer {
  userId: number;
  profile: Profile | string;
  queueIds: number[];
  allTicket: boolean;
  super?: boolean;
}

export interface TicketFacts {
  userId: number | null;
  queueId: number | null;
  status: string;
}

/**
 * Who may see a ticket (spec 000 §6, server-behaviour §14): admin and Nível 3 see all; everyone
 * sees their own; pending tickets of one's queues are visible so they can be accepted; Nível 2 also
 * sees the rest of its queues; tickets without a queue need `allTicket`.
 */
export function canSeeTicket(viewer: Viewer, t: TicketFacts): boolean {
  if (isAdminProfile(viewer.profile) || viewer.profile === 'Nível 3') return true;
  if (t.userId !== null && t.userId === viewer.userId) return true;
  if (t.queueId === null) return viewer.allTicket && (t.userId === null || viewer.profile === 'Nível 2');
  const inMyQueues = viewer.queueIds.includes(t.queueId);
  if (!inMyQueues) return false;
  if (t.status === 'pending') return true;
  return viewer.profile === 'Nível 2';
}
