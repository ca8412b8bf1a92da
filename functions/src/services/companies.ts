import {
  AppError,
  companySchedulesSchema,
  companySchema,
  companyUpdateSchema,
  defaultSchedule,
  parseOrThrow,
  signupSchema,
  trialDueDate,
  type Company,
} from '@balcao/shared';
import { clean, getItem, isTransactionCanceled, nextId, queryAll, queryIndexAll, transact, tx, updateItem, deleteItem, conflictPause } from '../core/db.js';
import { dueIndexUpdate, restartStoppedSessions, supersedeOpenInvoice } from './billing.js';
import { keys, integrationsPartition, invoicesPartition, promptsPartition } from '../table/keys.js';
import { deleteCompanyFileLists } from './file-lists.js';
import { deleteCompanyCampaigns } from './campaigns.js';
import { deleteCompanyContactLists } from './campaign-contact-lists.js';
import { invalidateCompanyCache } from '../core/identity.js';
import { defaultSettingItems, listSettings } from './settings.js';
import { getPlan, toPlan } from './plans.js';
import { createUser, removeUserRecords } from './users.js';
import { type CompanyItem, type UserItem } from '../table/items.js';
import { nowIso } from '../core/ports.js';

const emailTaken = () =>
  new AppError(409, 'ERR_COMPANY_EMAIL_ALREADY_EXISTS', { fields: [{ field: 'email', message: 'ERR_COMPANY_EMAIL_ALREADY_EXISTS' }] });

export const toApiCompany = (c: CompanyItem): Company => {
  const { ticketListsSince: _internal, invoicedDueDate: _invoiced, blockedAt: _blocked, stoppedConnectionIds: _stopped, ...rest } = clean(c);
  // Companies made before issue 18 have the default week.
  return { ...rest, schedules: c.schedules ?? defaultSchedule() } as unknown as Company;
};

/**
 * `PUT /companies/{id}/schedules` (the settings Schedules tab): an admin for their own company, the
 * super user for any; another company's id is as absent as one that never existed.
 */
export async function updateCompanySchedules(identity: { companyId: number; isSuper: boolean }, id: number, input: unknown) {
  if (!identity.isSuper && id !== identity.companyId) throw new AppError(404, 'ERR_NO_COMPANY_FOUND');
  const { schedules } = parseOrThrow(companySchedulesSchema, input);
  const updated = await updateItem<CompanyItem>(keys.company(id), { schedules, updatedAt: nowIso() }, { condition: 'attribute_exists(PK)' }).catch((err) => {
    if ((err as { name?: string }).name === 'ConditionalCheckFailedException') throw new AppError(404, 'ERR_NO_COMPANY_FOUND');
    throw err;
  });
  return { id: updated.id, schedules: updated.schedules ?? schedules };
}

export async function getCompanyItem(id: number): Promise<CompanyItem> {
  const item = await getItem<CompanyItem>(keys.company(id));
  if (!item) throw new AppError(404, 'ERR_NO_COMPANY_FOUND');
  return item;
}

export async function companyWithPlan(id: number) {
  const company = await getCompanyItem(id);
  const plan = await getItem(keys.plan(company.planId)).then((p) => (p ? toPlan(p as never) : undefined));
  return { ...toApiCompany(company), plan };
}

interface CreateCompanyOptions {
  /** Password of the company's first admin (e-mail = the company's); no admin when absent. */
  adminPassword?: string;
  adminName?: string;
  adminIsSuper?: boolean;
}

/**
 * Creates the company with its default settings, then its first admin. If the admin cannot be
 * created (e.g. the e-mail already signs in elsewhere) the company is removed again.
 */
export async function createCompany(input: unknown, opts: CreateCompanyOptions = {}): Promise<{ company: CompanyItem; admin?: UserItem }> {
  const data = parseOrThrow(companySchema, input);
  await getPlan(data.planId).catch(() => {
    throw new AppError(400, 'ERR_NO_PLAN_FOUND', { fields: [{ field: 'planId', message: 'ERR_NO_PLAN_FOUND' }] });
  });
  const adminPassword = opts.adminPassword ?? data.password;
  if (await getItem(keys.uniqueCompanyEmail(data.email))) throw emailTaken();
  if (adminPassword && (await getItem(keys.uniqueEmail(data.email)))) {
    throw new AppError(409, 'ERR_EMAIL_ALREADY_EXISTS', { fields: [{ field: 'email', message: 'ERR_EMAIL_ALREADY_EXISTS' }] });
  }
  const id = await nextId(0, 'company');
  const now = nowIso();
  const item: CompanyItem = {
    ...keys.company(id),
    entity: 'company',
    ...keys.companyListKeys(id),
    schedules: defaultSchedule(),
    id,
    name: data.name,
    email: data.email,
    phone: data.phone ?? '',
    planId: data.planId,
    status: data.status ?? true,
    campaignsEnabled: data.campaignsEnabled ?? true,
    dueDate: data.dueDate ?? null,
    recurrence: data.recurrence ?? 'MENSAL',
    trialExpiration: null,
    ...(data.billingExempt ? { billingExempt: true } : {}),
    document: data.document,
    addressZipCode: data.addressZipCode,
    addressStreet: data.addressStreet,
    addressState: data.addressState,
    addressCity: data.addressCity,
    addressDistrict: data.addressDistrict,
    // Its contacts' ticket lists hold every ticket from the start (search-index.ts).
    ticketListsSince: now,
    createdAt: now,
    updatedAt: now,
  } as CompanyItem;
  // The invoice job's index (decision 61).
  Object.assign(item, dueIndexUpdate(item).set);
  return finishCreate(item, now, adminPassword, opts);
}

async function finishCreate(item: CompanyItem, now: string, adminPassword: string | undefined, opts: CreateCompanyOptions) {
  await transact(
    [
      tx.putUnique({ ...keys.uniqueCompanyEmail(item.email), entity: 'unique', companyId: item.id }),
      tx.put(item, 'attribute_not_exists(PK)'),
      tx.put({ ...keys.usage(item.id), entity: 'usage', users: 0, queues: 0, connections: 0, campaigns: 0, schedules: 0 }),
      ...defaultSettingItems(item.id, now),
    ],
    (i) => (i === 0 ? emailTaken() : undefined),
  );
  if (!adminPassword) return { company: item };
  try {
    const admin = await createUser(
      item.id,
      { name: opts.adminName ?? item.name, email: item.email, password: adminPassword, profile: 'admin', allTicket: 'enabled' },
      [],
      { isSuper: opts.adminIsSuper, skipLimit: true },
    );
    return { company: item, admin };
  } catch (err) {
    await removeCompanyRecords(item);
    throw err;
  }
}

/** Self-signup: a trial company of the chosen plan with its admin (server-behaviour §13). */
export async function signup(input: unknown) {
  const data = parseOrThrow(signupSchema, input);
  const due = trialDueDate();
  const { company } = await createCompany(
    { name: data.name, email: data.email, phone: data.phone, planId: data.planId, status: true, campaignsEnabled: true, dueDate: due, recurrence: 'MENSAL' },
    { adminPassword: data.password },
  );
  const withTrial = await updateItem<CompanyItem>(keys.company(company.id), { trialExpiration: due });
  return toApiCompany(withTrial);
}

export async function updateCompany(id: number, input: unknown): Promise<Company> {
  const current = await getCompanyItem(id);
  const data = parseOrThrow(companyUpdateSchema, input);
  if (data.planId !== undefined) {
    await getPlan(data.planId).catch(() => {
      throw new AppError(400, 'ERR_NO_PLAN_FOUND', { fields: [{ field: 'planId', message: 'ERR_NO_PLAN_FOUND' }] });
    });
  }
  const now = nowIso();
  if (data.email && data.email !== current.email) {
    await transact(
      [
        tx.putUnique({ ...keys.uniqueCompanyEmail(data.email), entity: 'unique', companyId: id }),
        tx.delete(keys.uniqueCompanyEmail(current.email)),
      ],
      (i) => (i === 0 ? emailTaken() : undefined),
    );
  }
  const { updated, before } = await writeCompanyUpdate(current, data, now);
  invalidateCompanyCache(id);
  // Unblocked by hand: the sessions the block stopped start again (the version the write replaced,
  // not the first read: a block committed in between is read again before the write).
  if (before.status === false && updated.status !== false) await restartStoppedSessions(id, before.stoppedConnectionIds);
  return toApiCompany(updated);
}

/**
 * The company's update with its billing index kept true (decision 61): a due date moved by hand
 * ('+ Vencimento') supersedes the open invoice of the old due date in the same transaction, so no
 * stale open invoice stays due. Conditional on the company as read — `updatedAt`, and the fields the
 * billing writes decide on (`status`, `invoicedDueDate`), so a block or an invoice opened in the same
 * millisecond is seen too — a race with the job or a payment reads again. Answers the company written
 * and the version it replaced.
 */
async function writeCompanyUpdate(read: CompanyItem, data: Record<string, unknown>, now: string): Promise<{ updated: CompanyItem; before: CompanyItem }> {
  let current = read;
  for (let attempt = 0; ; attempt++) {
    const superseded = 'dueDate' in data ? await supersedeOpenInvoice(current, data.dueDate as string | null | undefined) : { items: [], clearInvoiced: false };
    const next = { ...current, ...data, ...(superseded.clearInvoiced ? { invoicedDueDate: undefined } : {}) } as CompanyItem;
    const unblocked = current.status === false && next.status !== false;
    const index = dueIndexUpdate(next);
    const set: Record<string, unknown> = { ...data, ...index.set, updatedAt: now };
    const remove = [...index.remove, ...(unblocked ? ['blockedAt', 'stoppedConnectionIds'] : []), ...(superseded.clearInvoiced ? ['invoicedDueDate'] : [])];
    const names: Record<string, string> = { '#cst': 'status', '#cinv': 'invoicedDueDate' };
    const values: Record<string, unknown> = { ':readUpdatedAt': current.updatedAt, ':readStatus': current.status };
    const parts = Object.entries(set)
      .filter(([, v]) => v !== undefined)
      .map(([k, v], i) => ((names[`#s${i}`] = k), (values[`:s${i}`] = v), `#s${i} = :s${i}`));
    const removes = remove.map((k, i) => ((names[`#r${i}`] = k), `#r${i}`));
    let invoiced = 'attribute_not_exists(#cinv)';
    if (current.invoicedDueDate) {
      values[':readInvoiced'] = current.invoicedDueDate;
      invoiced = '#cinv = :readInvoiced';
    }
    try {
      await transact([
        tx.update(
          keys.company(current.id),
          `SET ${parts.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
          values,
          `attribute_exists(PK) AND updatedAt = :readUpdatedAt AND #cst = :readStatus AND ${invoiced}`,
          names,
        ),
        ...superseded.items,
      ]);
    } catch (err) {
      if (!isTransactionCanceled(err)) throw err;
      // Still racing after a few reads (many writes at once): the caller tries again.
      if (attempt >= 5) throw new AppError(409, 'ERR_VALIDATION', { message: 'O registro mudou ao mesmo tempo; tente de novo' });
      await conflictPause(attempt);
      current = await getCompanyItem(current.id);
      continue;
    }
    const updated = (await getItem<CompanyItem>(keys.company(current.id), true)) ?? (await getCompanyItem(current.id));
    return { updated, before: current };
  }
}

/** Every company, for the super user's table (a bounded admin list, paged in memory). */
export async function searchCompanies(searchParam: string | undefined, pageNumber: number, pageSize = 20) {
  const term = (searchParam ?? '').trim().toLowerCase();
  const all = (await queryIndexAll<CompanyItem>('GSI1', keys.companyList()))
    .filter((c) => !term || c.name.toLowerCase().includes(term) || c.email.toLowerCase().includes(term))
    // Newest first: the company just signed up or created is the one the super user looks for.
    .sort((a, b) => b.id - a.id);
  const page = all.slice((pageNumber - 1) * pageSize, pageNumber * pageSize);
  return { companies: page.map(toApiCompany), count: all.length, hasMore: pageNumber * pageSize < all.length };
}

export async function listCompanies(): Promise<Company[]> {
  const all = await queryIndexAll<CompanyItem>('GSI1', keys.companyList());
  return all.sort((a, b) => a.id - b.id).map(toApiCompany);
}

export async function companyDetails(id: number) {
  const withPlan = await companyWithPlan(id);
  return { ...withPlan, settings: await listSettings(id) };
}

/** Deleting a tenant removes its users (Cognito included) and every item under its key. */
export async function deleteCompany(id: number, callerCompanyId: number): Promise<void> {
  if (id === callerCompanyId) throw new AppError(400, 'ERR_NO_PERMISSION', { message: 'Não é possível excluir a sua própria empresa' });
  const company = await getCompanyItem(id);
  await removeCompanyRecords(company);
  invalidateCompanyCache(id);
}

async function removeCompanyRecords(company: CompanyItem) {
  const items = await queryAll<{ PK: string; SK: string; entity?: string }>(keys.companyPartition(company.id));
  for (const user of items.filter((i) => i.entity === 'user') as unknown as UserItem[]) {
    await removeUserRecords(user).catch(() => undefined);
  }
  for (const it of items) {
    if (it.entity !== 'user') await deleteItem({ PK: it.PK, SK: it.SK });
  }
  // Its integrations and prompts hold its sealed keys: they go with it.
  for (const partition of [integrationsPartition(company.id), promptsPartition(company.id), invoicesPartition(company.id)]) {
    for (const it of await queryAll<{ PK: string; SK: string }>(partition)) await deleteItem({ PK: it.PK, SK: it.SK });
  }
  // Its file lists and their stored files (its campaign settings are in its own partition, above).
  await deleteCompanyFileLists(company.id);
  // Its campaigns (shipments, media, lanes) and contact lists.
  await deleteCompanyCampaigns(company.id);
  await deleteCompanyContactLists(company.id);
  await deleteItem(keys.uniqueCompanyEmail(company.email));
}
