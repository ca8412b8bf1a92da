import { describe, expect, it } from 'vitest';
import { member } from './client.js';
import { conversation } from './messages-helpers.js';

describe('message search in a ticket', () => {
  it('finds messages by a part of their text (accents and case folded), newest first, in bounded pages', async () => {
    const t = await conversation('5511976543101');
    // 45 messages of ours, every third one about the invoice.
    for (let i = 1; i <= 45; i++) {
      const body = i % 3 === 0 ? `Segue a Cobrança número ${i}` : `Mensagem comum ${i}`;
      expect((await t.admin.post(`/messages/${t.ticketId}`, { body })).status).toBe(201);
    }
    const first = await t.admin.get(`/messages/${t.ticketId}?searchParam=${encodeURIComponent('COBRANCA')}`);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.messages).toHaveLength(15);
    expect(first.body.messages[0].body).toBe('Segue a Cobrança número 45');
    expect(first.body.messages.at(-1).body).toBe('Segue a Cobrança número 3');
    expect(first.body.hasMore).toBe(false);

    // A word on more than a page of messages: the cursor continues without gaps or repeats.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: any } = await t.admin.get(`/messages/${t.ticketId}?searchParam=comum${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.messages.map((m: { body: string }) => m.body));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(30);
    expect(new Set(seen).size).toBe(30);
    expect(seen[0]).toBe('Mensagem comum 44');

    // Under two characters is refused with the field; nothing found is an empty page.
    const short = await t.admin.get(`/messages/${t.ticketId}?searchParam=a`);
    expect(short.status).toBe(400);
    expect(short.body.fields[0].field).toBe('searchParam');
    expect((await t.admin.get(`/messages/${t.ticketId}?searchParam=inexistente`)).body.messages).toEqual([]);

    // Someone who may not see the ticket cannot search it.
    const agent = await member(t.admin, { profile: 'Nível 1' });
    expect((await agent.api.get(`/messages/${t.ticketId}?searchParam=comum`)).status).toBe(404);
    t.ws.close();
  });
});
