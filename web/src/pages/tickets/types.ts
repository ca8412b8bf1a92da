/** The API's ticket and message answers: one contract with the functions (shared/src/contracts.ts). */
export type { ApiMessage, ApiTicket, MessageMediaType, TagRef, TicketStatus } from '@balcao/shared';
