import type { ApiAnswers, SubscriptionInput } from '@balcao/shared';
import { api } from './http';

/** Invoices, the Pix checkout and the super user's payment provider setting (issue 22 §2). */
export const billingApi = {
  list: (q: { searchParam?: string; pageNumber: number; companyId?: number }) =>
    api.get<ApiAnswers['GET /invoices/all']>(
      `/invoices/all?${new URLSearchParams(Object.entries(q).filter(([, v]) => v !== undefined && v !== '').map(([k, v]) => [k, String(v)]))}`,
    ),
  checkout: (body: Omit<SubscriptionInput, 'country'> & { country: string }) => api.post<ApiAnswers['POST /subscription']>('/subscription', body),
  providerSetting: () => api.get<{ key: string; value: string; webhookToken: string; provider: 'asaas' | 'sandbox'; sandboxAvailable: boolean }>('/settings/asaas'),
  saveProviderSetting: (body: { value: string; webhookToken?: string }) =>
    api.put<{ key: string; value: string; webhookToken: string; provider: 'asaas' | 'sandbox' }>('/settings/asaas', body),
};
