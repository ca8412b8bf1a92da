/**
 * Public entry `@balcao/functions/tools`: what the command-line tools use — the seed (`npm start`,
 * infra/bin/seed.ts) and the benchmark's data builders and recorders (infra/bench). Tools write
 * through the same services and item shapes as the functions, so their data is the product's.
 */
export { dynamo, watchDynamoCalls } from './core/aws.js';
export { getItem } from './core/db.js';
export * from './table/keys.js';
export { contactViewOf, type ContactItem, type ContactView, type MessageItem, type TicketItem } from './table/items.js';
export { buildContactTicketLists } from './services/migrations.js';
export { contactIndexItems, contactTicketItem, messageIndexItems, messageTokens } from './services/search-index.js';
export { listBody } from './services/messages.js';
export { rebuildTicketCounters } from './services/ticket-counters.js';
export { aggregateTickets, rebuildDashboardStats } from './services/dashboard-stats.js';
export { type TicketStatus } from './services/tickets.js';
export { seedLocal } from './services/seed.js';
export { botMessageId } from './services/bot.js';
export { CONTACT_LIST_EXAMPLE_ROWS, writeSpreadsheet } from './services/spreadsheets.js';
