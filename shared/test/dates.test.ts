import { describe, expect, it } from 'vitest';
import {
  companyTimeZone,
  dateFormatter,
  dayInputValue,
  formatDateBR,
  formatInZone,
  fromZonedInput,
  relativeDay,
  zonedInputValue,
  zonedWallClock,
} from '../src/index.js';

// Issue 14 §5: one formatter, the company's zone and the language's pattern.
const SP = 'America/Sao_Paulo';

describe('the console date formatter', () => {
  const instant = '2026-11-26T15:04:00.000Z';

  it('writes a 4-digit year in every language (Spanish showed 26/11/26 where Portuguese showed 26/11/2026)', () => {
    expect(dateFormatter(SP, 'pt').day(instant)).toBe('26/11/2026');
    expect(dateFormatter(SP, 'es').day(instant)).toBe('26/11/2026');
    expect(dateFormatter(SP, 'en').day(instant)).toBe('11/26/2026');
    expect(dateFormatter(SP, 'es').dateTime(instant)).toBe('26/11/2026 12:04');
    // i18next may carry a region; unknown languages fall back to Portuguese.
    expect(dateFormatter(SP, 'es-AR').day(instant)).toBe('26/11/2026');
    expect(dateFormatter(SP, 'fr').day(instant)).toBe('26/11/2026');
  });

  it("reads the day on the company's clock: 01:30 UTC is the previous day in São Paulo, the same day in UTC and Europe", () => {
    const late = '2026-11-26T01:30:00.000Z';
    expect(dateFormatter(SP, 'pt').day(late)).toBe('25/11/2026');
    expect(dateFormatter(SP, 'pt').dateTime(late)).toBe('25/11/2026 22:30');
    expect(dateFormatter('UTC', 'pt').day(late)).toBe('26/11/2026');
    expect(dateFormatter('Europe/Lisbon', 'pt').day(late)).toBe('26/11/2026');
    expect(dateFormatter('Europe/Berlin', 'es').dateTime(late)).toBe('26/11/2026 02:30');
    // The server's texts and the due-date input agree with the console.
    expect(formatDateBR(late, 'UTC')).toBe('26/11/2026');
    expect(dayInputValue(late, 'Europe/Berlin')).toBe('2026-11-26');
  });

  it('a company created today is created today on every screen, in any zone', () => {
    const createdAt = '2026-11-26T01:30:00.000Z';
    const now = '2026-11-26T02:10:00.000Z';
    for (const zone of [SP, 'UTC', 'Europe/Lisbon', 'Asia/Tokyo']) {
      const f = dateFormatter(zone, 'pt');
      expect(f.relativeDay(createdAt, now)).toBe('today');
      expect(f.day(createdAt)).toBe(f.day(now));
    }
  });

  it("tells today and yesterday by the company's calendar day", () => {
    const now = '2026-11-26T02:00:00.000Z'; // 25/11 23:00 in São Paulo
    expect(relativeDay('2026-11-25T04:00:00.000Z', SP, now)).toBe('today'); // 25/11 01:00 there
    expect(relativeDay('2026-11-25T02:30:00.000Z', SP, now)).toBe('yesterday'); // 24/11 23:30
    expect(relativeDay('2026-11-24T02:30:00.000Z', SP, now)).toBeNull();
    // The same instants in UTC: 26/11 is today, 25/11 yesterday.
    expect(relativeDay('2026-11-25T04:00:00.000Z', 'UTC', now)).toBe('yesterday');
    expect(relativeDay('2026-11-26T00:10:00.000Z', 'UTC', now)).toBe('today');
    // A calendar day, not 24 hours: Berlin's 29/03/2026 had 23, so 24 h before 30/03 00:30 is 28/03.
    expect(relativeDay('2026-03-29T12:00:00.000Z', 'Europe/Berlin', '2026-03-29T22:30:00.000Z')).toBe('yesterday');
    expect(relativeDay('2026-03-28T22:45:00.000Z', 'Europe/Berlin', '2026-03-29T22:30:00.000Z')).toBeNull();
    // Lists: the time today, the day before that.
    const f = dateFormatter(SP, 'pt');
    expect(f.timeOrDay('2026-11-25T04:00:00.000Z', now)).toBe('01:00');
    expect(f.timeOrDay('2026-11-25T02:30:00.000Z', now)).toBe('24/11/2026');
  });

  it('writes connection updates and notes as dd/MM/yy HH:mm (spec 000 §9, 001 §9)', () => {
    expect(dateFormatter(SP, 'pt').shortDateTime('2026-03-05T12:07:00.000Z')).toBe('05/03/26 09:07');
    expect(dateFormatter(SP, 'es').shortDateTime('2026-03-05T12:07:00.000Z')).toBe('05/03/26 09:07');
    expect(dateFormatter(SP, 'en').shortDateTime('2026-03-05T12:07:00.000Z')).toBe('03/05/26 09:07');
    expect(dateFormatter(SP, 'pt').time('2026-03-05T03:00:00.000Z')).toBe('00:00');
  });

  it('shows nothing for a missing or invalid date, and an unknown zone reads as UTC', () => {
    const f = dateFormatter(SP, 'pt');
    expect(f.day(null)).toBe('');
    expect(f.day(undefined)).toBe('');
    expect(f.dateTime('not a date')).toBe('');
    expect(f.timeOrDay('')).toBe('');
    expect(formatInZone('2026-11-26T01:30:00.000Z', 'day', 'pt', 'Not/A_Zone')).toBe('26/11/2026');
  });

  it("takes the zone from the signed-in user's company settings, São Paulo by default", () => {
    expect(companyTimeZone({ company: { settings: [{ key: 'timezone', value: 'Europe/Lisbon' }] } })).toBe('Europe/Lisbon');
    expect(companyTimeZone({ company: { settings: [] } })).toBe(SP);
    expect(companyTimeZone(null)).toBe(SP);
  });
});

describe("the schedule's send time on the company's clock", () => {
  it('fills a datetime-local field with the wall time in the zone and reads it back to the same instant', () => {
    const at = '2026-11-26T13:45:00.000Z';
    expect(zonedInputValue(at, SP)).toBe('2026-11-26T10:45');
    expect(zonedInputValue(at, 'Europe/Lisbon')).toBe('2026-11-26T13:45');
    expect(fromZonedInput('2026-11-26T10:45', SP)).toBe(at);
    expect(fromZonedInput('2026-11-26T13:45', 'Europe/Lisbon')).toBe(at);
    expect(fromZonedInput('2026-11-27T00:15', 'Asia/Tokyo')).toBe('2026-11-26T15:15:00.000Z');
  });

  it('round-trips every minute across daylight-saving changes', () => {
    // Europe/Lisbon: 29/03/2026 01:00→02:00, 25/10/2026 02:00→01:00.
    for (const start of [Date.UTC(2026, 2, 28, 22), Date.UTC(2026, 9, 24, 22)]) {
      for (let t = start; t < start + 6 * 3_600_000; t += 15 * 60_000) {
        const iso = new Date(t).toISOString();
        expect(fromZonedInput(zonedInputValue(iso, 'Europe/Lisbon'), 'Europe/Lisbon', iso)).toBe(iso);
      }
    }
  });

  it('reads a repeated wall time as its first occurrence and a skipped one after the gap', () => {
    // 25/10/2026 01:30 happens twice in Lisbon (00:30Z and 01:30Z).
    expect(fromZonedInput('2026-10-25T01:30', 'Europe/Lisbon')).toBe('2026-10-25T00:30:00.000Z');
    // 29/03/2026 01:30 does not exist there: read with the winter offset, it is 02:30 summer time.
    expect(fromZonedInput('2026-03-29T01:30', 'Europe/Lisbon')).toBe('2026-03-29T01:30:00.000Z');
  });

  it('sends an untouched field back as the instant it was filled from, seconds included', () => {
    const stored = '2026-11-26T13:45:37.120Z';
    expect(fromZonedInput(zonedInputValue(stored, SP), SP, stored)).toBe(stored);
    expect(fromZonedInput('2026-11-26T11:00', SP, stored)).toBe('2026-11-26T14:00:00.000Z');
  });

  it('refuses values that name no time', () => {
    expect(fromZonedInput('', SP)).toBeNull();
    expect(fromZonedInput('2026-02-30T10:00', SP)).toBeNull();
    expect(fromZonedInput('2026-11-26T24:10', SP)).toBeNull();
    expect(fromZonedInput('26/11/2026 10:00', SP)).toBeNull();
  });

  it("gives the calendar a Date whose local fields are the company's wall clock", () => {
    const d = zonedWallClock('2026-11-26T01:30:00.000Z', SP);
    expect([d.getFullYear(), d.getMonth() + 1, d.getDate(), d.getHours(), d.getMinutes()]).toEqual([2026, 11, 25, 22, 30]);
    expect(Number.isNaN(zonedWallClock('nope', SP).getTime())).toBe(true);
  });
});
