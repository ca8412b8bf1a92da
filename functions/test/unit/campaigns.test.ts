import { afterEach, describe, expect, it } from 'vitest';
import { memoryAgent, memoryWorld, run, refusal } from '../fakes/world.js';
import { fakePhone } from '../fakes/phone.js';

/**
 * Campaigns (issue 20 §3-§5) on in-memory ports, with a clock the test moves: the dialog's checks,
 * the start at its second, one message per recipient with a random variant and its variables, the
 * pace per connection (jitter and the long pause, two campaigns sharing it), cancel and restart,
 * redelivered jobs and a crash between send and record (nothing twice), the confirmation flow, the
 * editability rule and the sweeper's safety net.
 */
const campaigns = await import('../../src/services/campaigns.js');
const dispatch = await import('../../src/services/campaign-dispatch.js');
const lists = await import('../../src/services/campaign-contact-lists.js');
const settings = await import('../../src/services/campaign-settings.js');
const { getItem, updateItem, queryAll } = await import('../../src/core/db.js');
const { campaignKey, connectionKey, shipmentsPartition, laneKey, contactKey, keys } = await import('../../src/table/keys.js');

type World = Awaited<ReturnType<typeof memoryWorld>>;
type Identity = Awaited<ReturnType<typeof memoryAgent>>;

/** The fake phones answering number checks, stopped after each test. */
const phones: { stop: () => void }[] = [];
afterEach(() => phones.splice(0).forEach((p) => p.stop()));

/**
 * A company with a campaigns plan and a list of `recipients` items, made while the connection was
 * down (their numbers unknown: the campaign's planning asks WhatsApp), then connected.
 */
async function setup(recipients = 10, absent = new Set<string>()) {
  const w = await memoryWorld();
  await run(w, () => updateItem(keys.plan(w.plan.id), { campaigns: 10, useCampaigns: true }));
  const me = await memoryAgent(w, 'Ana', { profile: 'admin' });
  const list = await run(w, () => lists.createContactList(me, { name: 'Clientes' }));
  for (let i = 0; i < recipients; i++) {
    await run(w, () => lists.createContactListItem(me, { name: `Cliente ${i}`, number: `55119000${String(i).padStart(5, '0')}`, email: `c${i}@example.com`, contactListId: list.id }));
  }
  await run(w, () => updateItem(connectionKey(w.companyId, w.connectionId), { status: 'CONNECTED', isDefault: true, number: '5511955550000' }));
  phones.push(fakePhone(w.ports, absent));
  w.ports.forgetRecords();
  return { w, me, list };
}

/**
 * Runs the campaign jobs as SQS would: each when its delay has passed, the clock moved to it.
 * Stops when none is left or at `until` (virtual ms from now). Answers each send's virtual time.
 */
async function drain(w: World, opts: { until?: number; duplicate?: boolean } = {}) {
  const start = w.ports.time;
  for (;;) {
    w.ports.enqueued.forEach((e, i) => {
      if (e.queue === 'campaigns' && !due.has(w) ) due.set(w, new Map());
      const mine = due.get(w)!;
      if (e.queue === 'campaigns' && !mine.has(i)) mine.set(i, w.ports.time + (e.delaySeconds ?? 0) * 1000);
    });
    const next = [...(due.get(w) ?? new Map<number, number>()).entries()].filter(([, at]) => at >= 0).sort((a, b) => a[1] - b[1] || a[0] - b[0])[0];
    if (!next) return;
    const [index, at] = next;
    if (opts.until !== undefined && at - start > opts.until) return;
    due.get(w)!.set(index, -1);
    w.ports.time = Math.max(w.ports.time, at);
    const job = dispatch.campaignJobSchema.parse(w.ports.enqueued[index].body);
    await run(w, () => dispatch.runCampaignJob(job));
    // A redelivery of every job (SQS at-least-once): it must change nothing.
    if (opts.duplicate) await run(w, () => dispatch.runCampaignJob(job));
  }
}
/** Per world: each campaign job's due time on the virtual clock (-1 once run). */
const due = new Map<World, Map<number, number>>();

const sends = (w: World) => w.ports.sentCommands.filter((c) => c.type === 'send') as Extract<import('@balcao/shared').OutboundCommand, { type: 'send' }>[];
const perPhone = (w: World) => {
  const m = new Map<string, string[]>();
  for (const s of sends(w)) m.set(s.to.number!, [...(m.get(s.to.number!) ?? []), s.body ?? '']);
  return m;
};

async function newCampaign(w: World, me: Identity, body: Record<string, unknown>) {
  return run(w, () => campaigns.createCampaign(me, { name: 'Promoção', whatsappId: w.connectionId, scheduledAt: new Date(w.ports.time + 10_000).toISOString(), ...body }));
}

describe('campaigns', () => {
  it('refuses what cannot be sent, with the field and nothing saved', async () => {
    const { w, me, list } = await setup(0);
    const other = await memoryWorld();
    const otherAdmin = await memoryAgent(other, 'Bia', { profile: 'admin' });
    const foreign = await run(other, () => lists.createContactList(otherAdmin, { name: 'Deles' }));
    const base = { name: 'Promoção', whatsappId: w.connectionId, contactListId: list.id, message1: 'Oi {nome}' };
    expect(await refusal(run(w, () => campaigns.createCampaign(me, { ...base, message1: '  ' })))).toMatchObject({ status: 400, fields: [{ field: 'message1', message: 'Escreva ao menos uma mensagem' }] });
    expect(await refusal(run(w, () => campaigns.createCampaign(me, { ...base, contactListId: null })))).toMatchObject({ status: 400, fields: [{ field: 'contactListId' }] });
    expect(await refusal(run(w, () => campaigns.createCampaign(me, { ...base, contactListId: foreign.id + 1000 })))).toMatchObject({ status: 400, fields: [{ field: 'contactListId', message: 'ERR_NOT_FOUND' }] });
    expect(await refusal(run(w, () => campaigns.createCampaign(me, { ...base, tagListId: 999 })))).toMatchObject({ status: 400, fields: [{ field: 'tagListId' }] });
    expect(await refusal(run(w, () => campaigns.createCampaign(me, { ...base, whatsappId: 999 })))).toMatchObject({ status: 400, fields: [{ field: 'whatsappId' }] });
    expect(await refusal(run(w, () => campaigns.createCampaign(me, { ...base, fileListId: 999 })))).toMatchObject({ status: 400, fields: [{ field: 'fileListId' }] });
    expect(await refusal(run(w, () => campaigns.createCampaign(me, { ...base, scheduledAt: '2020-01-01 10:00:00' })))).toMatchObject({ status: 400, fields: [{ field: 'scheduledAt', message: 'A data agendada já passou' }] });
    expect(await refusal(run(w, () => campaigns.createCampaign(me, { ...base, name: 'A' })))).toMatchObject({ status: 400, fields: [{ field: 'name', message: 'Too Short!' }] });
    expect((await run(w, () => campaigns.listCampaigns(me, {}))).records).toEqual([]);
    // The dialog's wall-clock format, read on the company's zone (America/Sao_Paulo, UTC-3).
    const c = await run(w, () => campaigns.createCampaign(me, { ...base, tagListId: 'Nenhuma', scheduledAt: '2026-03-02 18:30:00' }));
    expect(c).toMatchObject({ status: 'PROGRAMADA', scheduledAt: '2026-03-02T21:30:00.000Z', tagListId: null, contactList: { id: list.id, name: 'Clientes' }, whatsapp: { id: w.connectionId } });
    const inactive = await run(w, () => campaigns.createCampaign(me, { ...base, name: 'Sem data', scheduledAt: '' }));
    expect(inactive).toMatchObject({ status: 'INATIVA', scheduledAt: null, counts: { recipients: 0, delivered: 0 } });
    expect(await refusal(run(w, () => campaigns.cancelCampaign(me, inactive.id)))).toMatchObject({ status: 409, code: 'ERR_CAMPAIGN_NOT_RUNNING' });
    expect(await refusal(run(w, () => campaigns.restartCampaign(me, inactive.id)))).toMatchObject({ status: 409, code: 'ERR_CAMPAIGN_NOT_CANCELLED' });
  });

  it('sends each recipient one variant with its variables, at the pace of the settings (±20% and the long pause)', { timeout: 30_000 }, async () => {
    const { w, me, list } = await setup(12);
    await run(w, () => settings.saveCampaignSettings(me, { messageInterval: 10, longerIntervalAfter: 5, greaterInterval: 60, variables: [{ key: 'loja', value: 'Loja Centro' }] }));
    const c = await newCampaign(w, me, { contactListId: list.id, message1: 'A: oi {nome}, {loja}', message3: 'B: {nome} ({numero}) {email}' });
    const startAt = Date.parse(c.scheduledAt!);
    const before = sends(w).length;
    await drain(w, { duplicate: true });
    expect(sends(w).length - before).toBe(12);
    for (const [number, bodies] of perPhone(w)) {
      expect(bodies).toHaveLength(1);
      const i = Number(number.slice(-5));
      expect([`A: oi Cliente ${i}, Loja Centro`, `B: Cliente ${i} (${number}) c${i}@example.com`]).toContain(bodies[0]);
    }
    // Both variants were drawn (12 recipients: 1 chance in 2048 of one only).
    expect(new Set([...perPhone(w).values()].map((b) => b[0][0])).size).toBe(2);
    const done = await run(w, () => campaigns.getCampaign(me, c.id));
    expect(done).toMatchObject({ status: 'FINALIZADA', counts: { recipients: 12, delivered: 12, failed: 0 } });
    expect(Date.parse(done.completedAt!)).toBeGreaterThan(startAt);
    // The gaps: the messages' stored times on the virtual clock.
    const shipments = await run(w, () => queryAll<{ deliveredAt: string }>(shipmentsPartition(w.companyId, c.id), 'S#'));
    const times = shipments.map((s) => Date.parse(s.deliveredAt)).sort((a, b) => a - b);
    expect(times[0] - startAt).toBeLessThan(1000);
    const gaps = times.slice(1).map((t, i) => t - times[i]);
    gaps.forEach((gap, i) => {
      // After every 5th message the long pause is added.
      const base = (i + 1) % 5 === 0 ? 70_000 : 10_000;
      expect(gap).toBeGreaterThanOrEqual(base - 2_000 - 1);
      expect(gap).toBeLessThanOrEqual(base + 2_000 + 1);
    });
  });

  it('two campaigns on one connection share its pace; cancel stops within one interval, restart sends only the rest', async () => {
    const { w, me, list } = await setup(6);
    await run(w, () => settings.saveCampaignSettings(me, { messageInterval: 20, longerIntervalAfter: 0, greaterInterval: 0, variables: [] }));
    const a = await newCampaign(w, me, { contactListId: list.id, message1: 'A {nome}' });
    const b = await newCampaign(w, me, { name: 'Outra', contactListId: list.id, message1: 'B {nome}' });
    await drain(w, { until: 10_000 + 20_000 * 3 + 1_000 });
    const mid = sends(w).length;
    expect(mid).toBeGreaterThanOrEqual(3);
    expect(mid).toBeLessThanOrEqual(5);
    // Both campaigns took turns.
    expect(new Set(sends(w).map((s) => s.body![0])).size).toBe(2);
    await run(w, () => campaigns.cancelCampaign(me, a.id));
    expect(await refusal(run(w, () => campaigns.deleteCampaign(me, b.id)))).toMatchObject({ status: 409, code: 'ERR_CAMPAIGN_IN_PROGRESS' });
    await drain(w);
    const afterCancel = sends(w).filter((s) => s.body!.startsWith('A ')).length;
    expect((await run(w, () => campaigns.getCampaign(me, a.id))).status).toBe('CANCELADA');
    expect((await run(w, () => campaigns.getCampaign(me, b.id))).counts).toMatchObject({ delivered: 6 });
    expect(afterCancel).toBeLessThan(6);
    await run(w, () => campaigns.restartCampaign(me, a.id));
    await drain(w, { duplicate: true });
    const aSends = sends(w).filter((s) => s.body!.startsWith('A '));
    expect(aSends).toHaveLength(6);
    expect(new Set(aSends.map((s) => s.to.number)).size).toBe(6);
    expect(await run(w, () => campaigns.getCampaign(me, a.id))).toMatchObject({ status: 'FINALIZADA', counts: { recipients: 6, delivered: 6 } });
    // Paced as one: no two sends of the connection closer than 20 s - 20%.
    const shipments = [
      ...(await run(w, () => queryAll<{ deliveredAt: string }>(shipmentsPartition(w.companyId, a.id), 'S#'))),
      ...(await run(w, () => queryAll<{ deliveredAt: string }>(shipmentsPartition(w.companyId, b.id), 'S#'))),
    ];
    const times = shipments.map((s) => Date.parse(s.deliveredAt)).sort((x, y) => x - y);
    times.slice(1).forEach((t, i) => expect(t - times[i]).toBeGreaterThanOrEqual(16_000 - 1));
  });

  it('a crash between send and record sends nothing twice; a lost chain is restarted by the sweeper', async () => {
    const { w, me, list } = await setup(3);
    await run(w, () => settings.saveCampaignSettings(me, { messageInterval: 5, longerIntervalAfter: 0, greaterInterval: 0, variables: [] }));
    const c = await newCampaign(w, me, { contactListId: list.id, message1: 'Oi {nome}' });
    await drain(w);
    expect(sends(w)).toHaveLength(3);
    // As if the last send's record was lost: the shipment is still "sending" and counted as not delivered.
    const [first] = await run(w, () => queryAll<{ PK: string; SK: string; sendingAt: string }>(shipmentsPartition(w.companyId, c.id), 'S#'));
    await run(w, () => updateItem({ PK: first.PK, SK: first.SK }, { status: 'sending', sendingAt: new Date(w.ports.time - 60_000).toISOString() }, { remove: ['deliveredAt'] }));
    await run(w, () => updateItem(campaignKey(w.companyId, c.id), { status: 'EM_ANDAMENTO', delivered: 2, completedAt: null }));
    // The lane's chain ended with the campaign (idle lanes leave the sweeper's list): nothing to restart.
    w.ports.time += 3 * 60_000;
    expect(await run(w, () => dispatch.sweepCampaigns(w.ports.time))).toBe(0);
    // As if the chain had died mid-campaign: the lane still lists the campaign, its last job long gone.
    const { activeLaneMarker } = await import('../../src/table/keys.js');
    const { putItem } = await import('../../src/core/db.js');
    await run(w, () => putItem({ ...activeLaneMarker(w.companyId, w.connectionId), entity: 'activeLane', companyId: w.companyId, connectionId: w.connectionId }));
    await run(w, () => updateItem(laneKey(w.companyId, w.connectionId), { chainId: 'dead', beatAt: w.ports.time - 10 * 60_000, campaigns: [c.id] }));
    expect(await run(w, () => dispatch.sweepCampaigns(w.ports.time))).toBe(1);
    // The lane gets exactly one new chain: a second sweep at once changes nothing.
    expect(await run(w, () => dispatch.sweepCampaigns(w.ports.time))).toBe(0);
    await drain(w);
    // Redone under the same message ids: already stored, so not sent again.
    expect(sends(w)).toHaveLength(3);
    expect(await run(w, () => campaigns.getCampaign(me, c.id))).toMatchObject({ status: 'FINALIZADA', counts: { delivered: 3 } });
  });

  it('plans in slices: a planning stopped midway resumes after its last slice, never rewriting one being sent', { timeout: 30_000 }, async () => {
    const { w, me, list } = await setup(600);
    await run(w, () => settings.saveCampaignSettings(me, { messageInterval: 20, longerIntervalAfter: 0, greaterInterval: 0, variables: [] }));
    const c = await newCampaign(w, me, { contactListId: list.id, message1: 'Oi {nome}' });
    w.ports.time += 10_000;
    expect(await run(w, () => dispatch.runCampaignJob({ kind: 'start', companyId: w.companyId, campaignId: c.id }))).toBe('started');
    const all = await run(w, () => queryAll<{ PK: string; SK: string; status: string }>(shipmentsPartition(w.companyId, c.id), 'S#'));
    expect(all).toHaveLength(600);
    // As if planning stopped after its first slice: the second slice not recorded, one of the first already delivered.
    await run(w, () => updateItem(campaignKey(w.companyId, c.id), { planned: false, plannedUpTo: all[499].SK, recipients: 500 }));
    await run(w, () => updateItem({ PK: all[0].PK, SK: all[0].SK }, { status: 'delivered', deliveredAt: new Date(w.ports.time).toISOString() }));
    const { batchWrite } = await import('../../src/core/db.js');
    await run(w, () => batchWrite(all.slice(500).map((x) => ({ DeleteRequest: { Key: { PK: x.PK, SK: x.SK } } }))));
    // The lane sends only what planning recorded.
    expect(await run(w, () => dispatch.runCampaignJob({ kind: 'start', companyId: w.companyId, campaignId: c.id }))).toBe('started');
    const again = await run(w, () => queryAll<{ SK: string; status: string }>(shipmentsPartition(w.companyId, c.id), 'S#'));
    expect(again).toHaveLength(600);
    expect(again[0].status).toBe('delivered');
    expect(await run(w, () => campaigns.getCampaign(me, c.id))).toMatchObject({ counts: { recipients: 600 } });
  });

  it("a tag's contacts are the recipients (numbers asked on WhatsApp at planning); a ticket tag is refused", { timeout: 30_000 }, async () => {
    const { w, me } = await setup(0, new Set(['5511977770002']));
    const { createTag } = await import('../../src/services/tags.js');
    const { createContact } = await import('../../src/services/contacts.js');
    await run(w, () => settings.saveCampaignSettings(me, { messageInterval: 0, longerIntervalAfter: 0, greaterInterval: 0, variables: [] }));
    const vip = await run(w, () => createTag(me, { name: 'VIP', color: '#ff0000', type: 'contact' }));
    const ticketTag = await run(w, () => createTag(me, { name: 'Urgente', color: '#00ff00', type: 'ticket' }));
    for (const [i, number] of ['5511977770001', '5511977770002', '5511977770003'].entries()) {
      await run(w, () => createContact(me, { name: `Tag ${i}`, number, tags: [{ id: vip.id }] }));
    }
    await run(w, () => createContact(me, { name: 'Sem tag', number: '5511977770009' }));
    expect(await refusal(newCampaign(w, me, { tagListId: ticketTag.id, message1: 'x' }))).toMatchObject({ status: 400, fields: [{ field: 'tagListId' }] });
    const c = await newCampaign(w, me, { tagListId: vip.id, message1: 'Oi {nome}' });
    await drain(w);
    expect([...perPhone(w).keys()].sort()).toEqual(['5511977770001', '5511977770003']);
    expect(await run(w, () => campaigns.getCampaign(me, c.id))).toMatchObject({ status: 'FINALIZADA', counts: { recipients: 2, delivered: 2 } });
  });

  it("media and file-list files stay once a campaign has sent them (its messages name the same objects); an unsent campaign's media goes with it", { timeout: 30_000 }, async () => {
    const { w, me, list } = await setup(1);
    const files = await import('../../src/services/file-lists.js');
    await run(w, () => settings.saveCampaignSettings(me, { messageInterval: 0, longerIntervalAfter: 0, greaterInterval: 0, variables: [] }));
    const png = { field: 'file', fileName: 'oferta.png', mimeType: 'image/png', data: Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 1)]) };
    const fl = await run(w, () => files.createFileList(me, { name: 'Catálogo', message: 'Veja', options: [{ name: 'Tabela' }] }));
    await run(w, () => files.uploadFileListFiles(me, fl.id, [{ ...png, field: 'files' }], {}));
    const keys = () => [...w.ports.objects.keys()];
    const c = await run(w, () => campaigns.createCampaign(me, { name: 'Com mídia', whatsappId: w.connectionId, contactListId: list.id, fileListId: fl.id, message1: 'Oi', scheduledAt: '' }));
    await run(w, () => campaigns.uploadCampaignMedia(me, c.id, [png]));
    const unsent = await run(w, () => campaigns.createCampaign(me, { name: 'Sem envio', whatsappId: w.connectionId, contactListId: list.id, message1: 'Oi', scheduledAt: '' }));
    await run(w, () => campaigns.uploadCampaignMedia(me, unsent.id, [png]));
    expect(keys()).toHaveLength(3);
    await run(w, () => campaigns.updateCampaign(me, c.id, { scheduledAt: new Date(w.ports.time + 10_000).toISOString() }));
    await drain(w);
    expect(sends(w).filter((x) => x.media)).toHaveLength(2);
    const sentKeys = sends(w).flatMap((x) => (x.media ? [x.media.key] : []));
    await run(w, () => campaigns.deleteCampaign(me, c.id));
    await run(w, () => files.deleteFileList(me, fl.id));
    await run(w, () => campaigns.deleteCampaign(me, unsent.id));
    expect(keys().sort()).toEqual([...new Set(sentKeys)].sort());
  });

  it('confirmation: the confirmation message first, the campaign message after the reply', async () => {
    const { w, me, list } = await setup(2);
    await run(w, () => settings.saveCampaignSettings(me, { messageInterval: 0, longerIntervalAfter: 0, greaterInterval: 0, variables: [] }));
    const c = await newCampaign(w, me, { contactListId: list.id, confirmation: true, message1: 'A oferta, {nome}', confirmationMessage1: 'Posso enviar a oferta, {nome}?' });
    await drain(w);
    expect(sends(w).map((s) => s.body)).toEqual(expect.arrayContaining(['Posso enviar a oferta, Cliente 0?', 'Posso enviar a oferta, Cliente 1?']));
    expect(sends(w)).toHaveLength(2);
    expect(await run(w, () => campaigns.getCampaign(me, c.id))).toMatchObject({ counts: { confirmationRequested: 2, confirmed: 0, delivered: 0 } });
    // Cliente 1 answers.
    const shipments = await run(w, () => queryAll<{ number: string; contactId: number }>(shipmentsPartition(w.companyId, c.id), 'S#'));
    const one = shipments.find((s) => s.number.endsWith('00001'))!;
    const contact = await run(w, () => getItem<import('../../src/table/items.js').ContactItem>(contactKey(w.companyId, one.contactId)));
    expect(contact!.campaignConfirm).toEqual({ campaignId: c.id, connectionId: w.connectionId });
    await run(w, () => dispatch.confirmCampaignReply(contact!));
    await run(w, () => dispatch.confirmCampaignReply(contact!)); // twice: nothing more
    await drain(w, { duplicate: true });
    expect(sends(w).map((s) => s.body)).toContain('A oferta, Cliente 1');
    expect(sends(w)).toHaveLength(3);
    expect(await run(w, () => campaigns.getCampaign(me, c.id))).toMatchObject({ counts: { confirmationRequested: 2, confirmed: 1, delivered: 1 } });
  });

  it('a disconnected connection at start is a clear error, not a stall; editability follows the spec', async () => {
    const { w, me, list } = await setup(1);
    const far = await run(w, () => campaigns.createCampaign(me, { name: 'Longe', whatsappId: w.connectionId, contactListId: list.id, message1: 'x', scheduledAt: new Date(w.ports.time + 3 * 3600_000).toISOString() }));
    expect(await run(w, () => campaigns.updateCampaign(me, far.id, { name: 'Longe 2' }))).toMatchObject({ name: 'Longe 2' });
    const soon = await newCampaign(w, me, { contactListId: list.id, message1: 'x' });
    expect(await refusal(run(w, () => campaigns.updateCampaign(me, soon.id, { name: 'Outro nome' })))).toMatchObject({ status: 409, code: 'ERR_CAMPAIGN_NOT_EDITABLE' });
    await run(w, () => updateItem(connectionKey(w.companyId, w.connectionId), { status: 'DISCONNECTED' }));
    await drain(w, { until: 60_000 });
    const stopped = await run(w, () => campaigns.getCampaign(me, soon.id));
    expect(stopped).toMatchObject({ status: 'CANCELADA', error: { code: 'CONNECTION_DOWN' } });
    // A cancelled campaign keeps its messages editable, nothing else.
    expect(await run(w, () => campaigns.updateCampaign(me, soon.id, { message1: 'y' }))).toMatchObject({ message1: 'y' });
    expect(await refusal(run(w, () => campaigns.updateCampaign(me, soon.id, { name: 'Outro nome' })))).toMatchObject({ status: 409, code: 'ERR_CAMPAIGN_NOT_EDITABLE' });
    expect(await refusal(run(w, () => campaigns.restartCampaign(me, soon.id)))).toMatchObject({ status: 400, fields: [{ field: 'whatsappId' }] });
    await run(w, () => campaigns.deleteCampaign(me, soon.id));
    expect(await refusal(run(w, () => campaigns.getCampaign(me, soon.id)))).toMatchObject({ status: 404 });
    expect(sends(w)).toHaveLength(0);
  });
});
