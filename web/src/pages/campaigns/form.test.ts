import { describe, expect, it } from 'vitest';
import type { ApiCampaign } from '@balcao/shared';
import { campaignBody, isPast, toValues, wireDate } from './form';

const SP = 'America/Sao_Paulo';

const campaign = (over: Partial<ApiCampaign> = {}): ApiCampaign =>
  ({
    id: 7,
    name: 'Black Friday',
    message1: 'Olá {nome}',
    message2: '',
    message3: 'Oi {nome}',
    message4: '',
    message5: '',
    confirmationMessage1: 'Posso enviar?',
    confirmationMessage2: '',
    confirmationMessage3: '',
    confirmationMessage4: '',
    confirmationMessage5: '',
    status: 'PROGRAMADA',
    confirmation: true,
    scheduledAt: '2030-03-10T13:30:45.000Z',
    completedAt: null,
    whatsappId: 3,
    contactListId: 4,
    tagListId: null,
    fileListId: null,
    ...over,
  }) as ApiCampaign;

describe('campaign form', () => {
  it('shows the stored instant on the company wall clock and selects as strings', () => {
    const v = toValues(campaign(), SP);
    expect(v.scheduledAt).toBe('2030-03-10T10:30');
    expect([v.confirmation, v.whatsappId, v.contactListId, v.tagListId]).toEqual(['true', '3', '4', '']);
    expect(toValues(null, SP)).toMatchObject({ name: '', confirmation: 'false', scheduledAt: '', message1: '' });
  });

  it('sends YYYY-MM-DD HH:mm:ss on the wall clock, the kept instant with its seconds, and null when empty (spec 002 §5)', () => {
    expect(wireDate('2030-03-10T11:00', SP, null)).toBe('2030-03-10 11:00:00');
    expect(wireDate('2030-03-10T10:30', SP, '2030-03-10T13:30:45.000Z')).toBe('2030-03-10 10:30:45');
    expect(wireDate('2030-03-10T10:31', SP, '2030-03-10T13:30:45.000Z')).toBe('2030-03-10 10:31:00');
    expect(wireDate('  ', SP, null)).toBeNull();
  });

  it('tells a new time in the past, not a kept one', () => {
    const now = Date.parse('2030-03-10T13:00:00Z');
    expect(isPast('2030-03-10T09:59', SP, null, now)).toBe(true);
    expect(isPast('2030-03-10T10:01', SP, null, now)).toBe(false);
    expect(isPast('2030-03-10T09:00', SP, '2030-03-10T12:00:00Z', now)).toBe(false);
    expect(isPast('', SP, null, now)).toBe(false);
  });

  it('sends everything while editable, only the messages of a cancelled campaign', () => {
    const v = { ...toValues(campaign(), SP), tagListId: '', fileListId: '9', message2: '  Promoção  ' };
    expect(campaignBody(v, 'all', SP, campaign().scheduledAt)).toMatchObject({
      name: 'Black Friday',
      confirmation: true,
      contactListId: 4,
      tagListId: null,
      whatsappId: 3,
      fileListId: 9,
      scheduledAt: '2030-03-10 10:30:45',
      message2: 'Promoção',
    });
    const messages = campaignBody(v, 'messages', SP, null);
    expect(Object.keys(messages).sort()).toEqual(
      ['message1', 'message2', 'message3', 'message4', 'message5', 'confirmationMessage1', 'confirmationMessage2', 'confirmationMessage3', 'confirmationMessage4', 'confirmationMessage5'].sort(),
    );
  });
});
