import type { TagType } from '@balcao/shared';
import { call } from './call';

/** The kanban board's calls (spec 002 §7): its lanes, its cards a lane page at a time, and moves. */
export const kanbanApi = {
  lanes: (type: TagType) => call('GET /tags/kanban', { query: { type } }),
  /** Without `lane`: the first page of every lane (or of `lanes`, a JSON list); with it, that lane's page from `cursor`. */
  board: (query: { type: TagType; lanes?: string; lane?: number; cursor?: string }) => call('GET /ticket/kanban', { query }),
  /** Into a tag's lane (the server drops the card's other lane tags in the same change). */
  move: (ticketId: number, tagId: number) => call('PUT /ticket-tags/{ticketId}/{tagId}', { params: { ticketId, tagId } }),
  /** Back to 'Em aberto'. */
  clear: (ticketId: number, type: TagType) => call('DELETE /ticket-tags/{ticketId}', { params: { ticketId }, query: { type } }),
};
