import type { ApiPrompt, ApiQueueIntegration } from '@balcao/shared';
import { toastError } from '../api/errors';
import { integrationsApi, promptsApi } from '../api/integrations';
import { usePlanFlag } from '../auth/usePlanGate';
import { BUILT } from '../features';
import { useOptions } from './useLoad';

/**
 * The AI prompts and queue integrations a queue or a connection may name (spec 000 §2.8, 003 §2),
 * read only when the company's plan has them (useOpenAi, useIntegrations: the routes answer 403
 * otherwise). `null`: not offered, so the dialog hides the selector and leaves the stored value.
 */
export function useAutomationOptions(): { prompts: ApiPrompt[] | null; integrations: ApiQueueIntegration[] | null } {
  const canPrompts = BUILT.prompts && usePlanFlag('useOpenAi');
  const canIntegrations = BUILT.integrations && usePlanFlag('useIntegrations');
  const prompts = useOptions<ApiPrompt[]>(promptsApi.all, [], { enabled: canPrompts, onError: toastError });
  const integrations = useOptions<ApiQueueIntegration[]>(integrationsApi.all, [], { enabled: canIntegrations, onError: toastError });
  return { prompts: canPrompts ? prompts : null, integrations: canIntegrations ? integrations : null };
}
