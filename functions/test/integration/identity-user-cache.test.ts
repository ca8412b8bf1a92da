import { beforeAll, describe, expect, it } from 'vitest';
import { applyStackEnv, member, tenant } from './client.js';

/**
 * `authenticate` keeps the user it read for a second (core/identity.ts, DESIGN §4 "briefly cached
 * in the function"), and any write to a user item through the same DynamoDB client drops it.
 */
describe('the user read of each request', () => {
  let db: typeof import('../../src/core/db.js');
  let keys: typeof import('../../src/table/keys.js')['keys'];
  let authenticate: typeof import('../../src/core/identity.js')['authenticate'];
  let userReads = 0;
  /** Run once, after the next user read has its answer and before the caller gets it. */
  let afterNextUserRead: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    applyStackEnv();
    db = await import('../../src/core/db.js');
    ({ keys } = await import('../../src/table/keys.js'));
    ({ authenticate } = await import('../../src/core/identity.js'));
    const { dynamo } = await import('../../src/core/aws.js');
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        const key = (args.input as { Key?: { SK?: unknown } }).Key;
        const isUserRead = /^Get/.test(context.commandName ?? '') && typeof key?.SK === 'string' && key.SK.startsWith('USER#');
        const out = await next(args);
        if (isUserRead) {
          userReads++;
          const hook = afterNextUserRead;
          afterNextUserRead = null;
          if (hook) await hook();
        }
        return out;
      },
      { step: 'initialize', name: 'userReadsTest' },
    );
  });

  it('reads the user once within a second, again after a write to a user item, and keeps no read that overlapped one', async () => {
    const t = await tenant();
    const agent = await member(t.admin, { profile: 'Nível 1' });
    const userKey = keys.user(t.companyId, agent.id);
    const sub = (await db.getItem<{ sub: string }>(userKey))!.sub;
    const identity = () => authenticate({ sub }, undefined, { skipSession: true });

    userReads = 0;
    expect((await identity()).profile).toBe('Nível 1');
    expect((await identity()).profile).toBe('Nível 1');
    expect(userReads).toBe(1);

    // A write to the user item drops it: the next request reads the change.
    await db.updateItem(userKey, { allTicket: 'enabled' });
    expect((await identity()).allTicket).toBe(true);
    expect(userReads).toBe(2);
    // Any user's write does (the cache does not tell users apart).
    await db.updateItem(keys.user(t.companyId, t.adminUser.id), { updatedAt: new Date().toISOString() });
    await identity();
    expect(userReads).toBe(3);

    // A read answered before a write that lands meanwhile holds the old state: not kept.
    afterNextUserRead = () => db.updateItem(userKey, { allTicket: 'disabled' }).then(() => undefined);
    await db.updateItem(keys.user(t.companyId, t.adminUser.id), { updatedAt: new Date().toISOString() });
    expect((await identity()).allTicket).toBe(true);
    expect((await identity()).allTicket).toBe(false);
    expect(userReads).toBe(5);

    // Kept no longer than a second.
    await new Promise((r) => setTimeout(r, 1100));
    await identity();
    expect(userReads).toBe(6);
  });
});
