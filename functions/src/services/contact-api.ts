import { companyEvent, type ApiContact, type ApiContactFull } from '@balcao/shared';
import { clean } from '../core/db.js';
import { publish } from '../core/realtime.js';
import type { ContactItem } from '../table/items.js';
import { refsOf, tagRefs, type TagRef } from './tag-refs.js';

/** A contact as the API and its events answer it (the contacts service and the services that name a contact). */
export function toApiContact(c: ContactItem): ApiContact {
  const { campaignConfirm: _waiting, ...rest } = clean(c);
  return rest;
}

/** Contacts as the API answers them: with `tags: [{id, name, color, type}]` (one BatchGet). */
export async function toApiContacts(companyId: number, list: ContactItem[]): Promise<ApiContactFull[]> {
  const refs = await tagRefs(companyId, list.flatMap((c) => c.tagIds ?? []));
  return list.map((c) => ({ ...toApiContact(c), tagIds: c.tagIds ?? [], tags: refsOf(c.tagIds, refs) as TagRef[] }));
}
export const toApiContactFull = async (c: ContactItem) => (await toApiContacts(c.companyId, [c]))[0];

export async function publishContact(companyId: number, c: ContactItem, action: 'create' | 'update') {
  await publish({ companyId, event: companyEvent(companyId, 'contact'), data: { action, contact: await toApiContactFull(c) }, audience: [{ kind: 'company' }] });
}

