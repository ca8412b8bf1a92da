import type { ApiFileList } from '@balcao/shared';
import { call } from './call';
import { mediaOf, resource } from './resource';
import { tagsApi } from './tags';

/** How many pages a selector reads at most (20 each): far beyond what a company keeps. */
const MAX_PAGES = 50;

/**
 * Campaigns (spec 002 §7, issue 20 §3): pages of 20 (`records`, with `count`), the stop and restart
 * of a campaign, and its media attachment (multipart `file`, uploaded after the campaign is saved:
 * the route needs its id).
 */
export const campaignsApi = {
  ...resource('/campaigns'),
  ...mediaOf('/campaigns'),
  page: (searchParam: string | undefined, pageNumber: number) => call('GET /campaigns', { query: { searchParam, pageNumber } }),
  /** EM_ANDAMENTO → CANCELADA: pending shipments stop. */
  cancel: (id: number) => call('POST /campaigns/{id}/cancel', { params: { id } }),
  /** CANCELADA → EM_ANDAMENTO: only the recipients not yet delivered are sent to. */
  restart: (id: number) => call('POST /campaigns/{id}/restart', { params: { id } }),
};

/**
 * The campaign dialog's lookups (spec 002 §7 "Supporting lookups") beside the contact lists' and the
 * connections' own: the company's contact tags, and every file list, page after page.
 */
export const campaignLookups = {
  /** Contact tags only: a tag list's recipients are the contacts carrying the tag (server-behaviour §10). */
  contactTags: () => tagsApi.list('contact'),
  fileLists: async (): Promise<ApiFileList[]> => {
    const out: ApiFileList[] = [];
    for (let pageNumber = 1; pageNumber <= MAX_PAGES; pageNumber++) {
      const page = await call('GET /files', { query: { pageNumber } });
      out.push(...page.files);
      if (!page.hasMore) break;
    }
    return out;
  },
};
