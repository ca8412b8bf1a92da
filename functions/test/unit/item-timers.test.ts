import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { memoryAgent, memoryWorld, run } from '../fakes/world.js';
import { fakePhone } from '../fakes/phone.js';

/**
 * Issue 20 §4, timed work on time: a scheduled message and a PROGRAMADA campaign get a one-time timer
 * with their save (moved and removed with them), whose job arrives a minute ahead and waits the
 * rest to the second; and the timers' two adapters: EventBridge Scheduler (the SDK's real requests
 * against a local server answering as the service does) and the one-machine process timers.
 */
const schedules = await import('../../src/services/schedules.js');
const campaigns = await import('../../src/services/campaigns.js');
const dispatch = await import('../../src/services/campaign-dispatch.js');
const lists = await import('../../src/services/campaign-contact-lists.js');
const { SAVE_GRACE_S, TIMER_LEAD_MS, timerName } = await import('../../src/services/item-timers.js');
const { processTimers, schedulerTimers } = await import('../../src/core/timers.js');
const { getItem, updateItem } = await import('../../src/core/db.js');
const { connectionKey, keys, scheduleKey } = await import('../../src/table/keys.js');
const { createContact } = await import('../../src/services/contacts.js');

type World = Awaited<ReturnType<typeof memoryWorld>>;

const stops: (() => void)[] = [];
afterEach(() => stops.splice(0).forEach((stop) => stop()));

async function setup() {
  const w = await memoryWorld();
  await run(w, () => updateItem(keys.plan(w.plan.id), { schedules: 10, campaigns: 10, useCampaigns: true, useSchedules: true }));
  await run(w, () => updateItem(connectionKey(w.companyId, w.connectionId), { status: 'CONNECTED', isDefault: true, number: '5511955550000' }));
  const me = await memoryAgent(w, 'Ana', { profile: 'admin' });
  const phone = fakePhone(w.ports, new Set());
  stops.push(phone.stop);
  return { w, me };
}

/** The jobs enqueued so far on `queue`, with the instant SQS makes each visible. */
const jobsOn = (w: World, queue: string) =>
  w.ports.enqueued.filter((e) => e.queue === queue).map((e) => ({ body: e.body as Record<string, unknown>, delaySeconds: e.delaySeconds ?? 0 }));

describe('timed items', () => {
  it('a schedule: its timer hands it over a minute ahead, the send waits to its second; moved, the old job does nothing; deleted, the timer goes', async () => {
    const { w, me } = await setup();
    const rosa = await run(w, () => createContact(me, { name: 'Rosa', number: '5521987654321' }));
    const sendAt = new Date(w.ports.time + 3 * 3600_000).toISOString();
    const s = await run(w, () => schedules.createSchedule(me, { body: 'Seu pedido chegou', contactId: rosa.id, sendAt }));
    const name = timerName('schedule', w.companyId, s.id);
    const timer = w.ports.timerSet.get(name)!;
    expect(timer).toMatchObject({ at: Date.parse(sendAt) - TIMER_LEAD_MS, queue: 'schedules', body: { companyId: w.companyId, scheduleId: s.id, sendAt, handoff: true } });
    // Nothing else is enqueued for it: SQS cannot hold a job three hours.
    expect(jobsOn(w, 'schedules')).toEqual([]);

    // Moved: the same timer, at the new time; the job of the old time (fired anyway) does nothing.
    const moved = new Date(w.ports.time + 5 * 3600_000).toISOString();
    await run(w, () => schedules.updateSchedule(me, s.id, { sendAt: moved }));
    expect(w.ports.timerSet.get(name)).toMatchObject({ at: Date.parse(moved) - TIMER_LEAD_MS, body: { sendAt: moved } });
    w.ports.time = Date.parse(sendAt) - TIMER_LEAD_MS;
    expect(await run(w, () => schedules.runScheduleJob(schedules.scheduleJobSchema.parse(timer.body)))).toBe('skipped');
    expect((await run(w, () => getItem<{ status: string }>(scheduleKey(w.companyId, s.id))))!.status).toBe('PENDENTE');

    // Fired a minute ahead: AGENDADA, and the send job waits the minute in SQS.
    const fired = w.ports.timerSet.get(name)!;
    w.ports.time = fired.at + 1_500;
    const job = schedules.scheduleJobSchema.parse(fired.body);
    expect(await run(w, () => schedules.runScheduleJob(job))).toBe('handed');
    expect((await run(w, () => getItem<{ status: string }>(scheduleKey(w.companyId, s.id))))!.status).toBe('AGENDADA');
    const [send] = jobsOn(w, 'schedules');
    expect(send).toMatchObject({ body: { scheduleId: s.id, sendAt: moved }, delaySeconds: Math.ceil((TIMER_LEAD_MS - 1_500) / 1000) });
    // A second delivery of the timer's job (its first could not enqueue the send, say) enqueues the
    // send again, changing nothing else; the sweep after it hands nothing over again.
    expect(await run(w, () => schedules.runScheduleJob(job))).toBe('handed');
    expect(jobsOn(w, 'schedules')).toHaveLength(2);
    expect(await run(w, () => schedules.sweepSchedules(w.ports.time))).toEqual([]);
    w.ports.time = Date.parse(moved);
    expect(await run(w, () => schedules.runScheduleJob(schedules.scheduleJobSchema.parse(send.body)))).toBe('sent');
    // Both send jobs ran: one message.
    expect(await run(w, () => schedules.runScheduleJob(schedules.scheduleJobSchema.parse(jobsOn(w, 'schedules')[1].body)))).toBe('skipped');
    expect(w.ports.sentCommands.filter((c) => c.type === 'send')).toHaveLength(1);

    // Deleted before its time: the timer goes with it.
    const later = await run(w, () => schedules.createSchedule(me, { body: 'Outro aviso', contactId: rosa.id, sendAt: new Date(w.ports.time + 3600_000).toISOString() }));
    expect(w.ports.timerSet.has(timerName('schedule', w.companyId, later.id))).toBe(true);
    await run(w, () => schedules.deleteSchedule(me, later.id));
    expect(w.ports.timerSet.has(timerName('schedule', w.companyId, later.id))).toBe(false);
  });

  it('a schedule due within the lead is handed over a moment after its save (its image upload lands first), without a timer', async () => {
    const { w, me } = await setup();
    const c = await run(w, () => createContact(me, { name: 'Caio', number: '5521987650000' }));
    const sendAt = new Date(w.ports.time + 30_000).toISOString();
    const s = await run(w, () => schedules.createSchedule(me, { body: 'Já já', contactId: c.id, sendAt }));
    expect(w.ports.timerSet.size).toBe(0);
    const [handoff] = jobsOn(w, 'schedules');
    expect(handoff).toMatchObject({ body: { scheduleId: s.id, handoff: true }, delaySeconds: SAVE_GRACE_S });
    w.ports.advance(SAVE_GRACE_S * 1000);
    expect(await run(w, () => schedules.runScheduleJob(schedules.scheduleJobSchema.parse(handoff.body)))).toBe('handed');
    expect(jobsOn(w, 'schedules')[1]).toMatchObject({ body: { scheduleId: s.id }, delaySeconds: 30 - SAVE_GRACE_S });
  });

  it('a campaign beyond SQS reach: its timer brings the start a minute ahead, which waits to its second; inactive or deleted, the timer goes', async () => {
    const { w, me } = await setup();
    const list = await run(w, () => lists.createContactList(me, { name: 'Clientes' }));
    await run(w, () => lists.createContactListItem(me, { name: 'Cliente', number: '5511900000001', email: 'c@example.com', contactListId: list.id }));
    const scheduledAt = new Date(Math.ceil((w.ports.time + 2 * 3600_000) / 1000) * 1000).toISOString();
    const c = await run(w, () => campaigns.createCampaign(me, { name: 'Promoção', whatsappId: w.connectionId, contactListId: list.id, message1: 'Oi {nome}', scheduledAt }));
    const name = timerName('campaign', w.companyId, c.id);
    expect(w.ports.timerSet.get(name)).toMatchObject({ at: Date.parse(scheduledAt) - TIMER_LEAD_MS, queue: 'campaigns', body: { kind: 'start', campaignId: c.id } });
    expect(jobsOn(w, 'campaigns')).toEqual([]);

    // Fired (up to a minute early, as Scheduler may): the start waits in SQS until its second.
    w.ports.time = Date.parse(scheduledAt) - TIMER_LEAD_MS;
    const start = dispatch.campaignJobSchema.parse(w.ports.timerSet.get(name)!.body);
    expect(await run(w, () => dispatch.runCampaignJob(start))).toBe('early');
    const [waiting] = jobsOn(w, 'campaigns');
    expect(waiting).toMatchObject({ body: { kind: 'start', campaignId: c.id }, delaySeconds: TIMER_LEAD_MS / 1000 });
    w.ports.time = Date.parse(scheduledAt);
    expect(await run(w, () => dispatch.runCampaignJob(dispatch.campaignJobSchema.parse(waiting.body)))).toBe('started');

    // Another one made inactive, and one deleted: their timers go.
    const off = await run(w, () => campaigns.createCampaign(me, { name: 'Depois', whatsappId: w.connectionId, contactListId: list.id, message1: 'x', scheduledAt: new Date(w.ports.time + 5 * 3600_000).toISOString() }));
    const gone = await run(w, () => campaigns.createCampaign(me, { name: 'Apagada', whatsappId: w.connectionId, contactListId: list.id, message1: 'x', scheduledAt: new Date(w.ports.time + 5 * 3600_000).toISOString() }));
    expect(w.ports.timerSet.has(timerName('campaign', w.companyId, off.id))).toBe(true);
    await run(w, () => campaigns.updateCampaign(me, off.id, { scheduledAt: '' }));
    await run(w, () => campaigns.deleteCampaign(me, gone.id));
    expect(w.ports.timerSet.has(timerName('campaign', w.companyId, off.id))).toBe(false);
    expect(w.ports.timerSet.has(timerName('campaign', w.companyId, gone.id))).toBe(false);
  });
});

describe('timers adapters', () => {
  it('process timers: the job lands on its queue at its time; set again moves it, clear forgets it', async () => {
    const landed: { queue: string; body: object; at: number }[] = [];
    const jobs = { enqueue: async (queue: string, bodies: object[]) => (bodies.forEach((body) => landed.push({ queue, body, at: Date.now() })), 0) };
    const timers = processTimers(() => jobs as never, (err) => {
      throw err;
    });
    const t0 = Date.now();
    await timers.set('schedule-1-1', t0 + 200, 'schedules', { n: 1 });
    await timers.set('schedule-1-1', t0 + 60, 'schedules', { n: 2 });
    await timers.set('campaign-1-1', t0 + 40, 'campaigns', { n: 3 });
    await timers.clear('campaign-1-1');
    expect(timers.pending()).toBe(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(landed.map(({ queue, body }) => ({ queue, body }))).toEqual([{ queue: 'schedules', body: { n: 2 } }]);
    expect(landed[0].at - t0).toBeGreaterThanOrEqual(55);
    expect(timers.pending()).toBe(0);
  });

  it("EventBridge Scheduler: one at() schedule per name, in the minute before, deleted after it fires; a second set updates it; clearing a gone one is fine", async () => {
    const requests: { method: string; path: string; body: Record<string, any> }[] = [];
    const existing = new Set<string>();
    const server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const url = new URL(req.url!, 'http://x');
        const name = decodeURIComponent(url.pathname.split('/').pop()!);
        requests.push({ method: req.method!, path: `${url.pathname}${url.search}`, body: raw ? JSON.parse(raw) : {} });
        const error = (status: number, type: string) => {
          res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type });
          res.end(JSON.stringify({ Message: type }));
        };
        if (req.method === 'POST' && existing.has(name)) return error(409, 'ConflictException');
        if ((req.method === 'PUT' || req.method === 'DELETE') && !existing.has(name)) return error(404, 'ResourceNotFoundException');
        if (req.method === 'DELETE') existing.delete(name);
        else existing.add(name);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ScheduleArn: `arn:aws:scheduler:us-east-1:111122223333:schedule/balcao-timers/${name}` }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    stops.push(() => server.close());
    const client = new SchedulerClient({ region: 'us-east-1', endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, credentials: { accessKeyId: 'k', secretAccessKey: 's' } });
    const timers = schedulerTimers(client, {
      group: 'balcao-timers',
      roleArn: 'arn:aws:iam::111122223333:role/balcao-timers',
      queueArn: (q) => `arn:aws:sqs:us-east-1:111122223333:balcao-${q}`,
    });
    const at = Date.parse('2026-12-01T14:30:45.500Z');
    await timers.set('schedule-7-42', at, 'schedules', { v: 1, companyId: 7, scheduleId: 42, handoff: true, note: 'ação' });
    await timers.set('schedule-7-42', at + 3600_000, 'schedules', { v: 1 });
    await timers.clear('schedule-7-42');
    await timers.clear('schedule-7-42');

    expect(requests.map((r) => `${r.method} ${r.path.split('?')[0]}`)).toEqual([
      'POST /schedules/schedule-7-42',
      'POST /schedules/schedule-7-42',
      'PUT /schedules/schedule-7-42',
      'DELETE /schedules/schedule-7-42',
      'DELETE /schedules/schedule-7-42',
    ]);
    expect(requests[0].body).toMatchObject({
      GroupName: 'balcao-timers',
      ScheduleExpression: 'at(2026-12-01T14:30:00)',
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      Target: { Arn: 'arn:aws:sqs:us-east-1:111122223333:balcao-schedules', RoleArn: 'arn:aws:iam::111122223333:role/balcao-timers' },
    });
    // The queue gets the same body a sweep would enqueue (non-ASCII escaped as on SQS).
    expect(JSON.parse(requests[0].body.Target.Input)).toEqual({ v: 1, companyId: 7, scheduleId: 42, handoff: true, note: 'ação' });
    expect(requests[2].body.ScheduleExpression).toBe('at(2026-12-01T15:30:00)');
    expect(requests[3].path).toContain('groupName=balcao-timers');
  });
});
