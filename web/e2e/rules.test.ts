import { describe, expect, it } from 'vitest';
import { ERROR_CODES, type User } from '@balcao/shared';
import { visibleItems } from '../src/shell/menu.js';
import { formatWhatsappNumber, maskPhone } from '../src/ui/phone.js';
import { needsAttention } from '../src/pages/connections/badge.js';
import pt from '../src/i18n/pt.js';
import en from '../src/i18n/en.js';
import es from '../src/i18n/es.js';

// Pure rules of the console; they live with the browser tests because the web has no unit project.

const user = (over: Partial<User>): User =>
  ({ id: 1, name: 'A', email: 'a@b.c', profile: 'Nível 1', companyId: 1, super: false, online: true, photoUrl: null, whatsappId: null, queues: [], allTicket: 'desabled', sendGreetingAccepted: false, createdAt: '', updatedAt: '', ...over }) as User;

describe('menu rules', () => {
  it('shows the administration items to admins only (any casing of admin)', () => {
    // No plan on these users: only the items without a plan flag.
    const main = ['/tickets', '/quick-messages', '/todolist', '/contacts', '/schedules', '/tags', '/helps'];
    expect(visibleItems(user({ profile: 'Nível 3' })).map((i) => i.to)).toEqual(['/', ...main]);
    // An admin's `/` is the dashboard, the administration section's first item (spec 000 §2.2).
    expect(visibleItems(user({ profile: 'admin' })).map((i) => i.to)).toEqual([...main, '/', '/connections', '/files', '/queues', '/users', '/financeiro', '/settings']);
    expect(visibleItems(user({ profile: 'ADMIN' as User['profile'] })).map((i) => i.to)).toContain('/settings');
  });

  it('shows the campaigns group to admins whose plan has campaigns and whose company has them on (cshow is no gate)', () => {
    const company = (plan: boolean, enabled?: boolean) => ({ company: { id: 1, plan: { useCampaigns: plan }, ...(enabled === undefined ? {} : { campaignsEnabled: enabled }) } }) as unknown as Partial<User>;
    const campaigns = ['/campaigns', '/contact-lists', '/campaigns-config'];
    const to = (u: User) => visibleItems(u).map((i) => i.to);
    expect(to(user({ profile: 'admin', ...company(true) }))).toEqual(expect.arrayContaining(campaigns));
    expect(to(user({ profile: 'admin', ...company(true, true) }))).toEqual(expect.arrayContaining(campaigns));
    expect(to(user({ profile: 'admin', ...company(true, false) })).filter((p) => campaigns.includes(p))).toEqual([]);
    expect(to(user({ profile: 'admin', ...company(false, true) })).filter((p) => campaigns.includes(p))).toEqual([]);
    expect(to(user({ profile: 'Nível 3', ...company(true, true) })).filter((p) => campaigns.includes(p))).toEqual([]);
  });
});

describe('phone mask', () => {
  it.each([
    ['', ''],
    ['1', '(1'],
    ['119', '(11) 9'],
    ['11987654321', '(11) 98765-4321'],
    ['(11) 98765-43219999', '(11) 98765-4321'],
    ['1133334444', '(11) 33334-444'],
  ])('%s → %s', (raw, masked) => expect(maskPhone(raw)).toBe(masked));
});

describe('connection number', () => {
  it.each([
    ['5511987654321', '+55 (11) 98765-4321'],
    ['551133334444', '+55 (11) 3333-4444'],
    ['', ''],
    ['14155550123', '+14155550123'],
  ])('%s → %s', (raw, shown) => expect(formatWhatsappNumber(raw)).toBe(shown));
});

describe('connections badge', () => {
  it('shows only when every connection needs attention', () => {
    expect(needsAttention([])).toBe(false);
    expect(needsAttention([{ status: 'qrcode' }, { status: 'TIMEOUT' }])).toBe(true);
    expect(needsAttention([{ status: 'qrcode' }, { status: 'CONNECTED' }])).toBe(false);
  });
});

describe('catalogues', () => {
  const keys = (o: object, prefix = ''): string[] =>
    Object.entries(o).flatMap(([k, v]) => (typeof v === 'object' && v ? keys(v, `${prefix}${k}.`) : [`${prefix}${k}`]));
  it('en and es carry exactly the keys of pt, none empty', () => {
    expect(keys(en).sort()).toEqual(keys(pt).sort());
    expect(keys(es).sort()).toEqual(keys(pt).sort());
    for (const cat of [pt, en, es]) for (const k of keys(cat)) expect(k.split('.').reduce((o: any, p) => o[p], cat)).not.toBe('');
  });
  it('translates every error code of the shared catalogue', () => {
    for (const cat of [pt, en, es]) for (const code of ERROR_CODES) expect(cat.errors[code], code).toBeTruthy();
  });
});
