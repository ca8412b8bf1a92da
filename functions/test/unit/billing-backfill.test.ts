import { describe, expect, it } from 'vitest';
import { blockAt, invoiceOpensAt } from '@balcao/shared';
import { memoryAgent, memoryWorld, run } from '../fakes/world.js';

/**
 * Seed step 9 (decision 61): companies written before billing have no due-index key (GSI4
 * `COMPANYDUE`), so the invoice job would never look at them. The backfill keys each one as its state
 * calls for, once; the job then finds them.
 */
const billing = await import('../../src/services/billing.js');
const { createCompany } = await import('../../src/services/companies.js');
const { getItem, putItem, updateItem } = await import('../../src/core/db.js');
const { keys, invoicesPartition, invoicePrefix } = await import('../../src/table/keys.js');
const { seedLocal } = await import('../../src/services/seed.js');

type World = Awaited<ReturnType<typeof memoryWorld>>;
type Raw = Record<string, unknown>;
const raw = (w: World, id: number) => run(w, () => getItem<Raw>(keys.company(id)));
/** What a company written before billing looks like: no due-index key. */
const legacy = (w: World, id: number, set: Raw = {}) => run(w, () => updateItem(keys.company(id), set, { remove: ['GSI4PK', 'GSI4SK'] }));

async function companies(w: World) {
  const make = (name: string, dueDate: string | null, status = true) =>
    run(w, () => createCompany({ name, email: `${name.toLowerCase()}@example.com`, planId: w.plan.id, status, dueDate }).then((r) => r.company.id));
  const due = '2026-06-01T00:00:00.000Z';
  const ids = {
    active: await make('Ativa', due),
    invoiced: await make('Faturada', due),
    noDue: await make('SemVencimento', null),
    inactive: await make('Inativa', due, false),
  };
  for (const id of Object.values(ids)) await legacy(w, id);
  // One already invoiced for its due date (its next look is the blocking instant); one inactive with a stale key.
  await run(w, () => updateItem(keys.company(ids.invoiced), { invoicedDueDate: due }));
  await run(w, () => updateItem(keys.company(ids.inactive), { GSI4PK: 'COMPANYDUE', GSI4SK: `${due}#stale` }));
  return { ids, due };
}

describe('the due-index backfill (seed step 9)', () => {
  it('keys every active company with a due date as billingLookAt says, removes stale keys, and writes nothing the second time', async () => {
    const w = await memoryWorld();
    await legacy(w, w.companyId);
    const { ids, due } = await companies(w);
    const written = await run(w, () => billing.backfillDueIndex());
    // Ours, and the world's own company if its state calls for a key.
    const world = await raw(w, w.companyId);
    expect(written).toBe(3 + (world?.GSI4PK ? 1 : 0));
    expect(await raw(w, ids.active)).toMatchObject({ GSI4PK: 'COMPANYDUE', GSI4SK: `${new Date(invoiceOpensAt(due)).toISOString()}#${String(ids.active).padStart(10, '0')}` });
    expect((await raw(w, ids.invoiced))!.GSI4SK).toMatch(new RegExp(`^${new Date(blockAt(due)).toISOString()}#`));
    for (const id of [ids.noDue, ids.inactive]) {
      const c = (await raw(w, id))!;
      expect([c.GSI4PK, c.GSI4SK]).toEqual([undefined, undefined]);
    }
    // Idempotent: everything is keyed right already.
    expect(await run(w, () => billing.backfillDueIndex())).toBe(0);

    // The job now sees the older company: its invoice opens at the window's start.
    expect(await run(w, () => billing.sweepInvoices(invoiceOpensAt(due)))).toBeGreaterThanOrEqual(1);
    const opened = await run(w, () => import('../../src/core/db.js').then((db) => db.queryAll<Raw>(invoicesPartition(ids.active), invoicePrefix())));
    expect(opened).toMatchObject([{ dueDate: due, status: 'open' }]);
  });

  it('does not overwrite a company changed since it was read (the concurrent write keys it itself)', async () => {
    const w = await memoryWorld();
    const { ids } = await companies(w);
    // Read by the backfill's list, then moved by hand before its write: the condition on the fields read fails.
    const { queryIndexAll } = await import('../../src/core/db.js');
    const listed = await run(w, () => queryIndexAll<Raw>('GSI1', keys.companyList()));
    await run(w, () => updateItem(keys.company(ids.active), { dueDate: '2026-09-01T00:00:00.000Z' }));
    // The list as it was before the change (an index lagging the write): that company is left alone.
    const written = await run(w, () => billing.backfillDueIndex(listed as never));
    expect(written).toBeGreaterThanOrEqual(1);
    expect((await raw(w, ids.active))!.GSI4PK).toBeUndefined();
    expect((await raw(w, ids.invoiced))!.GSI4PK).toBe('COMPANYDUE');
  });

  it('runs once from the seed: a store at seed version 8 gets step 9 (and 10), and the new version is recorded', async () => {
    const w = await memoryWorld();
    const admin = await memoryAgent(w, 'Admin Seed', { profile: 'admin' });
    await run(w, () => putItem({ ...keys.uniqueEmail(admin.user.email), entity: 'uniqueEmail', companyId: w.companyId, userId: admin.userId }));
    await run(w, () => putItem({ ...keys.seed(), entity: 'seed', version: 8, companyId: w.companyId }));
    const { ids } = await companies(w);
    await run(w, () => seedLocal({ adminEmail: admin.user.email, adminPassword: 'x' }));
    expect((await raw(w, ids.active))!.GSI4PK).toBe('COMPANYDUE');
    expect(await run(w, () => getItem<Raw>(keys.seed()))).toMatchObject({ version: 10 });
    // Applied: a later start does not run it again.
    await legacy(w, ids.active);
    await run(w, () => seedLocal({ adminEmail: admin.user.email, adminPassword: 'x' }));
    expect((await raw(w, ids.active))!.GSI4PK).toBeUndefined();
  });
});
