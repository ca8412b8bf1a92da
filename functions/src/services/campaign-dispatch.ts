import { createHash } from 'node:crypto';
import { z } from 'zod';
import { campaignVariants, fillCampaignText, mediaKindOf, type CampaignErrorCode, type CampaignSettings } from '@balcao/shared';
import { batchGet, batchWrite, getItem, isConditionFailure, isTransactionCanceled, queryAll, transact, tx, updateItem, type TransactItem } from '../core/db.js';
import { env } from '../core/env.js';
import { log } from '../core/observability.js';
import { nowIso, nowMs, ports, table, uuid } from '../core/ports.js';
import { numbersOnWhatsApp } from '../core/rpc.js';
import {
  ACTIVE_LANES,
  CAMPAIGN_DUE_SHARDS,
  activeLaneMarker,
  campaignDuePartition,
  campaignKey,
  connectionKey,
  contactKey,
  contactListItemPrefix,
  contactListItemsPartition,
  laneKey,
  shipmentKey,
  shipmentPrefix,
  shipmentsPartition,
  tagKey,
  tagLinkPrefix,
} from '../table/keys.js';
import type { CampaignItem, ConnectionItem, ContactItem, ContactListEntryItem, LaneItem, ShipmentItem } from '../table/items.js';
import { getCampaignSettings } from './campaign-settings.js';
import { announceCampaign, toApiCampaign } from './campaign-view.js';
import { findOrCreateContact } from './contacts.js';
import { fileListForSending, markFileListSent } from './file-lists.js';
import { sendInTicket, type OutgoingMessage } from './outbound.js';
import { findOrCreateTicket } from './tickets.js';
import { setItemTimer, timerName } from './item-timers.js';

/**
 * The campaign dispatcher (server-behaviour §10, issue 20 §4, decision 55).
 *
 * - **Start**: a `start` job (enqueued with a delay up to its second, by a save or by the sweeper's
 *   look-ahead) moves a PROGRAMADA campaign to EM_ANDAMENTO, writes one shipment per recipient
 *   (keyed by number: nobody twice) and puts the campaign on its connection's lane.
 * - **Lanes**: each connection has one lane item holding its pace (`nextAt`, messages since the
 *   long pause) and the campaigns sending through it, served in turn; so two campaigns on one
 *   number share its pace. A chain of `lane` jobs works it, one message per job, each job enqueuing
 *   the next with an SQS delay until the next free slot: no process waits, and any number of workers
 *   may run. The sweeper restarts a chain that stopped (a lost job, a crash).
 * - **Exactly once**: a shipment is claimed in one transaction with the campaign (still running) and
 *   the lane (this chain, this slot); its messages go under ids derived from campaign, recipient and
 *   part, so a resend after a crash finds them already stored and sends nothing again.
 */

/** SQS's longest delay: later work waits in the table (the sweeper's look-ahead enqueues it). */
const MAX_DELAY_S = 900;
/** The sweeper enqueues starts due within this (a minute's sweep plus margin). */
export const START_LOOKAHEAD_MS = 2.5 * 60_000;
/** A claim older than this whose send was never recorded is sent again (same ids: nothing twice). */
const SENDING_STALE_MS = 2 * 60_000;
/** A lane whose job has not run for this long (past its slot) gets a new chain. */
const LANE_STALE_MS = 2 * 60_000;
/** A connection down this long stops its campaigns (shown as an error; restart when back). */
const CONNECTION_GRACE_MS = 5 * 60_000;
const JITTER = 0.2;
/** Recipients planned per slice (20 BatchWrites): the first slice's recipients are sent while the rest is written. */
const PLAN_SLICE = 500;

export const campaignJobSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('start'), companyId: z.number().int(), campaignId: z.number().int() }),
  // `slot`: the lane's `nextAt` this job was enqueued for; a job whose slot was taken is a duplicate.
  z.object({ kind: z.literal('lane'), companyId: z.number().int(), connectionId: z.number().int(), chainId: z.string(), slot: z.number().optional() }),
]);
export type CampaignJob = z.infer<typeof campaignJobSchema>;

const enqueue = async (job: CampaignJob, delayMs = 0) => {
  const failed = await ports().jobs.enqueue('campaigns', [job], Math.min(MAX_DELAY_S, Math.max(0, Math.ceil(delayMs / 1000))));
  if (failed) throw new Error('campaign job not enqueued');
};

/**
 * A campaign saved or restarted: its start job, at its second when due within SQS's delay; a later
 * one gets a timer that brings the job back a minute ahead (the sweeper's look-ahead is the net).
 */
export async function enqueueCampaignStart(c: Pick<CampaignItem, 'companyId' | 'id' | 'status' | 'scheduledAt'>): Promise<void> {
  const wait = c.status === 'PROGRAMADA' && c.scheduledAt ? Date.parse(c.scheduledAt) - nowMs() : 0;
  const job: CampaignJob = { kind: 'start', companyId: c.companyId, campaignId: c.id };
  if (wait > MAX_DELAY_S * 1000) return setItemTimer(timerName('campaign', c.companyId, c.id), c.scheduledAt!, 'campaigns', job);
  await enqueue(job, wait).catch((err) => log.warn('campaign start not enqueued (the sweeper will)', { err, campaignId: c.id }));
}

export async function runCampaignJob(job: CampaignJob): Promise<string> {
  return job.kind === 'start' ? startCampaign(job.companyId, job.campaignId) : runLane(job);
}

async function announce(companyId: number, campaignId: number) {
  const c = await getItem<CampaignItem>(campaignKey(companyId, campaignId), true);
  if (c) await announceCampaign(companyId, { action: 'update', record: await toApiCampaign(c) });
}

async function stopWithError(c: CampaignItem, code: CampaignErrorCode) {
  try {
    await updateItem(campaignKey(c.companyId, c.id), { status: 'CANCELADA', error: { code, at: nowIso() }, updatedAt: nowIso() }, {
      condition: '#s IN (:p, :r)',
      names: { '#s': 'status' },
      values: { ':p': 'PROGRAMADA', ':r': 'EM_ANDAMENTO' },
      remove: ['GSI4PK', 'GSI4SK'],
    });
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
  }
  log.warn('campaign stopped', { companyId: c.companyId, campaignId: c.id, code });
  await announce(c.companyId, c.id);
}

// ------------------------------------------------------------------ start

async function startCampaign(companyId: number, campaignId: number): Promise<string> {
  let c = await getItem<CampaignItem>(campaignKey(companyId, campaignId), true);
  if (!c || c.entity !== 'campaign') return 'gone';
  if (c.status === 'PROGRAMADA') {
    const wait = c.scheduledAt ? Date.parse(c.scheduledAt) - nowMs() : 0;
    // Early (a moved time, the look-ahead): wait again, to the second.
    if (wait > 1000) return (await enqueueCampaignStart(c), 'early');
  } else if (c.status !== 'EM_ANDAMENTO') return 'not due';
  const conn = c.whatsappId ? await getItem<ConnectionItem>(connectionKey(companyId, c.whatsappId)) : undefined;
  if (!conn) return (await stopWithError(c, 'CONNECTION_GONE'), 'stopped');
  if (conn.status !== 'CONNECTED') return (await stopWithError(c, 'CONNECTION_DOWN'), 'stopped');
  if (c.status === 'PROGRAMADA') {
    try {
      c = await updateItem<CampaignItem>(campaignKey(companyId, campaignId), { status: 'EM_ANDAMENTO', error: null, updatedAt: nowIso() }, {
        condition: '#s = :p AND scheduledAt = :at',
        names: { '#s': 'status' },
        values: { ':p': 'PROGRAMADA', ':at': c.scheduledAt },
        remove: ['GSI4PK', 'GSI4SK'],
      });
    } catch (err) {
      if (isConditionFailure(err)) return 'taken';
      throw err;
    }
    await announce(companyId, campaignId);
  }
  if (!c.planned) {
    // Its files will be in sent messages: the list keeps them from now on.
    if (c.fileListId) await markFileListSent(companyId, c.fileListId);
    const planned = await plan(c, conn);
    if (planned === 0) return (await stopWithError(c, 'NO_RECIPIENTS'), 'stopped');
  } else if (c.retryFailed) {
    await retryFailed(c);
  }
  await joinLane(companyId, conn.id, campaignId);
  return 'started';
}

/**
 * Writes the shipments: the list's items on WhatsApp (unknown ones asked now, through the campaign's
 * connection) and the tag's contacts, each number once, each with a variant drawn at random. They
 * are written in number order, a slice at a time, and `plannedUpTo` moves after each slice: the lane
 * sends what is planned while the rest is written (a big list starts at once), and a planning
 * stopped midway resumes after the last slice recorded, never rewriting one that may be sending.
 * Answers the recipients planned in all.
 */
async function plan(c: CampaignItem, conn: ConnectionItem): Promise<number> {
  const companyId = c.companyId;
  const byNumber = new Map<string, { number: string; name: string; email: string; valid: boolean | null }>();
  if (c.contactListId) {
    const items = await queryAll<ContactListEntryItem>(contactListItemsPartition(companyId, c.contactListId), contactListItemPrefix());
    for (const i of items) if (i.isWhatsappValid !== false && !byNumber.has(i.number)) byNumber.set(i.number, { number: i.number, name: i.name, email: i.email, valid: i.isWhatsappValid });
  }
  if (c.tagListId) {
    const links = await queryAll<{ SK: string }>(tagKey(companyId, c.tagListId).PK, tagLinkPrefix('CT'));
    const contacts = await batchGet<ContactItem>(links.map((l) => contactKey(companyId, Number(l.SK.split('#').pop()))));
    for (const ct of contacts) if (!ct.isGroup && ct.number && !byNumber.has(ct.number)) byNumber.set(ct.number, { number: ct.number, name: ct.name, email: ct.email ?? '', valid: null });
  }
  const skOf = (number: string) => shipmentKey(companyId, c.id, number).SK;
  const todo = [...byNumber.values()].filter((r) => !c.plannedUpTo || skOf(r.number) > c.plannedUpTo).sort((a, b) => (skOf(a.number) < skOf(b.number) ? -1 : 1));
  const variants = campaignVariants(c);
  let planned = c.recipients;
  for (let start = 0; start < todo.length; start += PLAN_SLICE) {
    const slice = todo.slice(start, start + PLAN_SLICE);
    // Unknown numbers are asked now; a number the phone did not answer about stays a recipient.
    const unknown = slice.filter((r) => r.valid === null);
    if (unknown.length) (await numbersOnWhatsApp(companyId, conn.id, unknown.map((r) => r.number))).forEach((valid, n) => (unknown[n].valid = valid));
    const shipments: ShipmentItem[] = slice
      .filter((r) => r.valid !== false)
      .map((r) => ({
        ...shipmentKey(companyId, c.id, r.number),
        entity: 'shipment',
        companyId,
        campaignId: c.id,
        number: r.number,
        name: r.name,
        email: r.email,
        variant: variants[Math.floor(Math.random() * variants.length)]?.index ?? 1,
        status: 'pending',
      }));
    await batchWrite(shipments.map((Item) => ({ PutRequest: { Item: Item as unknown as Record<string, unknown> } })));
    planned += shipments.length;
    const last = start + PLAN_SLICE >= todo.length;
    await updateItem(campaignKey(companyId, c.id), { plannedUpTo: skOf(slice[slice.length - 1].number), recipients: planned, ...(last ? { planned: true } : {}), updatedAt: nowIso() });
    if (start === 0 && planned) {
      await joinLane(companyId, conn.id, c.id);
      await announce(companyId, c.id);
    }
  }
  if (!todo.length) await updateItem(campaignKey(companyId, c.id), { planned: true, updatedAt: nowIso() });
  await announce(companyId, c.id);
  return planned;
}

/** A restart puts the failed shipments back (their counts move back with them). */
async function retryFailed(c: CampaignItem) {
  const failed = await shipmentsIn(c, 'failed');
  for (const s of failed) {
    try {
      await transact([
        tx.update({ PK: s.PK, SK: s.SK }, 'SET #s = :p REMOVE #e', { ':p': 'pending', ':f': 'failed' }, '#s = :f', { '#s': 'status', '#e': 'error' }),
        tx.update(campaignKey(c.companyId, c.id), 'ADD failed :minus', { ':minus': -1 }),
      ]);
    } catch (err) {
      if (!isTransactionCanceled(err)) throw err;
    }
  }
  await updateItem(campaignKey(c.companyId, c.id), { updatedAt: nowIso() }, { remove: ['retryFailed'] });
}

/** Puts a campaign on its connection's lane, and starts the lane's chain of jobs when it has none alive. */
async function joinLane(companyId: number, connectionId: number, campaignId: number) {
  const key = laneKey(companyId, connectionId);
  for (let attempt = 0; attempt < 5; attempt++) {
    const lane = await getItem<LaneItem>(key, true);
    const now = nowMs();
    const alive = !!lane?.chainId && now - lane.beatAt < LANE_STALE_MS + Math.max(0, lane.nextAt - lane.beatAt);
    const chainId = alive ? lane!.chainId! : uuid();
    const campaigns = [...new Set([...(lane?.campaigns ?? []), campaignId])];
    // An existing lane changes only its campaigns (and a dead chain's id): its pace (`nextAt`, `sent`,
    // `ready`) belongs to the chain's jobs, which may claim a slot between this read and this write
    // (planning joins after its first slice, the start joins again when planning ends).
    const write = lane
      ? tx.update(
          key,
          'SET campaigns = :campaigns, chainId = :chain, beatAt = :beat',
          { ':campaigns': campaigns, ':chain': chainId, ':beat': alive ? lane.beatAt : now, ':seen': lane.chainId ?? null, ':n': lane.campaigns.length },
          '(chainId = :seen OR (attribute_not_exists(chainId) AND attribute_exists(PK))) AND size(campaigns) = :n',
        )
      : tx.put(
          { ...key, entity: 'lane', companyId, connectionId, nextAt: now, sent: 0, chainId, beatAt: now, campaigns, turn: 0, ready: [] } satisfies LaneItem,
          'attribute_not_exists(PK)',
        );
    try {
      await transact([write, tx.put({ ...activeLaneMarker(companyId, connectionId), entity: 'activeLane', companyId, connectionId })]);
    } catch (err) {
      if (isTransactionCanceled(err)) continue;
      throw err;
    }
    if (!alive) await enqueue({ kind: 'lane', companyId, connectionId, chainId });
    return;
  }
  throw new Error('campaign lane kept changing');
}

// ------------------------------------------------------------------ lanes

interface Picked {
  campaign: CampaignItem;
  shipment: ShipmentItem;
  phase: 'confirm' | 'final';
  /** From the lane's ready list (a confirmed recipient). */
  ready?: { campaignId: number; number: string };
  /** Advances the campaign's cursor (a pending shipment in key order). */
  cursor?: string;
}

async function runLane(job: Extract<CampaignJob, { kind: 'lane' }>): Promise<string> {
  const { companyId, connectionId, chainId } = job;
  for (let attempt = 0; attempt < 5; attempt++) {
    const lane = await getItem<LaneItem>(laneKey(companyId, connectionId), true);
    if (!lane || lane.chainId !== chainId) return 'not this chain';
    // Each job enqueues at most one next, for the slot it claimed: a redelivered job finds its slot gone.
    if (job.slot !== undefined && job.slot !== lane.nextAt) return 'slot taken';
    const now = nowMs();
    if (lane.nextAt - now > 250) {
      await enqueue({ ...job, slot: lane.nextAt }, lane.nextAt - now);
      return 'waiting for its slot';
    }
    const conn = await getItem<ConnectionItem>(connectionKey(companyId, connectionId));
    if (!conn || conn.status !== 'CONNECTED') {
      const downSince = lane.downSince ?? now;
      if (!conn || now - downSince > CONNECTION_GRACE_MS) {
        for (const id of lane.campaigns) {
          const c = await getItem<CampaignItem>(campaignKey(companyId, id), true);
          if (c?.status === 'EM_ANDAMENTO') await stopWithError(c, conn ? 'CONNECTION_DOWN' : 'CONNECTION_GONE');
        }
        await release(lane);
        return 'connection down';
      }
      return (await postpone(job, lane, 15_000, { downSince })) ? 'waiting for the connection' : 'raced';
    }
    const found = await pickNext(lane, now);
    if (found.kind === 'idle') return (await release(lane), 'idle');
    if (found.kind === 'wait') {
      return (await postpone(job, lane, 3_000, { campaigns: found.campaigns, ready: found.readyLeft })) ? 'waiting for planning or sends to be recorded' : 'raced';
    }
    const settings = await getCampaignSettings(companyId);
    const pace = paceAfter(settings, lane.sent, now);
    const claim = await claimShipment(lane, found, pace);
    if (!claim) continue;
    // The next slot's job before this send: a crash mid-send leaves the chain going.
    await enqueue({ ...job, slot: pace.nextAt }, pace.nextAt - now);
    await deliver(found, claim, conn, settings);
    return 'sent';
  }
  // Raced by another job of this chain (a redelivery): it carries on.
  return 'raced';
}

/** The lane's next slot: the interval with ±20% jitter, plus the long pause after every `longerIntervalAfter` messages. */
export function paceAfter(s: Pick<CampaignSettings, 'messageInterval' | 'longerIntervalAfter' | 'greaterInterval'>, sent: number, now: number, random = Math.random) {
  const count = sent + 1;
  let gap = s.messageInterval * 1000 * (1 + (random() * 2 - 1) * JITTER);
  let after = count;
  if (s.longerIntervalAfter > 0 && s.greaterInterval > 0 && count >= s.longerIntervalAfter) {
    gap += s.greaterInterval * 1000;
    after = 0;
  }
  return { nextAt: now + Math.round(gap), sent: after };
}

/** What a lane does next; `campaigns` and `readyLeft` are the lane's lists after it (finished campaigns and stale entries dropped). */
type Found =
  | ({ kind: 'ship' } & Picked & { campaigns: number[]; turn: number; readyLeft: LaneItem['ready'] })
  | { kind: 'wait'; campaigns: number[]; readyLeft: LaneItem['ready'] }
  | { kind: 'idle' };

/** The lane's next work: a confirmed recipient first, else the next recipient of the campaigns in turn. */
async function pickNext(lane: LaneItem, now: number): Promise<Found> {
  const { companyId } = lane;
  const ready = [...lane.ready];
  while (ready.length) {
    const r = ready[0];
    const [campaign, shipment] = await Promise.all([
      getItem<CampaignItem>(campaignKey(companyId, r.campaignId), true),
      getItem<ShipmentItem>(shipmentKey(companyId, r.campaignId, r.number), true),
    ]);
    if (campaign && shipment && shipment.status === 'confirmed' && (campaign.status === 'EM_ANDAMENTO' || campaign.status === 'FINALIZADA')) {
      return { kind: 'ship', campaign, shipment, phase: 'final', ready: r, campaigns: lane.campaigns, turn: lane.turn, readyLeft: ready.slice(1) };
    }
    ready.shift();
  }
  const campaigns = [...lane.campaigns];
  let waiting = false;
  for (let k = 0; k < lane.campaigns.length; k++) {
    const id = lane.campaigns[(lane.turn + k) % lane.campaigns.length];
    const campaign = await getItem<CampaignItem>(campaignKey(companyId, id), true);
    const gone = () => campaigns.splice(campaigns.indexOf(id), 1);
    if (!campaign || campaign.status !== 'EM_ANDAMENTO' || campaign.whatsappId !== lane.connectionId || !(campaign.planned || campaign.plannedUpTo)) {
      gone();
      continue;
    }
    const turn = (lane.turn + k + 1) % Math.max(1, lane.campaigns.length);
    const pending = await nextPending(campaign);
    if (pending) return { kind: 'ship', campaign, shipment: pending, phase: phaseOf(campaign, pending), cursor: pending.SK, campaigns, turn, readyLeft: ready };
    const sending = await shipmentsIn(campaign, 'sending');
    const stale = sending.find((s) => now - Date.parse(s.sendingAt ?? '') > SENDING_STALE_MS);
    if (stale) return { kind: 'ship', campaign, shipment: stale, phase: stale.phase ?? phaseOf(campaign, stale), campaigns, turn, readyLeft: ready };
    // Planning still writing, or sends not recorded yet: later.
    if (sending.length || !campaign.planned) {
      waiting = true;
      continue;
    }
    await finish(campaign);
    gone();
  }
  if (waiting) return { kind: 'wait', campaigns, readyLeft: ready };
  return { kind: 'idle' };
}

/** Confirmation first when it is on and the drawn variant has a confirmation message. */
function phaseOf(c: CampaignItem, s: ShipmentItem): 'confirm' | 'final' {
  if (!c.confirmation) return 'final';
  return campaignVariants(c).find((v) => v.index === s.variant)?.confirmation ? 'confirm' : 'final';
}

/** The campaign's next pending recipient after its cursor (key order). */
async function nextPending(c: CampaignItem): Promise<ShipmentItem | undefined> {
  const upTo = c.planned ? `${shipmentPrefix()}\u{10FFFF}` : c.plannedUpTo;
  if (!upTo) return undefined;
  let start: Record<string, unknown> | undefined = c.cursor ? { PK: shipmentsPartition(c.companyId, c.id), SK: c.cursor } : undefined;
  do {
    const out = await table().query({
      TableName: env.tableName,
      // Only what planning has recorded (a planning still writing may have put later slices).
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :p AND :upTo',
      FilterExpression: '#s = :pending',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':pk': shipmentsPartition(c.companyId, c.id), ':p': shipmentPrefix(), ':upTo': upTo, ':pending': 'pending' },
      ExclusiveStartKey: start,
      Limit: 200,
      ConsistentRead: true,
    });
    const hit = (out.Items ?? [])[0] as ShipmentItem | undefined;
    if (hit) return hit;
    start = out.LastEvaluatedKey;
  } while (start);
  return undefined;
}

/** A campaign's shipments in one status (read when a campaign has nothing pending left, and by a restart). */
const shipmentsIn = (c: CampaignItem, status: 'sending' | 'failed') =>
  queryAll<ShipmentItem>(shipmentsPartition(c.companyId, c.id), shipmentPrefix(), {
    FilterExpression: '#s = :status',
    ExpressionAttributeNames: { '#s': 'status' },
    ExpressionAttributeValues: { ':status': status },
    ConsistentRead: true,
  });

async function finish(c: CampaignItem) {
  try {
    await updateItem(campaignKey(c.companyId, c.id), { status: 'FINALIZADA', completedAt: nowIso(), updatedAt: nowIso() }, { condition: '#s = :r', names: { '#s': 'status' }, values: { ':r': 'EM_ANDAMENTO' } });
  } catch (err) {
    if (isConditionFailure(err)) return;
    throw err;
  }
  await announce(c.companyId, c.id);
}

/** Takes the lane's slot `ms` ahead (nothing to send now) and enqueues the job for it; false when another job took the slot. */
async function postpone(job: Extract<CampaignJob, { kind: 'lane' }>, lane: LaneItem, ms: number, set: Partial<LaneItem>): Promise<boolean> {
  const now = nowMs();
  try {
    await updateItem(laneKey(lane.companyId, lane.connectionId), { ...set, nextAt: now + ms, beatAt: now }, { condition: 'chainId = :c AND nextAt = :n', values: { ':c': lane.chainId, ':n': lane.nextAt } });
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
  await enqueue({ ...job, slot: now + ms }, ms);
  return true;
}

/** No work left: the chain ends (a new campaign or confirmation starts another). */
async function release(lane: LaneItem) {
  try {
    await transact([
      tx.update(laneKey(lane.companyId, lane.connectionId), 'SET chainId = :none, campaigns = :empty, downSince = :none', { ':none': null, ':empty': [], ':c': lane.chainId, ':seen': lane.campaigns.length, ':r': 0 }, 'chainId = :c AND size(campaigns) <= :seen AND size(ready) = :r'),
      tx.delete(activeLaneMarker(lane.companyId, lane.connectionId)),
    ]);
  } catch (err) {
    if (!isTransactionCanceled(err)) throw err;
  }
}

/** One transaction: the shipment taken, the campaign still running (its cursor moved), this chain's slot used. */
async function claimShipment(lane: LaneItem, f: Extract<Found, { kind: 'ship' }>, pace: { nextAt: number; sent: number }): Promise<string | undefined> {
  const at = nowIso();
  const s = f.shipment;
  const statuses = f.phase === 'final' && f.ready ? ['confirmed'] : [s.status];
  const redo = s.status === 'sending';
  const items: TransactItem[] = [
    tx.update(
      { PK: s.PK, SK: s.SK },
      'SET #s = :sending, phase = :phase, sendingAt = :at',
      { ':sending': 'sending', ':phase': f.phase, ':at': at, ':seen': statuses[0], ...(redo ? { ':seenAt': s.sendingAt } : {}) },
      redo ? '#s = :seen AND sendingAt = :seenAt' : '#s = :seen',
      { '#s': 'status' },
    ),
    f.ready
      ? tx.conditionCheck(campaignKey(lane.companyId, f.campaign.id), '#s IN (:r, :f)', { ':r': 'EM_ANDAMENTO', ':f': 'FINALIZADA' }, { '#s': 'status' })
      : f.cursor
        ? tx.update(campaignKey(lane.companyId, f.campaign.id), 'SET #cursor = :cursor', { ':cursor': f.cursor, ':r': 'EM_ANDAMENTO' }, '#s = :r', { '#s': 'status', '#cursor': 'cursor' })
        : tx.conditionCheck(campaignKey(lane.companyId, f.campaign.id), '#s = :r', { ':r': 'EM_ANDAMENTO' }, { '#s': 'status' }),
    tx.update(
      laneKey(lane.companyId, lane.connectionId),
      'SET nextAt = :next, sent = :sent, turn = :turn, beatAt = :now, campaigns = :campaigns, ready = :ready, downSince = :none',
      {
        ':next': pace.nextAt,
        ':sent': pace.sent,
        ':turn': f.turn,
        ':now': nowMs(),
        ':campaigns': f.campaigns,
        ':ready': f.readyLeft,
        ':none': null,
        ':chain': lane.chainId,
        ':seenNext': lane.nextAt,
      },
      'chainId = :chain AND nextAt = :seenNext',
    ),
  ];
  try {
    await transact(items);
    return at;
  } catch (err) {
    if (isTransactionCanceled(err)) return undefined;
    throw err;
  }
}

/** The WhatsApp id of a campaign message part: the same for every try of one recipient's send. */
export const campaignMessageId = (companyId: number, campaignId: number, number: string, phase: 'confirm' | 'final', part: number) =>
  `3EB0${createHash('sha256').update(`campaign:${companyId}:${campaignId}:${number}:${phase}:${part}`).digest('hex').slice(0, 16).toUpperCase()}`;

/** Sends the claimed shipment's messages (in the contact's ticket) and records the outcome. */
async function deliver(f: Picked, claimedAt: string, conn: ConnectionItem, settings: CampaignSettings) {
  const { campaign: c, shipment: s, phase } = f;
  const companyId = c.companyId;
  const variant = campaignVariants(c).find((v) => v.index === s.variant) ?? campaignVariants(c)[0];
  const fill = (text: string) => fillCampaignText(text, s, settings.variables);
  const own = { ':sending': 'sending', ':at': claimedAt };
  try {
    const contact = await findOrCreateContact(companyId, { number: s.number }, { pushName: s.name, connectionId: conn.id, ownNumber: conn.number });
    const { ticket } = await findOrCreateTicket(companyId, conn.id, contact, nowMs(), 'closed');
    const parts: OutgoingMessage[] = [];
    if (phase === 'confirm') parts.push({ body: fill(variant?.confirmation ?? '') });
    else {
      parts.push({ body: fill(variant?.message ?? '') });
      const files = c.fileListId ? await fileListForSending(companyId, c.fileListId) : null;
      if (files?.message.trim()) parts.push({ body: fill(files.message) });
      for (const o of files?.options ?? []) parts.push({ body: o.name, media: o.media });
      if (c.mediaKey && c.mediaType) {
        parts.push({ body: '', media: { key: c.mediaKey, mimetype: c.mediaType, fileName: c.mediaName ?? undefined, size: c.mediaSize ?? 0, mediaType: mediaKindOf(c.mediaType) ?? 'document' } });
      }
    }
    for (const [i, part] of parts.entries()) await sendInTicket(ticket, { ...part, id: campaignMessageId(companyId, c.id, s.number, phase, i) }, { contact, connection: conn });
    const at = nowIso();
    if (phase === 'confirm') {
      await transact([
        tx.update({ PK: s.PK, SK: s.SK }, 'SET #s = :confirming, confirmationRequestedAt = :now, contactId = :contact, ticketId = :ticket', { ...own, ':confirming': 'confirming', ':now': at, ':contact': contact.id, ':ticket': ticket.id }, '#s = :sending AND sendingAt = :at', { '#s': 'status' }),
        tx.update(campaignKey(companyId, c.id), 'ADD confirmationRequested :one', { ':one': 1 }),
        tx.update(contactKey(companyId, contact.id), 'SET campaignConfirm = :wait', { ':wait': { campaignId: c.id, connectionId: conn.id } }, 'attribute_exists(PK)'),
      ]);
    } else {
      await transact([
        tx.update({ PK: s.PK, SK: s.SK }, 'SET #s = :delivered, deliveredAt = :now, contactId = :contact, ticketId = :ticket', { ...own, ':delivered': 'delivered', ':now': at, ':contact': contact.id, ':ticket': ticket.id }, '#s = :sending AND sendingAt = :at', { '#s': 'status' }),
        tx.update(campaignKey(companyId, c.id), 'ADD delivered :one', { ':one': 1 }),
      ]);
    }
  } catch (err) {
    if (isTransactionCanceled(err)) return; // taken again meanwhile (a stale claim redone): theirs records it
    log.warn('campaign shipment failed', { err, companyId, campaignId: c.id });
    const reason = (err as { code?: string }).code ?? 'ERR_SENDING_WAPP_MSG';
    try {
      await transact([
        tx.update({ PK: s.PK, SK: s.SK }, 'SET #s = :failed, #e = :reason', { ...own, ':failed': 'failed', ':reason': reason }, '#s = :sending AND sendingAt = :at', { '#s': 'status', '#e': 'error' }),
        tx.update(campaignKey(companyId, c.id), 'ADD failed :one', { ':one': 1 }),
      ]);
    } catch (recordErr) {
      if (!isTransactionCanceled(recordErr)) throw recordErr;
    }
  }
  await announce(companyId, c.id);
}

// ------------------------------------------------------------------ confirmations

/**
 * A customer wrote while a campaign awaits their confirmation: the shipment is confirmed and goes
 * on its lane's ready list (its campaign message is the lane's next). Called by the inbound step.
 */
export async function confirmCampaignReply(contact: ContactItem): Promise<void> {
  const wait = contact.campaignConfirm;
  if (!wait || !contact.number) return;
  const { companyId } = contact;
  const key = shipmentKey(companyId, wait.campaignId, contact.number);
  try {
    await transact([
      tx.update(key, 'SET #s = :confirmed, confirmedAt = :now', { ':confirmed': 'confirmed', ':now': nowIso(), ':confirming': 'confirming' }, '#s = :confirming', { '#s': 'status' }),
      tx.update(campaignKey(companyId, wait.campaignId), 'ADD confirmed :one', { ':one': 1 }),
      tx.update(contactKey(companyId, contact.id), 'REMOVE campaignConfirm'),
      tx.update(laneKey(companyId, wait.connectionId), 'SET ready = list_append(if_not_exists(ready, :empty), :r)', { ':r': [{ campaignId: wait.campaignId, number: contact.number }], ':empty': [] }, 'attribute_exists(PK)'),
    ]);
  } catch (err) {
    if (!isTransactionCanceled(err)) throw err;
    log.info('campaign confirmation not awaited any more', { companyId, campaignId: wait.campaignId, reasons: (err as { CancellationReasons?: unknown }).CancellationReasons });
    // Not awaiting any more (answered twice, campaign deleted): only the marker goes.
    await updateItem(contactKey(companyId, contact.id), {}, { remove: ['campaignConfirm'] }).catch(() => undefined);
    return;
  }
  await joinLaneForReady(companyId, wait.connectionId);
  await announce(companyId, wait.campaignId);
}

/** A confirmed recipient on an idle lane: the lane gets a chain again. */
async function joinLaneForReady(companyId: number, connectionId: number) {
  const lane = await getItem<LaneItem>(laneKey(companyId, connectionId), true);
  if (!lane || lane.chainId) return;
  const chainId = uuid();
  try {
    await transact([
      tx.update(laneKey(companyId, connectionId), 'SET chainId = :c, beatAt = :now', { ':c': chainId, ':now': nowMs(), ':none': null }, 'chainId = :none OR attribute_not_exists(chainId)'),
      tx.put({ ...activeLaneMarker(companyId, connectionId), entity: 'activeLane', companyId, connectionId }),
    ]);
  } catch (err) {
    if (isTransactionCanceled(err)) return;
    throw err;
  }
  await enqueue({ kind: 'lane', companyId, connectionId, chainId });
}

// ------------------------------------------------------------------ sweeper

/**
 * The minute sweeper's part (the safety net): starts due within the look-ahead are enqueued to the
 * second (also those whose time passed while the system was down), and a lane whose chain stopped
 * gets a new one. Answers how many jobs it enqueued.
 */
export async function sweepCampaigns(now = nowMs()): Promise<number> {
  let jobs = 0;
  for (let shard = 0; shard < CAMPAIGN_DUE_SHARDS; shard++) {
    const out = await table().query({
      TableName: env.tableName,
      IndexName: 'GSI4',
      KeyConditionExpression: 'GSI4PK = :p AND GSI4SK < :c',
      ExpressionAttributeValues: { ':p': campaignDuePartition(shard), ':c': `${new Date(now + START_LOOKAHEAD_MS).toISOString()}#~` },
      Limit: 100,
    });
    for (const c of (out.Items ?? []) as CampaignItem[]) {
      if (c.entity !== 'campaign' || c.status !== 'PROGRAMADA') continue;
      await enqueueCampaignStart(c);
      jobs++;
    }
  }
  const lanes = await queryAll<{ companyId: number; connectionId: number }>(ACTIVE_LANES);
  for (const { companyId, connectionId } of lanes) {
    const lane = await getItem<LaneItem>(laneKey(companyId, connectionId), true);
    if (!lane) continue;
    const due = Math.max(lane.beatAt, lane.nextAt);
    if (lane.chainId && now - due < LANE_STALE_MS) continue;
    const chainId = uuid();
    try {
      await updateItem(laneKey(companyId, connectionId), { chainId, beatAt: now }, { condition: 'beatAt = :b', values: { ':b': lane.beatAt } });
    } catch (err) {
      if (isConditionFailure(err)) continue;
      throw err;
    }
    log.warn('campaign lane restarted', { companyId, connectionId });
    await enqueue({ kind: 'lane', companyId, connectionId, chainId });
    jobs++;
  }
  return jobs;
}
