import {
  AppError,
  CAMPAIGNS_PAGE,
  CAMPAIGN_VARIANTS,
  MSG,
  campaignEditable,
  campaignSchema,
  campaignsQuerySchema,
  campaignUpdateSchema,
  campaignVariants,
  checkMedia,
  displayFileName,
  fromZonedInput,
  parseOrThrow,
  safeFileName,
  type ApiCampaign,
  type CampaignInput,
  type FieldIssue,
} from '@balcao/shared';
import { batchWrite, getItem, isConditionFailure, nextId, queryAll, transact, tx, updateItem, type WriteRequest } from '../core/db.js';
import type { UploadedFile } from '../core/http.js';
import type { Identity } from '../core/identity.js';
import { env } from '../core/env.js';
import { log } from '../core/observability.js';
import { pageByName } from '../core/paging.js';
import { nowIso, nowMs } from '../core/ports.js';
import { deleteObject, putObject } from '../core/storage.js';
import { activeLaneMarker, campaignDueKeys, campaignKey, campaignPrefix, campaignsPartition, connectionKey, contactListKey, laneKey, shipmentsPartition, tagKey } from '../table/keys.js';
import type { CampaignItem, ConnectionItem, ContactListRecord, LaneItem, TagItem } from '../table/items.js';
import { fileListExists } from './file-lists.js';
import { timeZone } from './ticket-lifecycle.js';
import { limitError, usageDecrement, usageIncrement } from './usage.js';
import { enqueueCampaignStart } from './campaign-dispatch.js';
import { clearItemTimer, timerName } from './item-timers.js';
import { announceCampaign, toApiCampaign, toApiCampaigns } from './campaign-view.js';

/**
 * Campaigns (spec 002 §2-§7, issue 20 §3, §5): the table, the dialog's saves, stop, restart and
 * media. Sending is the dispatcher's (campaign-dispatch.ts). Every reference is checked against the
 * company's own records (another company's id is unknown), and nothing is saved when one fails.
 */

const notFound = () => new AppError(404, 'ERR_NOT_FOUND');
/** A started campaign's media is in sent messages (they name the same object): it stays when replaced or deleted. */
const ownsMedia = (c: CampaignItem) => !!c.mediaKey && !c.planned && !c.plannedUpTo;
const invalid = (fields: FieldIssue[]) => new AppError(400, 'ERR_VALIDATION', { message: fields[0].message, fields });
const changedMeanwhile = () => new AppError(409, 'ERR_VALIDATION', { message: 'A campanha mudou ao mesmo tempo; tente de novo' });
const MESSAGE_FIELDS = Array.from({ length: CAMPAIGN_VARIANTS }, (_, i) => [`message${i + 1}`, `confirmationMessage${i + 1}`]).flat();

const allCampaigns = async (companyId: number) =>
  (await queryAll<CampaignItem>(campaignsPartition(companyId), campaignPrefix())).filter((c) => c.entity === 'campaign').sort((a, b) => b.id - a.id);

export async function getCampaignItem(companyId: number, id: number): Promise<CampaignItem> {
  const c = await getItem<CampaignItem>(campaignKey(companyId, id), true);
  if (!c || c.entity !== 'campaign') throw notFound();
  return c;
}

/** `GET /campaigns`: newest first, pages of 20, narrowed by a name fragment. */
export async function listCampaigns(identity: Identity, query: Record<string, string | undefined>) {
  const { page, count, hasMore } = pageByName(await allCampaigns(identity.companyId), parseOrThrow(campaignsQuerySchema, query), CAMPAIGNS_PAGE);
  return { records: await toApiCampaigns(identity.companyId, page), count, hasMore };
}

export const getCampaign = async (identity: Identity, id: number) => toApiCampaign(await getCampaignItem(identity.companyId, id));

/** The scheduled instant of the dialog's value (the company's wall clock, or an ISO instant with its offset). */
async function scheduledInstant(companyId: number, value: string | null | undefined, keep: string | null): Promise<string | null> {
  if (!value) return null;
  const withZone = /(Z|[+-]\d{2}:?\d{2})$/.test(value);
  const iso = withZone ? (Number.isFinite(Date.parse(value)) ? new Date(value).toISOString() : null) : fromZonedInput(value.replace(' ', 'T').slice(0, 19), await timeZone(companyId), keep);
  if (!iso) throw invalid([{ field: 'scheduledAt', message: MSG.invalidValue }]);
  return iso;
}

/** Checks what a campaign names and needs; answers every field problem at once. */
async function checkCampaign(companyId: number, c: Pick<CampaignItem, 'contactListId' | 'tagListId' | 'whatsappId' | 'fileListId'>, changed: Set<string>) {
  const fields: FieldIssue[] = [];
  if (!campaignVariants(c).length) fields.push({ field: 'message1', message: MSG.campaignNoMessage });
  if (!c.contactListId && !c.tagListId) fields.push({ field: 'contactListId', message: MSG.campaignNoRecipients });
  if (!c.whatsappId) fields.push({ field: 'whatsappId', message: MSG.required });
  const [list, tag, conn, files] = await Promise.all([
    c.contactListId && changed.has('contactListId') ? getItem<ContactListRecord & { deleting?: boolean }>(contactListKey(companyId, c.contactListId)) : undefined,
    c.tagListId && changed.has('tagListId') ? getItem<TagItem>(tagKey(companyId, c.tagListId)) : undefined,
    c.whatsappId && changed.has('whatsappId') ? getItem<ConnectionItem>(connectionKey(companyId, c.whatsappId)) : undefined,
    c.fileListId && changed.has('fileListId') ? fileListExists(companyId, c.fileListId) : true,
  ]);
  if (c.contactListId && changed.has('contactListId') && (!list || list.deleting)) fields.push({ field: 'contactListId', message: 'ERR_NOT_FOUND' });
  // Recipients are the contacts carrying the tag: a ticket tag names tickets, not contacts.
  if (c.tagListId && changed.has('tagListId') && (!tag || tag.entity !== 'tag' || tag.deleting || tag.type !== 'contact')) fields.push({ field: 'tagListId', message: 'ERR_NOT_FOUND' });
  if (c.whatsappId && changed.has('whatsappId') && !conn) fields.push({ field: 'whatsappId', message: 'ERR_NOT_FOUND' });
  if (!files) fields.push({ field: 'fileListId', message: 'ERR_NOT_FOUND' });
  if (fields.length) throw invalid(fields);
}

const messagesOf = (data: Partial<CampaignInput>) => Object.fromEntries(MESSAGE_FIELDS.map((f) => [f, (data as Record<string, string | undefined>)[f] ?? '']));

export async function createCampaign(identity: Identity, body: unknown): Promise<ApiCampaign> {
  const data = parseOrThrow(campaignSchema, body);
  const companyId = identity.companyId;
  const scheduledAt = await scheduledInstant(companyId, data.scheduledAt, null);
  const draft = { contactListId: data.contactListId ?? null, tagListId: data.tagListId ?? null, whatsappId: data.whatsappId ?? null, fileListId: data.fileListId ?? null, ...messagesOf(data) };
  await checkCampaign(companyId, draft, new Set(['contactListId', 'tagListId', 'whatsappId', 'fileListId']));
  if (scheduledAt && Date.parse(scheduledAt) <= nowMs()) throw invalid([{ field: 'scheduledAt', message: MSG.campaignPastDate }]);
  const id = await nextId(companyId, 'campaign');
  const now = nowIso();
  const item: CampaignItem = {
    ...campaignKey(companyId, id),
    entity: 'campaign',
    ...(scheduledAt ? campaignDueKeys(companyId, id, scheduledAt) : {}),
    id,
    companyId,
    name: data.name,
    ...(draft as typeof draft & Pick<ApiCampaign, 'message1' | 'message2' | 'message3' | 'message4' | 'message5' | 'confirmationMessage1' | 'confirmationMessage2' | 'confirmationMessage3' | 'confirmationMessage4' | 'confirmationMessage5'>),
    status: scheduledAt ? 'PROGRAMADA' : 'INATIVA',
    confirmation: data.confirmation ?? false,
    scheduledAt,
    completedAt: null,
    mediaPath: null,
    mediaName: null,
    mediaKey: null,
    mediaType: null,
    mediaSize: null,
    recipients: 0,
    delivered: 0,
    confirmationRequested: 0,
    confirmed: 0,
    failed: 0,
    planned: false,
    cursor: null,
    error: null,
    createdAt: now,
    updatedAt: now,
  };
  const limit = identity.plan?.campaigns ?? 0;
  await transact([tx.put(item, 'attribute_not_exists(PK)'), usageIncrement(companyId, 'campaigns', limit)], (i) => (i === 1 ? limitError('campaigns', limit) : undefined));
  if (scheduledAt) await enqueueCampaignStart(item);
  const record = await toApiCampaign(item);
  await announceCampaign(companyId, { action: 'create', record });
  return record;
}

/**
 * `PUT /campaigns/{id}`: everything while editable (INATIVA, or PROGRAMADA over an hour ahead: the
 * status follows the scheduled time), only the messages of a CANCELADA one, nothing otherwise.
 */
export async function updateCampaign(identity: Identity, id: number, body: unknown): Promise<ApiCampaign> {
  const data = parseOrThrow(campaignUpdateSchema, body);
  const companyId = identity.companyId;
  const current = await getCampaignItem(companyId, id);
  const editable = campaignEditable(current, nowMs());
  const given = Object.keys(data).filter((k) => (data as Record<string, unknown>)[k] !== undefined);
  const set: Record<string, unknown> = {};
  for (const f of MESSAGE_FIELDS) if ((data as Record<string, unknown>)[f] !== undefined) set[f] = (data as Record<string, unknown>)[f];
  if (editable === 'none' && given.length) throw new AppError(409, 'ERR_CAMPAIGN_NOT_EDITABLE');
  const others = given.filter((k) => !MESSAGE_FIELDS.includes(k));
  let scheduledAt = current.scheduledAt;
  if (editable === 'messages') {
    // The dialog sends the whole form: unchanged fields are not edits.
    const moved = others.filter((k) => k !== 'scheduledAt' && (data as Record<string, unknown>)[k] !== (current as unknown as Record<string, unknown>)[k]);
    if (moved.length) throw new AppError(409, 'ERR_CAMPAIGN_NOT_EDITABLE');
  } else if (editable === 'all') {
    for (const k of ['name', 'confirmation', 'contactListId', 'tagListId', 'whatsappId', 'fileListId'] as const) if (data[k] !== undefined) set[k] = data[k];
    if (data.scheduledAt !== undefined) {
      scheduledAt = await scheduledInstant(companyId, data.scheduledAt, current.scheduledAt);
      if (scheduledAt && scheduledAt !== current.scheduledAt && Date.parse(scheduledAt) <= nowMs()) throw invalid([{ field: 'scheduledAt', message: MSG.campaignPastDate }]);
      set.scheduledAt = scheduledAt;
      set.status = scheduledAt ? 'PROGRAMADA' : 'INATIVA';
    }
  }
  const next = { ...current, ...set } as CampaignItem;
  await checkCampaign(companyId, next, new Set(others));
  const remove: string[] = [];
  if (editable === 'all') {
    if (next.status === 'PROGRAMADA' && next.scheduledAt) Object.assign(set, campaignDueKeys(companyId, id, next.scheduledAt));
    else remove.push('GSI4PK', 'GSI4SK');
  }
  let updated: CampaignItem;
  try {
    updated = await updateItem<CampaignItem>(campaignKey(companyId, id), { ...set, updatedAt: nowIso() }, { condition: 'attribute_exists(PK) AND updatedAt = :u', values: { ':u': current.updatedAt }, remove });
  } catch (err) {
    if (isConditionFailure(err)) throw changedMeanwhile();
    throw err;
  }
  if (updated.status === 'PROGRAMADA' && updated.scheduledAt !== current.scheduledAt) await enqueueCampaignStart(updated);
  // No longer scheduled: its timer goes (one left when a time moved nearer finds the campaign started).
  if (current.status === 'PROGRAMADA' && updated.status === 'INATIVA') await clearItemTimer(timerName('campaign', companyId, id));
  const record = await toApiCampaign(updated);
  await announceCampaign(companyId, { action: 'update', record });
  return record;
}

/** `DELETE /campaigns/{id}`: never while EM_ANDAMENTO; its shipments and media go with it. */
export async function deleteCampaign(identity: Identity, id: number): Promise<void> {
  const companyId = identity.companyId;
  const current = await getCampaignItem(companyId, id);
  if (current.status === 'EM_ANDAMENTO') throw new AppError(409, 'ERR_CAMPAIGN_IN_PROGRESS');
  const remove = { Delete: { TableName: env.tableName, Key: campaignKey(companyId, id), ConditionExpression: '#s <> :running', ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ':running': 'EM_ANDAMENTO' } } };
  await transact([remove, usageDecrement(companyId, 'campaigns')], (i) =>
    i === 0 ? new AppError(409, 'ERR_CAMPAIGN_IN_PROGRESS') : undefined,
  );
  const shipments = await queryAll<{ PK: string; SK: string }>(shipmentsPartition(companyId, id));
  await batchWrite(shipments.map((s): WriteRequest => ({ DeleteRequest: { Key: { PK: s.PK, SK: s.SK } } })));
  if (current.status === 'PROGRAMADA') await clearItemTimer(timerName('campaign', companyId, id));
  if (ownsMedia(current)) await deleteObject(current.mediaKey!).catch((err) => log.warn('campaign media not removed', { err }));
  await announceCampaign(companyId, { action: 'delete', id });
}

/** `POST /campaigns/{id}/cancel`: EM_ANDAMENTO → CANCELADA; a send racing it loses its claim. */
export async function cancelCampaign(identity: Identity, id: number): Promise<ApiCampaign> {
  return moveStatus(identity.companyId, id, 'EM_ANDAMENTO', { status: 'CANCELADA' }, 'ERR_CAMPAIGN_NOT_RUNNING');
}

/**
 * `POST /campaigns/{id}/restart`: CANCELADA → EM_ANDAMENTO through a connected connection; the
 * undelivered recipients (failed ones too) are sent, the delivered ones never again.
 */
export async function restartCampaign(identity: Identity, id: number): Promise<ApiCampaign> {
  const companyId = identity.companyId;
  const current = await getCampaignItem(companyId, id);
  if (current.status !== 'CANCELADA') throw new AppError(409, 'ERR_CAMPAIGN_NOT_CANCELLED');
  const conn = current.whatsappId ? await getItem<ConnectionItem>(connectionKey(companyId, current.whatsappId)) : undefined;
  if (!conn || conn.status !== 'CONNECTED') throw invalid([{ field: 'whatsappId', message: MSG.campaignConnectionNotConnected }]);
  return moveStatus(companyId, id, 'CANCELADA', { status: 'EM_ANDAMENTO', error: null, cursor: null, retryFailed: true }, 'ERR_CAMPAIGN_NOT_CANCELLED', true);
}

async function moveStatus(companyId: number, id: number, from: string, set: Record<string, unknown>, refusal: 'ERR_CAMPAIGN_NOT_RUNNING' | 'ERR_CAMPAIGN_NOT_CANCELLED', start = false): Promise<ApiCampaign> {
  let updated: CampaignItem;
  try {
    updated = await updateItem<CampaignItem>(campaignKey(companyId, id), { ...set, updatedAt: nowIso() }, { condition: 'attribute_exists(PK) AND #s = :from', names: { '#s': 'status' }, values: { ':from': from } });
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
    await getCampaignItem(companyId, id);
    throw new AppError(409, refusal);
  }
  if (start) await enqueueCampaignStart(updated);
  const record = await toApiCampaign(updated);
  await announceCampaign(companyId, { action: 'update', record });
  return record;
}

/** `POST /campaigns/{id}/media-upload` (multipart `file`): checked by its bytes and size like other attachments. */
export async function uploadCampaignMedia(identity: Identity, id: number, files: UploadedFile[]): Promise<ApiCampaign> {
  const companyId = identity.companyId;
  const current = await getCampaignItem(companyId, id);
  if (campaignEditable(current, nowMs()) === 'none') throw new AppError(409, 'ERR_CAMPAIGN_NOT_EDITABLE');
  const file = files.find((f) => f.field === 'file') ?? files[0];
  if (!file) throw invalid([{ field: 'file', message: MSG.obrigatorio }]);
  const check = checkMedia(file.mimeType, file.data.length, file.data.subarray(0, 64));
  if (!check.ok) throw invalid([{ field: 'file', message: check.message }]);
  const mediaPath = safeFileName(file.fileName.replace(/ /g, '_'));
  const key = `c/${companyId}/campaigns/${id}/${nowMs()}-${mediaPath}`;
  await putObject(key, file.data, check.mimetype);
  let updated: CampaignItem;
  try {
    updated = await updateItem<CampaignItem>(
      campaignKey(companyId, id),
      { mediaKey: key, mediaPath, mediaName: displayFileName(file.fileName), mediaType: check.mimetype, mediaSize: file.data.length, updatedAt: nowIso() },
      { condition: 'attribute_exists(PK) AND updatedAt = :u', values: { ':u': current.updatedAt } },
    );
  } catch (err) {
    await deleteObject(key).catch(() => undefined);
    if (isConditionFailure(err)) throw changedMeanwhile();
    throw err;
  }
  if (ownsMedia(current)) await deleteObject(current.mediaKey!).catch((err) => log.warn('old campaign media not removed', { err }));
  const record = await toApiCampaign(updated);
  await announceCampaign(companyId, { action: 'update', record });
  return record;
}

/** `DELETE /campaigns/{id}/media-upload`. */
export async function deleteCampaignMedia(identity: Identity, id: number): Promise<ApiCampaign> {
  const companyId = identity.companyId;
  const current = await getCampaignItem(companyId, id);
  if (campaignEditable(current, nowMs()) === 'none') throw new AppError(409, 'ERR_CAMPAIGN_NOT_EDITABLE');
  const updated = await updateItem<CampaignItem>(campaignKey(companyId, id), { mediaKey: null, mediaPath: null, mediaName: null, mediaType: null, mediaSize: null, updatedAt: nowIso() });
  if (ownsMedia(current)) await deleteObject(current.mediaKey!).catch((err) => log.warn('campaign media not removed', { err }));
  const record = await toApiCampaign(updated);
  await announceCampaign(companyId, { action: 'update', record });
  return record;
}

/**
 * A company being removed: its campaigns with their shipments and media, its lanes (and their
 * places on the sweeper's list); a lane job still queued then finds nothing and stops.
 */
export async function deleteCompanyCampaigns(companyId: number): Promise<void> {
  for (const c of await allCampaigns(companyId)) {
    const shipments = await queryAll<{ PK: string; SK: string }>(shipmentsPartition(companyId, c.id));
    await batchWrite([...shipments, c].map((s): WriteRequest => ({ DeleteRequest: { Key: { PK: s.PK, SK: s.SK } } })));
    if (c.mediaKey) await deleteObject(c.mediaKey).catch((err) => log.warn('campaign media not removed', { err }));
  }
  const lanes = await queryAll<LaneItem>(laneKey(companyId, 0).PK);
  await batchWrite(
    lanes.flatMap((l): WriteRequest[] => [{ DeleteRequest: { Key: { PK: l.PK, SK: l.SK } } }, { DeleteRequest: { Key: activeLaneMarker(companyId, l.connectionId) } }]),
  );
}
