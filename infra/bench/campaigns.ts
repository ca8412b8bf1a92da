/**
 * Issue 20 §6: contact-list imports and campaign dispatch on the local stack.
 *   import     a spreadsheet of `rows` rows (CSV, names, numbers, e-mails) uploaded and imported in
 *              the background, numbers checked on WhatsApp through the sandbox: seconds to done
 *              (target: 10 000 rows within 180 s), and the upload request's own time
 *   campaign   a campaign to every imported number, pacing off (settings 0/0/0), scheduled a few
 *              seconds ahead: seconds from its time to recipients planned and to the first message
 *              handed to WhatsApp, DynamoDB units per recipient for planning and per delivered
 *              recipient for dispatch, the benchmark process's peak memory while planning and sending (the
 *              stack runs in it), and dispatch throughput over `dispatchSeconds`; then it is stopped
 */
import { agentSocket, connectedSandbox, must, sleep, tenant, type Api } from './client.js';
import { snapshot, type CapacityContext } from './capacity.js';

type Campaign = { status: string; counts: { recipients: number; delivered: number; failed: number } };

async function upload(e: CapacityContext['endpoints'], admin: Api, path: string, data: Buffer, name: string) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(data)], { type: 'text/csv' }), name);
  const res = await fetch(`${e.apiUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${admin.token}` }, body: form, signal: AbortSignal.timeout(60_000) });
  return { status: res.status, body: (await res.json()) as { import?: { status: string } } };
}

const units = (a: ReturnType<typeof snapshot>, b: ReturnType<typeof snapshot>) => ({
  read: b.stack.read + b.sessionHost.read - a.stack.read - a.sessionHost.read,
  write: b.stack.write + b.sessionHost.write - a.stack.write - a.sessionHost.write,
  transactItems: (b.stack.byCommand.TransactWriteItems?.items ?? 0) - (a.stack.byCommand.TransactWriteItems?.items ?? 0),
});
const r2 = (v: number) => Math.round(v * 100) / 100;

export async function campaignsBench(ctx: CapacityContext, opts: { rows: number; dispatchSeconds: number }) {
  const e = ctx.endpoints;
  const t = await tenant(e, ctx.sup, { campaigns: 5, useCampaigns: true });
  const ws = await agentSocket(e, t.admin.token);
  const connectionId = await connectedSandbox(e, t, ws);
  must(await t.admin.post('/campaign-settings', { messageInterval: 0, longerIntervalAfter: 0, greaterInterval: 0, variables: [] }), 'settings');

  // --- import
  const list = must(await t.admin.post('/contact-lists', { name: 'Bench' }), 'list') as { id: number };
  const base = 5562_900_000_000;
  const csv = `nome;numero;email\r\n${Array.from({ length: opts.rows }, (_, i) => `Cliente ${i};${base + i};c${i}@example.com`).join('\r\n')}\r\n`;
  ctx.log(`campaigns: importing ${opts.rows} rows (${(csv.length / 1024).toFixed(0)} KB)`);
  const t0 = Date.now();
  const up = await upload(e, t.admin, `/contact-lists/${list.id}/upload`, Buffer.from(csv), 'bench.csv');
  if (up.status !== 202) throw new Error(`upload: HTTP ${up.status} ${JSON.stringify(up.body)}`);
  const uploadMs = Date.now() - t0;
  let imported: { import?: { status: string; imported: number; whatsappValid: number } } = {};
  while (Date.now() - t0 < 600_000) {
    imported = must(await t.admin.get(`/contact-lists/${list.id}`), 'list');
    if (imported.import?.status !== 'running') break;
    await sleep(500);
  }
  const importSeconds = (Date.now() - t0) / 1000;
  ctx.log(`campaigns: import ${imported.import?.status} in ${importSeconds.toFixed(1)} s (${imported.import?.imported} imported)`);

  // --- campaign
  const before = snapshot(ctx);
  const scheduledAt = Math.ceil((Date.now() + 5_000) / 1000) * 1000;
  const made = must(await t.admin.post('/campaigns', { name: 'Bench', contactListId: list.id, whatsappId: connectionId, scheduledAt: new Date(scheduledAt).toISOString(), message1: 'Oferta para {nome}' }), 'campaign') as { id: number };
  let rssPeak = process.memoryUsage().rss;
  const rssBefore = rssPeak;
  let planned: number | undefined;
  let planSnap: ReturnType<typeof snapshot> | undefined;
  let plannedAtSnap = 0;
  let first: number | undefined;
  let c: Campaign = { status: '', counts: { recipients: 0, delivered: 0, failed: 0 } };
  while (Date.now() - scheduledAt < 300_000) {
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    c = must(await t.admin.get(`/campaigns/${made.id}`), 'campaign');
    if (planned === undefined && c.counts.recipients > 0) {
      planned = Date.now();
      planSnap = snapshot(ctx);
      plannedAtSnap = c.counts.recipients;
    }
    if (first === undefined && c.counts.delivered > 0) first = Date.now();
    if (first !== undefined && planned !== undefined) break;
    await sleep(100);
  }
  const d0 = snapshot(ctx);
  const delivered0 = c.counts.delivered;
  const w0 = Date.now();
  // Planning goes on while the first slices are sent: memory is sampled through the window.
  while (Date.now() - w0 < opts.dispatchSeconds * 1000) {
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    await sleep(250);
  }
  c = must(await t.admin.get(`/campaigns/${made.id}`), 'campaign');
  const d1 = snapshot(ctx);
  const dispatched = c.counts.delivered - delivered0;
  const dispatchWindow = (Date.now() - w0) / 1000;
  must(await t.admin.post(`/campaigns/${made.id}/cancel`, {}), 'cancel');
  ws.close();

  const planUnits = planSnap ? units(before, planSnap) : undefined;
  const dispatchUnits = units(d0, d1);
  const firstSlice = plannedAtSnap || 1;
  return {
    import: {
      rows: opts.rows,
      uploadRequestMs: uploadMs,
      seconds: r2(importSeconds),
      target: { seconds: 180, pass: importSeconds <= 180 && imported.import?.imported === opts.rows },
      imported: imported.import?.imported,
      whatsappValid: imported.import?.whatsappValid,
    },
    campaign: {
      listItems: opts.rows,
      /** Planned when the dispatch window ended (planning writes slices while the first ones are sent). */
      recipientsPlannedAfterWindow: c.counts.recipients,
      secondsFromTimeToPlanned: planned ? r2((planned - scheduledAt) / 1000) : null,
      secondsFromTimeToFirstMessage: first ? r2((first - scheduledAt) / 1000) : null,
      /** From the campaign's creation to its first slice recorded (reading the whole list, writing one slice). */
      unitsToFirstSlicePerSliceRecipient: planUnits ? { recipients: plannedAtSnap, read: r2(planUnits.read / firstSlice), write: r2(planUnits.write / firstSlice), transactItems: r2(planUnits.transactItems / firstSlice) } : null,
      dispatchUnitsPerDeliveredRecipient: dispatched ? { read: r2(dispatchUnits.read / dispatched), write: r2(dispatchUnits.write / dispatched), transactItems: r2(dispatchUnits.transactItems / dispatched) } : null,
      benchProcessRssMB: { before: Math.round(rssBefore / 2 ** 20), peakWhilePlanningAndSending: Math.round(rssPeak / 2 ** 20) },
      dispatchPacingOff: { seconds: r2(dispatchWindow), delivered: dispatched, perSecond: r2(dispatched / dispatchWindow), failed: c.counts.failed },
    },
  };
}
