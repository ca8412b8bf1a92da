import { describe, expect, it } from 'vitest';
import { CAMPAIGN_SETTINGS_DEFAULTS, campaignSettingsFrom } from '@balcao/shared';
import { memoryAgent, memoryWorld, run, refusal } from '../fakes/world.js';

/**
 * Campaign settings (issue 20 §3; spec 002 §3, §5, §7, §9) on in-memory ports: the defaults, the
 * spec's key/value answer with JSON values, a round trip, the option lists, variables (shortcut
 * rules, no key twice, at most 50), partial saves, companies apart, and the gate.
 */
const s = await import('../../src/services/campaign-settings.js');
const { createCompany } = await import('../../src/services/companies.js');
const { authorizeRoute } = await import('../../src/core/identity.js');
const { routes } = await import('../../src/routes.js');

describe('campaign settings', () => {
  it('answers the defaults (20, 20, 60, no variables) as the spec’s key/value list before any save', async () => {
    const w = await memoryWorld();
    const me = await memoryAgent(w, 'Ana', { profile: 'admin' });
    expect(await run(w, () => s.listCampaignSettings(me))).toEqual([
      { key: 'messageInterval', value: '20' },
      { key: 'longerIntervalAfter', value: '20' },
      { key: 'greaterInterval', value: '60' },
      { key: 'variables', value: '[]' },
    ]);
    expect(await run(w, () => s.getCampaignSettings(w.companyId))).toEqual(CAMPAIGN_SETTINGS_DEFAULTS);
  });

  it('saves and reads back; fields left out keep their values; the reference’s {settings} wrapping is taken', async () => {
    const w = await memoryWorld();
    const me = await memoryAgent(w, 'Ana', { profile: 'admin' });
    const saved = await run(w, () =>
      s.saveCampaignSettings(me, { messageInterval: 5, longerIntervalAfter: '100', greaterInterval: 0, variables: [{ key: 'cupom', value: 'BLACK10' }, { key: 'site_2', value: 'https://loja.example.com' }] }),
    );
    const expected = { messageInterval: 5, longerIntervalAfter: 100, greaterInterval: 0, variables: [{ key: 'cupom', value: 'BLACK10' }, { key: 'site_2', value: 'https://loja.example.com' }] };
    expect(campaignSettingsFrom(saved)).toEqual(expected);
    expect(saved.find((e) => e.key === 'variables')!.value).toBe(JSON.stringify(expected.variables));
    expect(await run(w, () => s.getCampaignSettings(w.companyId))).toEqual(expected);
    expect(campaignSettingsFrom(await run(w, () => s.listCampaignSettings(me)))).toEqual(expected);

    // Only the pause: the rest stays.
    await run(w, () => s.saveCampaignSettings(me, { greaterInterval: 120 }));
    expect(await run(w, () => s.getCampaignSettings(w.companyId))).toEqual({ ...expected, greaterInterval: 120 });
    // The reference console posts {settings: {...}}; an empty variables list clears them.
    await run(w, () => s.saveCampaignSettings(me, { settings: { messageInterval: 0, variables: [] } }));
    expect(await run(w, () => s.getCampaignSettings(w.companyId))).toEqual({ ...expected, messageInterval: 0, greaterInterval: 120, variables: [] });

    // Another company keeps its own (the defaults).
    const other = await run(w, () => createCompany({ name: 'Outra Loja', email: 'outra@example.com', planId: w.plan.id }));
    const theirs = await memoryAgent({ ...w, companyId: other.company.id }, 'Bia', { profile: 'admin' });
    expect(campaignSettingsFrom(await run(w, () => s.listCampaignSettings(theirs)))).toEqual(CAMPAIGN_SETTINGS_DEFAULTS);
  });

  it('refuses values outside the spec’s lists and bad variables, saving nothing', async () => {
    const w = await memoryWorld();
    const me = await memoryAgent(w, 'Ana', { profile: 'admin' });
    const cases: [unknown, object][] = [
      [{ messageInterval: 7 }, { field: 'messageInterval', message: 'Valor inválido' }],
      [{ messageInterval: 'vinte' }, { field: 'messageInterval', message: 'Valor inválido' }],
      [{ longerIntervalAfter: 2 }, { field: 'longerIntervalAfter', message: 'Valor inválido' }],
      [{ greaterInterval: -60 }, { field: 'greaterInterval', message: 'Valor inválido' }],
      [{ variables: [{ key: 'cupom', value: 'A' }, { key: 'CUPOM', value: 'B' }] }, { field: 'variables.1.key', message: 'Já existe uma variável com este atalho' }],
      [{ variables: [{ key: 'meu cupom', value: 'A' }] }, { field: 'variables.0.key', message: 'Use apenas letras, números e _ no atalho' }],
      [{ variables: [{ key: '{cupom}', value: 'A' }] }, { field: 'variables.0.key', message: 'Use apenas letras, números e _ no atalho' }],
      [{ variables: [{ key: 'Nome', value: 'A' }] }, { field: 'variables.0.key', message: 'Este atalho já é uma variável do sistema ({nome}, {numero}, {email})' }],
      [{ variables: [{ key: '', value: 'A' }] }, { field: 'variables.0.key', message: 'Required' }],
      [{ variables: [{ key: 'cupom', value: '  ' }] }, { field: 'variables.0.value', message: 'Required' }],
      [{ variables: [{ key: 'x'.repeat(31), value: 'A' }] }, { field: 'variables.0.key', message: 'Too Long!' }],
      [{ variables: Array.from({ length: 51 }, (_, i) => ({ key: `v${i}`, value: 'x' })) }, { field: 'variables', message: 'No máximo 50 variáveis' }],
      [{ variables: 'cupom=1' }, { field: 'variables' }],
    ];
    for (const [body, field] of cases) {
      const r = await refusal(run(w, () => s.saveCampaignSettings(me, body)));
      expect(r, JSON.stringify(body)).toMatchObject({ status: 400, code: 'ERR_VALIDATION' });
      expect((r as { fields: unknown[] }).fields[0], JSON.stringify(body)).toMatchObject(field);
    }
    expect(await run(w, () => s.getCampaignSettings(w.companyId))).toEqual(CAMPAIGN_SETTINGS_DEFAULTS);
    // Fifty is the limit, not over it.
    await run(w, () => s.saveCampaignSettings(me, { variables: Array.from({ length: 50 }, (_, i) => ({ key: `v${i}`, value: 'x' })) }));
    expect((await run(w, () => s.getCampaignSettings(w.companyId))).variables).toHaveLength(50);
  });

  it('reads what cannot be used (an older or hand-edited item) as its default', async () => {
    const w = await memoryWorld();
    const { putItem } = await import('../../src/core/db.js');
    const { campaignSettingsKey } = await import('../../src/table/keys.js');
    await run(w, () => putItem({ ...campaignSettingsKey(w.companyId), entity: 'campaignSettings', companyId: w.companyId, messageInterval: 7, longerIntervalAfter: 40, updatedAt: '2026-01-01T00:00:00.000Z' }));
    expect(await run(w, () => s.getCampaignSettings(w.companyId))).toEqual({ messageInterval: 20, longerIntervalAfter: 40, greaterInterval: 60, variables: [] });
  });

  it('the routes need an admin, the plan’s useCampaigns and the company’s campaignsEnabled', async () => {
    const w = await memoryWorld();
    const me = await memoryAgent(w, 'Ana', { profile: 'admin' });
    const agent = await memoryAgent(w, 'Beto', { profile: 'Nível 3' });
    const mine = routes.filter((r) => r.handler === 'campaignSettings');
    expect(mine.map((r) => `${r.method} ${r.path}`).sort()).toEqual(['GET /campaign-settings', 'POST /campaign-settings']);
    for (const route of mine) {
      expect(() => authorizeRoute(me, route)).not.toThrow();
      expect(() => authorizeRoute({ ...me, company: { ...me.company, campaignsEnabled: false } }, route)).toThrow('ERR_PLAN_FEATURE_DISABLED');
      expect(() => authorizeRoute({ ...me, plan: { ...me.plan!, useCampaigns: false } }, route)).toThrow('ERR_PLAN_FEATURE_DISABLED');
      expect(() => authorizeRoute(agent, route)).toThrow('ERR_NO_PERMISSION');
    }
  });
});
