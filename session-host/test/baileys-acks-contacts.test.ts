import { describe, expect, it } from 'vitest';
import { proto } from '@whiskeysockets/baileys';
import { CUSTOMER, CUSTOMER_LID, connected, settle, useBaileysTestHooks, wa } from './baileys-helpers.js';

useBaileysTestHooks();

describe('baileys provider: acks, calls, contacts', () => {
  it('messages.update status and receipts → acks of our messages only', async () => {
    const t = await connected();
    const s = t.last();
    s.emit('messages.update', [
      { key: { remoteJid: CUSTOMER, id: 'OUT1', fromMe: true }, update: { status: proto.WebMessageInfo.Status.SERVER_ACK } },
      { key: { remoteJid: CUSTOMER, id: 'OUT1', fromMe: true }, update: { status: proto.WebMessageInfo.Status.DELIVERY_ACK } },
      { key: { remoteJid: CUSTOMER, id: 'IN1', fromMe: false }, update: { status: proto.WebMessageInfo.Status.READ } },
    ]);
    s.emit('message-receipt.update', [
      { key: { remoteJid: CUSTOMER, id: 'OUT1', fromMe: true }, receipt: { userJid: CUSTOMER, readTimestamp: 1_700_000_100 } },
      { key: { remoteJid: CUSTOMER, id: 'OUT2', fromMe: true }, receipt: { userJid: CUSTOMER, readTimestamp: 1_700_000_100, playedTimestamp: 1_700_000_200 } },
    ]);
    await settle();
    expect(t.events).toEqual([
      { type: 'ack', eventId: 'b7:ack:OUT1:2', chat: { number: '5511988887777' }, waMessageIds: ['OUT1'], ack: 2 },
      { type: 'ack', eventId: 'b7:ack:OUT1:3', chat: { number: '5511988887777' }, waMessageIds: ['OUT1'], ack: 3 },
      { type: 'ack', eventId: 'b7:ack:OUT1:4', chat: { number: '5511988887777' }, waMessageIds: ['OUT1'], ack: 4 },
      { type: 'ack', eventId: 'b7:ack:OUT2:5', chat: { number: '5511988887777' }, waMessageIds: ['OUT2'], ack: 5 },
    ]);
  });

  it('call offer → call event; rejectCall answers the jid the offer came from', async () => {
    const t = await connected();
    const s = t.last();
    const date = new Date('2026-11-21T10:00:00Z');
    s.emit('call', [
      { chatId: CUSTOMER_LID, from: CUSTOMER_LID, callerPn: CUSTOMER, id: 'CALL1', date, isVideo: true, status: 'offer', offline: false },
      { chatId: CUSTOMER_LID, from: CUSTOMER_LID, id: 'CALL1', date, status: 'terminate', offline: false },
    ]);
    await settle();
    expect(t.events).toEqual([
      { type: 'call', eventId: 'b7:call:CALL1', chat: { number: '5511988887777', lid: '99887766554433' }, callId: 'CALL1', isVideo: true, timestamp: date.getTime() },
    ]);
    await t.session.rejectCall('CALL1', { number: '5511988887777' });
    expect(s.rejectCall).toHaveBeenCalledWith('CALL1', CUSTOMER_LID);
  });

  it('contacts upsert/update → contact events on change only; saved names form the address book', async () => {
    const t = await connected();
    const s = t.last();
    s.emit('contacts.upsert', [{ id: CUSTOMER_LID, phoneNumber: CUSTOMER, name: 'Ana Cliente', notify: 'Ana' }]);
    s.emit('contacts.update', [{ id: CUSTOMER_LID, phoneNumber: CUSTOMER, name: 'Ana Cliente' }]);
    s.emit('contacts.update', [{ id: CUSTOMER, imgUrl: 'changed' }]);
    s.emit('contacts.update', [{ id: '5511933332222@s.whatsapp.net', notify: 'Só push' }]);
    await settle();
    // One contact's events in order; another contact's are independent of them.
    const of = (number: string) => t.events.filter((e) => e.type === 'contact' && e.peer.number === number);
    expect(t.events).toHaveLength(3);
    expect(of('5511988887777')).toEqual([
      expect.objectContaining({ type: 'contact', peer: { number: '5511988887777', lid: '99887766554433' }, name: 'Ana Cliente' }),
      expect.objectContaining({ type: 'contact', peer: { number: '5511988887777', lid: '99887766554433' }, pictureUrl: 'https://pps.whatsapp.net/new.jpg' }),
    ]);
    expect(of('5511933332222')).toEqual([expect.objectContaining({ type: 'contact', peer: { number: '5511933332222' }, name: 'Só push' })]);
    expect(s.profilePictureUrl).toHaveBeenCalledWith(CUSTOMER, 'image');
    expect(await t.session.addressBook()).toEqual([{ number: '5511988887777', name: 'Ana Cliente' }]);
    // Kept in the table for the next session (saved on stop at the latest).
    await t.session.stop();
    expect(JSON.parse(t.data.get('addressbook')!)).toEqual({ '5511988887777': 'Ana Cliente' });
  });
});

describe('baileys provider: history', () => {
  it('history is never published; its saved names feed the address book', async () => {
    const t = await connected();
    t.last().emit('messaging-history.set', {
      chats: [],
      contacts: [{ id: '5511922223333@s.whatsapp.net', name: 'Carlos' }, { id: '88877766655544@lid', name: 'Dora' }, { id: '5511944445555@s.whatsapp.net', notify: 'só push' }],
      messages: [wa({ key: { remoteJid: CUSTOMER, id: 'OLD1', fromMe: false }, message: { conversation: 'antiga' } })],
      lidPnMappings: [{ lid: '88877766655544@lid', pn: '5511911112222@s.whatsapp.net' }],
      isLatest: true,
    });
    await settle();
    expect(t.events).toEqual([]);
    expect(await t.session.addressBook()).toEqual([
      { number: '5511922223333', name: 'Carlos' },
      { number: '5511911112222', name: 'Dora' },
    ]);
  });
});
