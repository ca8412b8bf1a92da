import { companyEvent, type ApiCampaign, type CompanyEventData } from '@balcao/shared';
import { batchGet, clean } from '../core/db.js';
import { publish } from '../core/realtime.js';
import { readUrl } from '../core/storage.js';
import { connectionKey, contactListKey } from '../table/keys.js';
import type { CampaignItem, ConnectionItem, ContactListRecord } from '../table/items.js';

/** Campaigns as the API and their live events show them (the campaigns service and the dispatcher). */

export async function announceCampaign(companyId: number, data: CompanyEventData['Campaign']) {
  await publish({ companyId, event: companyEvent(companyId, 'Campaign'), data, audience: [{ kind: 'admins' }] });
}

/** The campaign as the API answers it, with its list's and connection's names and the media URL. */
export async function toApiCampaign(c: CampaignItem): Promise<ApiCampaign> {
  return (await toApiCampaigns(c.companyId, [c]))[0];
}

export async function toApiCampaigns(companyId: number, list: CampaignItem[]): Promise<ApiCampaign[]> {
  const listIds = [...new Set(list.map((c) => c.contactListId).filter((x): x is number => !!x))];
  const connIds = [...new Set(list.map((c) => c.whatsappId).filter((x): x is number => !!x))];
  const [lists, conns] = await Promise.all([
    batchGet<ContactListRecord>(listIds.map((id) => contactListKey(companyId, id))),
    batchGet<ConnectionItem>(connIds.map((id) => connectionKey(companyId, id))),
  ]);
  const listById = new Map(lists.filter((l) => !(l as { deleting?: boolean }).deleting).map((l) => [l.id, l]));
  const connById = new Map(conns.map((c) => [c.id, c]));
  return Promise.all(
    list.map(async (c) => {
      const { mediaKey, mediaType: _t, mediaSize: _s, recipients, delivered, confirmationRequested, confirmed, failed, planned: _p, plannedUpTo: _u, cursor: _c, retryFailed: _r, ...rest } = clean(c);
      const l = c.contactListId ? listById.get(c.contactListId) : undefined;
      const w = c.whatsappId ? connById.get(c.whatsappId) : undefined;
      return {
        ...rest,
        mediaUrl: mediaKey ? await readUrl(mediaKey) : null,
        contactList: l ? { id: l.id, name: l.name, contactsCount: l.contactsCount } : null,
        whatsapp: w ? { id: w.id, name: w.name, status: w.status } : null,
        counts: { recipients, delivered, confirmationRequested, confirmed, failed },
      };
    }),
  );
}
