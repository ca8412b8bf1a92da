import { describe, expect, it } from 'vitest';
import { contactMatches, contactTokens, messageTokens, parseQuery } from '../../src/services/search-index.js';
import { zonedDayRange } from '../../src/services/ticket-list.js';

describe('search index tokens', () => {
  it('indexes the folded name from each word on and every 4+ digit suffix of the number', () => {
    const tokens = contactTokens({ name: 'João  CONCEIÇÃO-Silva', number: '5521976543210' });
    // Each word starts a token (a word prefix is a key prefix), and so does a run of words in order.
    expect(tokens.filter((t) => t.kind === 'N').map((t) => t.token)).toEqual(['joao conceicao silva', 'conceicao silva', 'silva']);
    const long = contactTokens({ name: `${'a'.repeat(40)} Maria da Silva`, number: '1' }).filter((t) => t.kind === 'N');
    expect(long.map((t) => t.token)).toEqual([`${'a'.repeat(30)} maria da silva`, 'maria da silva', 'da silva', 'silva']);
    const digits = tokens.filter((t) => t.kind === 'D').map((t) => t.token);
    expect(digits).toHaveLength(10);
    expect(digits[0]).toBe('5521976543210');
    expect(digits.at(-1)).toBe('3210');
    // Any run inside the number is the start of one suffix.
    expect(digits.some((d) => d.startsWith('765432'))).toBe(true);
  });

  it('skips name words of a contact still named by its number', () => {
    expect(contactTokens({ name: '5521976543210', number: '5521976543210' }).every((t) => t.kind === 'D')).toBe(true);
  });

  it('indexes message words without stop words, short words or duplicates', () => {
    expect(messageTokens('Olá! O pedido nº 77812 de você: PEDIDO atrasou, a')).toEqual(['ola', 'pedido', 'nº', '77812', 'atrasou']);
    expect(messageTokens('x '.repeat(10) + Array.from({ length: 100 }, (_, i) => `w${i}`).join(' '))).toHaveLength(64);
  });

  it('parses a query: phone text is one number, stop words dropped when others exist', () => {
    expect(parseQuery('+55 (21) 97654-3210').map((w) => w.word)).toEqual(['5521976543210']);
    expect(parseQuery('o pedido de João').map((w) => w.word)).toEqual(['pedido', 'joao']);
    expect(parseQuery('de').map((w) => w.word)).toEqual(['de']);
    // A one-letter word beside a longer one narrows by name only ("Souza M" → Souza Maria).
    expect(parseQuery('souza m')).toEqual([expect.objectContaining({ word: 'souza' }), { word: 'm', name: 'm', message: false, filterOnly: true }]);
    expect(parseQuery('de')[0].message).toBe(false);
    expect(parseQuery('1234')[0]).toMatchObject({ digits: '1234', message: true });
    expect(parseQuery('123')[0].digits).toBeUndefined();
  });

  it('checks a contact against a word like the index does', () => {
    const c = { name: 'Maria Joana', number: '5531912348888' };
    const [jo] = parseQuery('JO');
    expect(contactMatches(c, jo)).toBe(true);
    expect(contactMatches(c, parseQuery('2348')[0])).toBe(true);
    expect(contactMatches(c, parseQuery('ana')[0])).toBe(false);
  });
});

describe('days of the company time zone', () => {
  it('São Paulo days start at 03:00 UTC', () => {
    expect(zonedDayRange('2020-03-09', 'America/Sao_Paulo')).toEqual(['2020-03-09T03:00:00.000Z', '2020-03-10T03:00:00.000Z']);
  });
  it('follows daylight saving changes (New York, 8 March 2020 is 23 hours long)', () => {
    expect(zonedDayRange('2020-03-08', 'America/New_York')).toEqual(['2020-03-08T05:00:00.000Z', '2020-03-09T04:00:00.000Z']);
  });
  it('UTC and zones east of it', () => {
    expect(zonedDayRange('2024-02-29', 'UTC')).toEqual(['2024-02-29T00:00:00.000Z', '2024-03-01T00:00:00.000Z']);
    expect(zonedDayRange('2024-01-01', 'Asia/Kolkata')).toEqual(['2023-12-31T18:30:00.000Z', '2024-01-01T18:30:00.000Z']);
  });
});
