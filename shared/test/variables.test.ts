import { describe, expect, it } from 'vitest';
import { ACCEPT_GREETING, fillVariables, greetingOf } from '../src/variables.js';

describe('fillVariables (server-behaviour §3)', () => {
  it('greets by the hour in the company time zone', () => {
    // 12:30 UTC is 09:30 in São Paulo (UTC-3) and 21:30 in Tokyo.
    const now = new Date('2026-03-10T12:30:05Z');
    expect(fillVariables('{{ms}}', { timeZone: 'America/Sao_Paulo', now })).toBe('Bom dia');
    expect(fillVariables('{{ms}}', { timeZone: 'Asia/Tokyo', now })).toBe('Boa noite');
    expect(fillVariables('{{ms}}', { timeZone: 'UTC', now })).toBe('Boa tarde');
    expect(fillVariables('{{ms}}', { timeZone: 'America/Sao_Paulo', now: new Date('2026-03-10T05:59:59Z') })).toBe('Boa madrugada');
  });

  it('bounds of the greetings', () => {
    expect([0, 5, 6, 11, 12, 17, 18, 23].map(greetingOf)).toEqual([
      'Boa madrugada', 'Boa madrugada', 'Bom dia', 'Bom dia', 'Boa tarde', 'Boa tarde', 'Boa noite', 'Boa noite',
    ]);
  });

  it('fills name, firstName, hora, protocol, queue and agent; keeps unknown variables', () => {
    const now = new Date('2026-03-10T12:03:04Z');
    const out = fillVariables('{{name}}|{{firstName}}|{{hora}}|{{protocol}}|{{queue}}|{{agent}}|{{nome}}', {
      name: ' Maria da Silva ', queue: 'Vendas', agent: 'João', timeZone: 'America/Sao_Paulo', now,
    });
    expect(out).toBe('Maria da Silva|Maria|9:03:04|20260310090304|Vendas|João|{{nome}}');
  });

  it('the accept greeting', () => {
    const now = new Date('2026-03-10T18:00:00Z');
    expect(fillVariables(ACCEPT_GREETING, { name: 'Ana', agent: 'Bia', timeZone: 'America/Sao_Paulo', now })).toBe(
      'Boa tarde Ana, meu nome é Bia e vou prosseguir com seu atendimento!',
    );
  });

  it('an unknown zone falls back to UTC instead of failing', () => {
    expect(fillVariables('{{ms}}', { timeZone: 'Nowhere/City', now: new Date('2026-03-10T07:00:00Z') })).toBe('Bom dia');
  });
});
