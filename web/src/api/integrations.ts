import type { ApiQueueIntegration, DIALOGFLOW_LANGUAGES } from '@balcao/shared';
import { call } from './call';
import { resource } from './resource';

/** `POST /queueIntegration/testSession`: one detectIntent with the form's credentials. */
export interface TestSessionBody {
  /** The integration edited: the server uses its stored key when `jsonContent` is still the mask. */
  id?: number;
  projectName: string | null;
  jsonContent: string;
  language: (typeof DIALOGFLOW_LANGUAGES)[number];
}

/** How many pages a selector reads at most (20 each): far beyond what a company configures. */
const MAX_PAGES = 50;

/** Queue integrations (spec 003): pages of 20 by name, the dialogs' save, Dialogflow's Test. */
export const integrationsApi = {
  ...resource('/queueIntegration'),
  testSession: (body: TestSessionBody) => call('POST /queueIntegration/testSession', { body }),
  /** Every integration of the company (the queue's and the connection's selectors), page after page. */
  all: async (): Promise<ApiQueueIntegration[]> => {
    const out: ApiQueueIntegration[] = [];
    for (let pageNumber = 1; pageNumber <= MAX_PAGES; pageNumber++) {
      const page = await call('GET /queueIntegration', { query: { pageNumber } });
      out.push(...page.queueIntegrations);
      if (!page.hasMore) break;
    }
    return out;
  },
};

/** AI prompts (spec 002): not paged; a delete answers the message the spec shows as an info toast. */
export const promptsApi = {
  ...resource('/prompt'),
  all: () => call('GET /prompt').then((r) => r.prompts),
  remove: (id: number) => call('DELETE /prompt/{id}', { params: { id } }),
};
