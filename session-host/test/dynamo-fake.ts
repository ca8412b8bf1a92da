/*
 * The in-memory table the auth store's tests run on. It lives in src/host/memory-table.ts because
 * the Baileys memory bench (infra/bench/baileys-memory.ts) replays busy accounts on it too.
 */
export { MemoryTable as FakeTable, ITEM_LIMIT, itemSize, type Sent } from '../src/host/memory-table.js';
