import { describe, expect, it } from 'vitest';
import { inboundEventSchema, type InboundEvent } from '@balcao/shared';
import type { MessageItem } from '../../src/table/items.js';
import { memoryWorld } from '../fakes/world.js';

/**
 * A customer's file the session host did not store (issue 17 §1): the message arrives without
 * `media` and with `mediaError`, which is stored on the message and answered with it, so the console
 * can tell the agent what happened.
 */
const { receiveInbound } = await import('../../src/services/inbound.js');
const { toApiMessage } = await import('../../src/services/messages.js');

type World = Awaited<ReturnType<typeof memoryWorld>>;
let seq = 0;
const message = (w: World, id: string, extra: Record<string, unknown>): InboundEvent =>
  inboundEventSchema.parse({
    v: 1,
    eventId: `ev-${++seq}`,
    companyId: w.companyId,
    connectionId: w.connectionId,
    at: new Date(w.ports.time).toISOString(),
    type: 'message',
    waMessageId: id,
    chat: { number: '5511988887777', name: 'Cliente' },
    fromMe: false,
    body: '',
    timestamp: w.ports.time,
    ...extra,
  });

const stored = (w: World, id: string) => w.ports.table.all().find((i) => i.entity === 'message' && i.id === id) as unknown as MessageItem;

describe('an inbound file that was not received', () => {
  it('is stored on the message and answered by the API and the realtime event', async () => {
    const w = await memoryWorld();
    // A right-to-left override in a customer's file name is shown without it, as for stored files.
    const note = { reason: 'tooLarge', size: 129_000_000, limit: 104_857_600, fileName: 'fatura\u202Efdp.exe' };
    await w.ports.run(() => receiveInbound(message(w, 'WA-BIG', { mediaType: 'document', mediaError: note })));
    const item = stored(w, 'WA-BIG');
    expect(item).toMatchObject({ mediaType: 'document', media: null, mediaError: note });
    const api = await w.ports.run(() => toApiMessage(item));
    expect(api).toMatchObject({ mediaUrl: null, mediaError: { reason: 'tooLarge', size: 129_000_000, limit: 104_857_600 } });
    expect(api.mediaError?.fileName).not.toContain('\u202E');
    const created = w.ports.events(`company-${w.companyId}-appMessage`).filter((d) => d.action === 'create');
    expect(created[0]).toMatchObject({ message: { id: 'WA-BIG', mediaError: { reason: 'tooLarge' } } });
  });

  it('a message with its file, or an older one, answers no note', async () => {
    const w = await memoryWorld();
    await w.ports.run(() => receiveInbound(message(w, 'WA-OK', { mediaType: 'image', media: { key: 'c/1/media/1/a.jpg', mimetype: 'image/jpeg', size: 10 } })));
    const item = stored(w, 'WA-OK');
    expect(item.mediaError).toBeUndefined();
    expect((await w.ports.run(() => toApiMessage(item))).mediaError).toBeNull();
  });

  it('a deleted message shows no note either', async () => {
    const w = await memoryWorld();
    await w.ports.run(() => receiveInbound(message(w, 'WA-GONE', { mediaType: 'video', mediaError: { reason: 'unavailable' } })));
    const item = { ...stored(w, 'WA-GONE'), isDeleted: true };
    expect((await w.ports.run(() => toApiMessage(item))).mediaError).toBeNull();
  });
});
